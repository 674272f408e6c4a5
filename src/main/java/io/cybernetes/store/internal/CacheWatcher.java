package io.cybernetes.store.internal;

import io.cybernetes.store.Watch;
import io.cybernetes.store.WatchEvent;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One watcher of the watch cache: a backlog replayed first (events it asked for that
 * had already happened), then a bounded queue of live events. When the live queue is
 * full the watcher is marked overflowed: it delivers what it holds and then ends, so
 * its consumer resumes from the last revision it saw.
 */
final class CacheWatcher implements Watch {

    private final String prefix;
    private final Deque<WatchEvent> backlog;
    private final BlockingQueue<WatchEvent> live;
    private final LongSupplier cacheRevision;
    private final Runnable onClose;
    private volatile Runnable ready = () -> { };
    private volatile boolean overflowed;
    private volatile boolean closed;
    private volatile long delivered;

    CacheWatcher(String prefix, long afterRevision, Deque<WatchEvent> backlog, int capacity, LongSupplier cacheRevision,
                 Runnable onClose) {
        this.prefix = prefix;
        this.backlog = new ArrayDeque<>(backlog);
        this.live = new ArrayBlockingQueue<>(Math.max(1, capacity));
        this.cacheRevision = cacheRevision;
        this.onClose = onClose;
        this.delivered = afterRevision;
    }

    /** Puts older events, read from the database, in front of the backlog; only before the watch is handed out. */
    void prepend(java.util.List<WatchEvent> older) {
        for (int i = older.size() - 1; i >= 0; i--) {
            backlog.addFirst(older.get(i));
        }
    }

    String prefix() {
        return prefix;
    }

    /** Called by the cache, in revision order, for every event under the prefix. */
    void offer(WatchEvent event) {
        if (overflowed || closed) {
            return;
        }
        if (!live.offer(event)) {
            overflowed = true;
        }
        ready.run();
    }

    @Override
    public void onReady(Runnable listener) {
        ready = listener;
        if (!backlog.isEmpty() || !live.isEmpty() || isEnded()) {
            listener.run();
        }
    }

    @Override
    public WatchEvent next(long timeoutMillis) throws InterruptedException {
        WatchEvent e = backlog.poll();
        if (e == null) {
            if (closed) {
                return null;
            }
            e = overflowed ? live.poll() : live.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        }
        if (e != null) {
            delivered = e.revision();
        }
        return e;
    }

    @Override
    public boolean isEnded() {
        return closed || (overflowed && live.isEmpty() && backlog.isEmpty());
    }

    @Override
    public long progressRevision() {
        // Read the cache's revision first: the cache offers an event before it publishes its revision,
        // so empty queues afterwards mean everything up to that revision has been taken.
        long cached = cacheRevision.getAsLong();
        if (backlog.isEmpty() && live.isEmpty() && !overflowed) {
            return Math.max(delivered, cached);
        }
        return delivered;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }
}

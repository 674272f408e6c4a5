package io.cybernetes.apiserver.internal.handlers;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads open watches stream on, in turns ({@link WatchStreamer.Opened}): a watch
 * holds one only while it writes (a turn), so a thousand quiet watches cost their buffers,
 * not a thousand threads. Turns share a bounded pool ({@link #TURN_THREADS}: a client
 * slow to take its bytes keeps one while it is slow); timers (bookmarks, ends) are one
 * more. On shutdown the open watches are ended first, so clients rewatch elsewhere
 * instead of holding the web server's graceful shutdown to its timeout.
 */
@Component
public class WatchThreads implements SmartLifecycle {

    /** A turn asked for later. */
    public interface Timer {
        void cancel();

        boolean isDone();
    }

    /** At most this many watches write at once; more wait their turn. */
    public static final int TURN_THREADS = 64;

    private final AtomicInteger count = new AtomicInteger();
    private final Set<WatchStreamer.Opened> open = ConcurrentHashMap.newKeySet();
    private volatile ScheduledThreadPoolExecutor timers = newTimers();
    private volatile java.util.concurrent.ThreadPoolExecutor turns = newTurns();
    private volatile boolean running;

    private ScheduledThreadPoolExecutor newTimers() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "watch-timers-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        e.setRemoveOnCancelPolicy(true);
        return e;
    }

    private java.util.concurrent.ThreadPoolExecutor newTurns() {
        java.util.concurrent.ThreadPoolExecutor e = new java.util.concurrent.ThreadPoolExecutor(TURN_THREADS,
                TURN_THREADS, 30, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "watch-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        e.allowCoreThreadTimeOut(true); // a pool of none while every watch is quiet
        return e;
    }

    /** Runs a turn; {@link RejectedExecutionException} while stopped. */
    public void execute(Runnable turn) {
        turns.execute(turn);
    }

    /** Asks for a turn later: the timer thread only asks, the turn runs on the pool. */
    public Timer schedule(Runnable turn, long delayMillis) {
        ScheduledFuture<?> f = timers.schedule(turn, delayMillis, TimeUnit.MILLISECONDS);
        return new Timer() {
            @Override
            public void cancel() {
                f.cancel(false);
            }

            @Override
            public boolean isDone() {
                return f.isDone();
            }
        };
    }

    public void opened(WatchStreamer.Opened watch) {
        open.add(watch);
        if (!running && turns.isShutdown()) {
            watch.close();
        }
    }

    public void closed(WatchStreamer.Opened watch) {
        open.remove(watch);
    }

    /** How many watches are open. */
    public int openWatches() {
        return open.size();
    }

    /** The open watches by the resource they watch. */
    public java.util.Map<io.cybernetes.api.ResourceType, Long> openByType() {
        java.util.Map<io.cybernetes.api.ResourceType, Long> byType = new java.util.LinkedHashMap<>();
        for (WatchStreamer.Opened w : open) {
            byType.merge(w.type(), 1L, Long::sum);
        }
        return byType;
    }

    /** Started again after a stop (a paused test context resumes), with fresh threads. */
    @Override
    public synchronized void start() {
        if (turns.isShutdown()) {
            turns = newTurns();
            timers = newTimers();
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        for (WatchStreamer.Opened w : List.copyOf(open)) {
            w.close();
        }
        timers.shutdownNow();
        turns.shutdownNow();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops early (high phases stop first): before the web server waits for requests, after the controller manager. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 1;
    }
}

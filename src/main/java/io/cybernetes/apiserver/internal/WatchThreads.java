package io.cybernetes.apiserver.internal;

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
 * The few threads every open watch streams on, in turns ({@link WatchStreamer.Opened}):
 * a watch costs its buffers, not a thread, however many are open. On shutdown the open
 * watches are ended first, so clients rewatch elsewhere instead of holding the web
 * server's graceful shutdown to its timeout.
 */
@Component
class WatchThreads implements SmartLifecycle {

    /** A turn asked for later. */
    interface Timer {
        void cancel();

        boolean isDone();
    }

    private static final int THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

    private final AtomicInteger count = new AtomicInteger();
    private final Set<WatchStreamer.Opened> open = ConcurrentHashMap.newKeySet();
    private volatile ScheduledThreadPoolExecutor executor = newExecutor();
    private volatile boolean running;

    private ScheduledThreadPoolExecutor newExecutor() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(THREADS, r -> {
            Thread t = new Thread(r, "watch-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        e.setRemoveOnCancelPolicy(true);
        return e;
    }

    /** Runs a turn; {@link RejectedExecutionException} while stopped. */
    void execute(Runnable turn) {
        executor.execute(turn);
    }

    Timer schedule(Runnable turn, long delayMillis) {
        ScheduledFuture<?> f = executor.schedule(turn, delayMillis, TimeUnit.MILLISECONDS);
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

    void opened(WatchStreamer.Opened watch) {
        open.add(watch);
        if (!running && executor.isShutdown()) {
            watch.close();
        }
    }

    void closed(WatchStreamer.Opened watch) {
        open.remove(watch);
    }

    /** How many watches are open. */
    int openWatches() {
        return open.size();
    }

    /** Started again after a stop (a paused test context resumes), with fresh threads. */
    @Override
    public synchronized void start() {
        if (executor.isShutdown()) {
            executor = newExecutor();
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        for (WatchStreamer.Opened w : List.copyOf(open)) {
            w.close();
        }
        executor.shutdownNow();
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

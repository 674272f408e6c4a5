package io.cybernetes.apiserver.internal;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads open watches stream on. Each watch holds one while it is open (not a
 * request thread: the request is in async mode); they are made on demand and end with
 * their watch. On shutdown they are stopped first, so open watches end (clients rewatch
 * elsewhere) instead of holding the web server's graceful shutdown to its timeout.
 */
@Component
class WatchThreads implements SmartLifecycle {

    private final AtomicInteger count = new AtomicInteger();
    private volatile ExecutorService executor = newExecutor();
    private volatile boolean running;

    private ExecutorService newExecutor() {
        return Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "watch-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs the watch; {@link java.util.concurrent.RejectedExecutionException} while stopped. */
    void execute(Runnable task) {
        executor.execute(task);
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

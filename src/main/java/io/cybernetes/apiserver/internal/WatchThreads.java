package io.cybernetes.apiserver.internal;

import jakarta.annotation.PreDestroy;
import org.springframework.stereotype.Component;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads open watches stream on. Each watch holds one while it is open (not a
 * request thread: the request is in async mode); they are made on demand and end with
 * their watch.
 */
@Component
class WatchThreads {

    private final AtomicInteger count = new AtomicInteger();
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "watch-" + count.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    void execute(Runnable task) {
        executor.execute(task);
    }

    @PreDestroy
    void shutdown() {
        executor.shutdownNow();
    }
}

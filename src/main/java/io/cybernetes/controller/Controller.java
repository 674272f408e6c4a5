package io.cybernetes.controller;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.RateLimitingQueue;
import io.cybernetes.client.WorkQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One controller: a rate-limited queue of keys, filled by informer handlers through
 * {@link #enqueue}, drained by N workers that call the {@link Reconciler}. The retry
 * policy in one place: success forgets the key's backoff; {@link Result#requeueAfter()}
 * adds it after the delay; {@link Result#requeue()} or an exception adds it rate-limited;
 * a {@link Reconciler.TerminalException} is recorded and dropped. A worker never dies of
 * a reconcile's failure. Counts what it does for the reconcile status.
 */
public final class Controller {

    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    private final String name;
    private final Reconciler reconciler;
    private final int workers;
    private final RateLimitingQueue<String> queue;
    /** The workers of the last start (after a stop, those that may still be finishing a reconcile). */
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong reconciles = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<LastError> lastError = new AtomicReference<>();
    private final AtomicReference<Instant> lastSuccess = new AtomicReference<>();
    private final long[] durations = new long[1024];
    private int durationCount;
    private volatile boolean running;
    private final Map<String, KeyResult> lastResults = java.util.Collections.synchronizedMap(
            new LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, KeyResult> eldest) {
                    return size() > MAX_REMEMBERED_KEYS;
                }
            });

    /** How many keys' last results are remembered (the least recently reconciled are forgotten first). */
    static final int MAX_REMEMBERED_KEYS = 20_000;

    /** The latest failure: which object, what, when. */
    public record LastError(String key, String message, Instant at) {
    }

    /** How the latest reconcile of one key ended: Success, Requeue, RequeueAfter, Error or TerminalError. */
    public record KeyResult(String outcome, String message, Instant at, Duration took) {
    }

    /** What the controller has done, for the reconcile status API and metrics. */
    public record Status(String name, int workers, boolean running, WorkQueue.Metrics queue, long reconciles,
                         long errors, Duration p50, Duration p99, LastError lastError, Instant lastSuccess) {

        /** A controller this replica does not run. */
        public static Status idle(String name) {
            return new Status(name, 0, false, new WorkQueue.Metrics(0, 0, 0, 0, Duration.ZERO, Duration.ZERO, 0), 0, 0,
                    Duration.ZERO, Duration.ZERO, null, null);
        }
    }

    public Controller(String name, Reconciler reconciler, int workers) {
        this.name = name;
        this.reconciler = reconciler;
        this.workers = workers;
        this.queue = RateLimitingQueue.withDefaultLimits(name);
    }

    public String name() {
        return name;
    }

    /** Queues the object's key (namespace/name); informer handlers call this and nothing else. */
    public void enqueue(String key) {
        queue.add(key);
    }

    /** A handler that queues every object that is added or changes (deletions need no reconcile). */
    public <T extends io.fabric8.kubernetes.api.model.HasMetadata> io.cybernetes.client.ResourceEventHandler<T>
    enqueueOnAddAndUpdate() {
        return new io.cybernetes.client.ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                enqueue(io.cybernetes.client.Keys.of(obj));
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                enqueue(io.cybernetes.client.Keys.of(newObj));
            }
        };
    }

    /** A handler that queues every object that is added, changes or goes (a deletion may leave work behind). */
    public <T extends io.fabric8.kubernetes.api.model.HasMetadata> io.cybernetes.client.ResourceEventHandler<T>
    enqueueOnEveryChange() {
        io.cybernetes.client.ResourceEventHandler<T> addAndUpdate = enqueueOnAddAndUpdate();
        return new io.cybernetes.client.ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                addAndUpdate.onAdd(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                addAndUpdate.onUpdate(oldObj, newObj);
            }

            @Override
            public void onDelete(T lastKnown, boolean finalStateUnknown) {
                enqueue(io.cybernetes.client.Keys.of(lastKnown));
            }
        };
    }

    /**
     * A handler that queues, for every object that is added, changes or goes, the key
     * {@code keyOf} maps it to (another object's: a slice's Service, a Job's CronJob); null queues nothing.
     */
    public <T extends io.fabric8.kubernetes.api.model.HasMetadata> io.cybernetes.client.ResourceEventHandler<T>
    enqueueMapped(java.util.function.Function<T, String> keyOf) {
        return new io.cybernetes.client.ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                queue(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                queue(newObj);
            }

            @Override
            public void onDelete(T lastKnown, boolean finalStateUnknown) {
                queue(lastKnown);
            }

            private void queue(T obj) {
                String key = keyOf.apply(obj);
                if (key != null) {
                    enqueue(key);
                }
            }
        };
    }

    public void enqueueAfter(String key, Duration delay) {
        queue.addAfter(key, delay);
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        threads.clear();
        for (int i = 0; i < workers; i++) {
            Thread t = new Thread(this::work, name + "-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** Stops taking keys; workers finish the reconcile they are in ({@link #awaitStopped} waits for that). */
    public synchronized void stop() {
        running = false;
        queue.shutDown();
    }

    /** Waits, until the deadline ({@link System#nanoTime}), for the workers {@link #stop} stopped to end. */
    public boolean awaitStopped(long deadline) throws InterruptedException {
        List<Thread> workers;
        synchronized (this) {
            workers = List.copyOf(threads);
        }
        for (Thread t : workers) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            t.join(Math.max(1, left / 1_000_000));
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }

    private void work() {
        while (running) {
            String key;
            try {
                key = queue.get(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (key == null) {
                if (queue.isShuttingDown()) {
                    return;
                }
                continue;
            }
            try {
                process(key);
            } finally {
                queue.done(key);
            }
        }
    }

    private void process(String key) {
        long t0 = System.nanoTime();
        String outcome;
        String message = "";
        try {
            Result r = reconciler.reconcile(Request.ofKey(key));
            reconciles.incrementAndGet();
            lastSuccess.set(Instant.now());
            if (r.requeue()) {
                outcome = "Requeue";
                queue.addRateLimited(key);
            } else {
                queue.forget(key);
                outcome = "Success";
                if (!r.requeueAfter().isZero()) {
                    outcome = "RequeueAfter";
                    message = "looks again in " + r.requeueAfter().toMillis() + " ms";
                    queue.addAfter(key, r.requeueAfter());
                }
            }
        } catch (Reconciler.TerminalException e) {
            reconciles.incrementAndGet();
            errors.incrementAndGet();
            outcome = "TerminalError";
            message = String.valueOf(e.getMessage());
            lastError.set(new LastError(key, message, Instant.now()));
            queue.forget(key);
            log.warn("{}: {} failed for good: {}", name, key, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            reconciles.incrementAndGet();
            errors.incrementAndGet();
            outcome = "Error";
            message = String.valueOf(e.getMessage());
            lastError.set(new LastError(key, message, Instant.now()));
            queue.addRateLimited(key);
            // a conflict is the ordinary race with another writer; anything else says why a key keeps coming back
            if (e instanceof ApiException a && a.code() == 409) {
                log.debug("{}: {} failed, retrying: {}", name, key, e.toString());
            } else {
                log.info("{}: {} failed, retrying: {}", name, key, e.toString());
            }
        }
        long took = System.nanoTime() - t0;
        record(took);
        lastResults.put(key, new KeyResult(outcome, message, Instant.now(), Duration.ofNanos(took)));
    }

    /** How the latest reconcile of the key ended, if this controller remembers one. */
    public Optional<KeyResult> lastResult(String key) {
        return Optional.ofNullable(lastResults.get(key));
    }

    private synchronized void record(long nanos) {
        durations[durationCount % durations.length] = nanos;
        durationCount++;
    }

    public synchronized Status status() {
        int n = Math.min(durationCount, durations.length);
        long[] sorted = Arrays.copyOf(durations, n);
        Arrays.sort(sorted);
        Duration p50 = n == 0 ? Duration.ZERO : Duration.ofNanos(sorted[(int) ((n - 1) * 0.5)]);
        Duration p99 = n == 0 ? Duration.ZERO : Duration.ofNanos(sorted[(int) ((n - 1) * 0.99)]);
        return new Status(name, workers, running, queue.metrics(), reconciles.get(), errors.get(), p50, p99,
                lastError.get(), lastSuccess.get());
    }
}

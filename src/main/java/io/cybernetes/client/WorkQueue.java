package io.cybernetes.client;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A deduplicating work queue with client-go's guarantees: a key added several times
 * before a worker takes it is processed once; a key is never handed to two workers at
 * once; a key added while it is being processed is processed again after {@link #done}.
 * Workers call {@link #get}, process, then {@link #done}. After {@link #shutDown},
 * {@code get} hands out what is left and then returns null.
 *
 * @param <K> the key type (namespace/name strings for controllers)
 */
public class WorkQueue<K> {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<K> queue = new ArrayDeque<>();
    private final Set<K> dirty = new HashSet<>();
    private final Map<K, Long> processing = new HashMap<>();
    private boolean shuttingDown;
    private final AtomicLong adds = new AtomicLong();
    private final AtomicLong workNanos = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();

    /** Adds the key unless it is already waiting; a key being processed is queued again after it is done. */
    public void add(K key) {
        lock.lock();
        try {
            if (shuttingDown || dirty.contains(key)) {
                return;
            }
            adds.incrementAndGet();
            dirty.add(key);
            if (processing.containsKey(key)) {
                return;
            }
            queue.addLast(key);
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The next key, waiting for one; null once the queue is shut down and drained. */
    public K get() throws InterruptedException {
        return get(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
    }

    /** As {@link #get()}, giving up (null) after the timeout. */
    public K get(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (queue.isEmpty() && !shuttingDown) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            K key = queue.pollFirst();
            if (key == null) {
                return null;
            }
            processing.put(key, System.nanoTime());
            dirty.remove(key);
            return key;
        } finally {
            lock.unlock();
        }
    }

    /** The worker is finished with the key; if it was added meanwhile, it is queued again. */
    public void done(K key) {
        lock.lock();
        try {
            Long started = processing.remove(key);
            if (started != null) {
                workNanos.addAndGet(System.nanoTime() - started);
                completed.incrementAndGet();
            }
            if (dirty.contains(key)) {
                queue.addLast(key);
                notEmpty.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Stops taking keys; workers get what is queued, then null. */
    public void shutDown() {
        lock.lock();
        try {
            shuttingDown = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public boolean isShuttingDown() {
        lock.lock();
        try {
            return shuttingDown;
        } finally {
            lock.unlock();
        }
    }

    /** Keys waiting for a worker. */
    public int depth() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** What the queue has done so far, for reconcile status and metrics. */
    public record Metrics(int depth, int inFlight, long adds, long completed, Duration meanWork, Duration longestRunning,
                          long retries) {
    }

    public Metrics metrics() {
        lock.lock();
        try {
            long now = System.nanoTime();
            long longest = processing.values().stream().mapToLong(s -> now - s).max().orElse(0);
            long n = completed.get();
            return new Metrics(queue.size(), processing.size(), adds.get(), n,
                    Duration.ofNanos(n == 0 ? 0 : workNanos.get() / n), Duration.ofNanos(longest), retries());
        } finally {
            lock.unlock();
        }
    }

    /** Retries counted by subclasses that requeue with a delay; none here. */
    protected long retries() {
        return 0;
    }
}

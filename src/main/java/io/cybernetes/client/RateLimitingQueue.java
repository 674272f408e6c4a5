package io.cybernetes.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The queue controllers use: a delaying queue whose {@link #addRateLimited} waits as the
 * rate limiter says. The retry policy in one place: an error requeues rate-limited,
 * success {@link #forget}s the key's backoff, a requested delay uses {@link #addAfter}.
 */
public class RateLimitingQueue<K> extends DelayingQueue<K> {

    private final RateLimiter<K> limiter;
    private final AtomicLong retries = new AtomicLong();

    public RateLimitingQueue(String name, RateLimiter<K> limiter) {
        super(name);
        this.limiter = limiter;
    }

    public static <K> RateLimitingQueue<K> withDefaultLimits(String name) {
        return new RateLimitingQueue<>(name, RateLimiter.defaultControllerRateLimiter());
    }

    /** Adds the key after the limiter's wait: the retry of a failed reconcile. */
    public void addRateLimited(K key) {
        retries.incrementAndGet();
        addAfter(key, limiter.when(key));
    }

    /** The key succeeded: its backoff starts over next time. */
    public void forget(K key) {
        limiter.forget(key);
    }

    public int numRequeues(K key) {
        return limiter.numRequeues(key);
    }

    @Override
    protected long retries() {
        return retries.get();
    }
}

package io.cybernetes.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long a key waits before it is retried, as client-go's workqueue rate limiters: an
 * exponential per-key backoff, an overall token bucket, and the larger of several.
 * {@link #forget} ends a key's backoff once it succeeds.
 */
public interface RateLimiter<K> {

    Duration when(K key);

    void forget(K key);

    int numRequeues(K key);

    /** client-go's default controller rate limiter: per key 5 ms doubling to 1,000 s, overall 10 per second, burst 100. */
    static <K> RateLimiter<K> defaultControllerRateLimiter() {
        return maxOf(List.of(exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)), bucket(10, 100)));
    }

    /** base × 2^failures, capped at max, per key. */
    static <K> RateLimiter<K> exponential(Duration base, Duration max) {
        Map<K, Integer> failures = new ConcurrentHashMap<>();
        return new RateLimiter<>() {
            @Override
            public Duration when(K key) {
                int n = failures.merge(key, 1, Integer::sum) - 1;
                if (n >= 62) {
                    return max;
                }
                double nanos = base.toNanos() * Math.pow(2, n);
                return nanos >= max.toNanos() ? max : Duration.ofNanos((long) nanos);
            }

            @Override
            public void forget(K key) {
                failures.remove(key);
            }

            @Override
            public int numRequeues(K key) {
                return failures.getOrDefault(key, 0);
            }
        };
    }

    /** A token bucket of {@code qps} tokens a second holding at most {@code burst}; one token a retry, whatever the key. */
    static <K> RateLimiter<K> bucket(double qps, int burst) {
        return new RateLimiter<>() {
            private double tokens = burst;
            private long last = System.nanoTime();

            @Override
            public synchronized Duration when(K key) {
                long now = System.nanoTime();
                tokens = Math.min(burst, tokens + (now - last) / 1e9 * qps);
                last = now;
                tokens -= 1;
                if (tokens >= 0) {
                    return Duration.ZERO;
                }
                return Duration.ofNanos((long) (-tokens / qps * 1e9));
            }

            @Override
            public void forget(K key) {
            }

            @Override
            public int numRequeues(K key) {
                return 0;
            }
        };
    }

    /** The longest wait any of the limiters asks for. */
    static <K> RateLimiter<K> maxOf(List<RateLimiter<K>> limiters) {
        return new RateLimiter<>() {
            @Override
            public Duration when(K key) {
                Duration max = Duration.ZERO;
                for (RateLimiter<K> l : limiters) {
                    Duration d = l.when(key);
                    if (d.compareTo(max) > 0) {
                        max = d;
                    }
                }
                return max;
            }

            @Override
            public void forget(K key) {
                limiters.forEach(l -> l.forget(key));
            }

            @Override
            public int numRequeues(K key) {
                return limiters.stream().mapToInt(l -> l.numRequeues(key)).max().orElse(0);
            }
        };
    }
}

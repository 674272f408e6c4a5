package io.cybernetes.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class WorkQueueTest {

    @Test
    void aKeyAddedTwiceBeforeAWorkerTakesItIsProcessedOnce() throws Exception {
        WorkQueue<String> q = new WorkQueue<>();
        q.add("a");
        q.add("b");
        q.add("a");
        assertThat(q.depth()).isEqualTo(2);
        assertThat(q.get()).isEqualTo("a");
        assertThat(q.get()).isEqualTo("b");
        assertThat(q.get(10, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void aKeyAddedWhileBeingProcessedIsProcessedAgainAfterDoneNotMeanwhile() throws Exception {
        WorkQueue<String> q = new WorkQueue<>();
        q.add("a");
        assertThat(q.get()).isEqualTo("a");
        q.add("a");
        assertThat(q.get(20, TimeUnit.MILLISECONDS)).as("not to a second worker while the first has it").isNull();
        q.done("a");
        assertThat(q.get(20, TimeUnit.MILLISECONDS)).isEqualTo("a");
        q.done("a");
        assertThat(q.depth()).isZero();
    }

    @Test
    void noKeyIsEverWithTwoWorkersAtOnce() throws Exception {
        WorkQueue<Integer> q = new WorkQueue<>();
        Set<Integer> busy = ConcurrentHashMap.newKeySet();
        AtomicBoolean overlap = new AtomicBoolean();
        AtomicInteger processed = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            Thread t = new Thread(() -> {
                try {
                    Integer k;
                    while ((k = q.get()) != null) {
                        if (!busy.add(k)) {
                            overlap.set(true);
                        }
                        Thread.sleep(0, 50_000);
                        busy.remove(k);
                        processed.incrementAndGet();
                        q.done(k);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            workers.add(t);
        }
        for (int i = 0; i < 20_000; i++) {
            q.add(i % 10);
        }
        Thread.sleep(200);
        q.shutDown();
        for (Thread t : workers) {
            t.join(10_000);
        }
        assertThat(overlap).isFalse();
        assertThat(processed.get()).isPositive().isLessThanOrEqualTo(20_000);
    }

    @Test
    void afterShutDownWorkersDrainWhatIsLeftThenGetNull() throws Exception {
        WorkQueue<String> q = new WorkQueue<>();
        q.add("a");
        q.shutDown();
        q.add("b");
        assertThat(q.get()).isEqualTo("a");
        assertThat(q.get()).isNull();
    }

    @Test
    void aDelayedKeyArrivesAfterItsDelayAndTheEarliestRequestWins() throws Exception {
        DelayingQueue<String> q = new DelayingQueue<>("test");
        long t0 = System.nanoTime();
        q.addAfter("late", Duration.ofSeconds(30));
        q.addAfter("late", Duration.ofMillis(50));
        q.addAfter("soon", Duration.ofMillis(20));
        assertThat(q.get(2, TimeUnit.SECONDS)).isEqualTo("soon");
        assertThat(q.get(2, TimeUnit.SECONDS)).isEqualTo("late");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        assertThat(q.waitingCount()).isZero();
        q.shutDown();
    }

    @Test
    void perKeyBackoffDoublesFrom5msTo1000sAndForgettingStartsOver() {
        RateLimiter<String> r = RateLimiter.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000));
        assertThat(r.when("k")).isEqualTo(Duration.ofMillis(5));
        assertThat(r.when("k")).isEqualTo(Duration.ofMillis(10));
        assertThat(r.when("k")).isEqualTo(Duration.ofMillis(20));
        assertThat(r.when("other")).isEqualTo(Duration.ofMillis(5));
        for (int i = 0; i < 30; i++) {
            r.when("k");
        }
        assertThat(r.when("k")).isEqualTo(Duration.ofSeconds(1000));
        assertThat(r.numRequeues("k")).isEqualTo(34);
        r.forget("k");
        assertThat(r.when("k")).isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void theOverallBucketLetsABurstThroughThenSpacesRetries() {
        RateLimiter<String> bucket = RateLimiter.bucket(10, 100);
        for (int i = 0; i < 100; i++) {
            assertThat(bucket.when("k" + i)).isEqualTo(Duration.ZERO);
        }
        Duration next = bucket.when("k");
        assertThat(next).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
        RateLimiter<String> both = RateLimiter.defaultControllerRateLimiter();
        assertThat(both.when("x")).isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void aRateLimitedRetryComesBackAndCountsAsARetry() throws Exception {
        RateLimitingQueue<String> q = RateLimitingQueue.withDefaultLimits("test");
        q.add("k");
        assertThat(q.get()).isEqualTo("k");
        q.addRateLimited("k");
        q.done("k");
        assertThat(q.get(2, TimeUnit.SECONDS)).isEqualTo("k");
        assertThat(q.numRequeues("k")).isEqualTo(1);
        assertThat(q.metrics().retries()).isEqualTo(1);
        assertThat(q.metrics().inFlight()).isEqualTo(1);
        q.forget("k");
        q.done("k");
        assertThat(q.numRequeues("k")).isZero();
        assertThat(q.metrics().completed()).isEqualTo(2);
        q.shutDown();
    }
}

package io.cybernetes.controller;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ControllerTest {

    Controller controller;

    @AfterEach
    void stop() {
        if (controller != null) {
            controller.stop();
        }
    }

    /** A stopped controller's reconcile under way is waited for, so a successor does not overlap it. */
    @Test
    void stoppingWaitsForTheReconcileUnderWay() throws Exception {
        java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        controller = new Controller("test", req -> {
            inside.countDown();
            release.await();
            return Result.DONE;
        }, 1);
        controller.start();
        controller.enqueue("ns/slow");
        assertThat(inside.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        controller.stop();
        assertThat(controller.awaitStopped(System.nanoTime() + 50_000_000L)).as("still reconciling").isFalse();
        release.countDown();
        assertThat(controller.awaitStopped(System.nanoTime() + 5_000_000_000L)).isTrue();
        assertThat(controller.status().reconciles()).isEqualTo(1);
    }

    @Test
    void aFailingReconcileIsRetriedWithBackoffUntilItSucceedsAndTheWorkerLives() {
        AtomicInteger calls = new AtomicInteger();
        controller = new Controller("test", req -> {
            if (calls.incrementAndGet() < 4) {
                throw new IllegalStateException("not yet");
            }
            return Result.DONE;
        }, 2);
        controller.start();
        controller.enqueue("ns/a");
        await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 4);
        Controller.Status s = controller.status();
        assertThat(s.errors()).isEqualTo(3);
        assertThat(s.lastError().key()).isEqualTo("ns/a");
        assertThat(s.lastError().message()).isEqualTo("not yet");
        assertThat(s.queue().retries()).isEqualTo(3);
        await().until(() -> controller.status().reconciles() == 4);
        // the workers still work
        controller.enqueue("ns/b");
        await().until(() -> calls.get() == 5);
    }

    @Test
    void aTerminalErrorIsRecordedAndNotRetried() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        controller = new Controller("test", req -> {
            calls.incrementAndGet();
            throw new Reconciler.TerminalException("spec.replicas is not a number");
        }, 1);
        controller.start();
        controller.enqueue("ns/a");
        await().until(() -> controller.status().errors() == 1);
        Thread.sleep(100);
        assertThat(calls.get()).isEqualTo(1);
        assertThat(controller.status().lastError().message()).isEqualTo("spec.replicas is not a number");
    }

    @Test
    void requeueAfterLooksAgainLater() {
        AtomicInteger calls = new AtomicInteger();
        controller = new Controller("test", req -> calls.incrementAndGet() == 1 ? Result.after(Duration.ofMillis(100))
                : Result.DONE, 1);
        controller.start();
        long t0 = System.nanoTime();
        controller.enqueue("a");
        await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 2);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void oneKeyIsNeverReconciledByTwoWorkersAtOnce() {
        Set<String> busy = ConcurrentHashMap.newKeySet();
        AtomicBoolean overlap = new AtomicBoolean();
        Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
        controller = new Controller("test", req -> {
            if (!busy.add(req.key())) {
                overlap.set(true);
            }
            Thread.sleep(1);
            busy.remove(req.key());
            counts.computeIfAbsent(req.key(), k -> new AtomicInteger()).incrementAndGet();
            return Result.DONE;
        }, 4);
        controller.start();
        for (int i = 0; i < 2000; i++) {
            controller.enqueue("ns/k" + (i % 5));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.status().queue().depth() == 0
                && controller.status().queue().inFlight() == 0);
        assertThat(overlap).isFalse();
        assertThat(counts).hasSize(5);
        assertThat(Request.ofKey("ns/k1")).isEqualTo(new Request("ns", "k1"));
        assertThat(Request.ofKey("node-1").namespace()).isEmpty();
    }
}

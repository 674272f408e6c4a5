package io.cybernetes.scheduler;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.TestClock;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.Profile;
import io.cybernetes.scheduler.noderesources.NodeResourcesFit;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** The loop: bind what fits (assumed first), report what does not, retry what the binding refused. */
class SchedulerTest {

    final TestClock clock = new TestClock();
    final SchedulingQueue queue = new SchedulingQueue(clock);
    final SchedulerCache cache = new SchedulerCache(clock);

    Scheduler scheduler(RecordingApiClient client) {
        Framework framework = new Framework(new Profile().add(new NodeResourcesFit(
                NodeResourcesFit.Strategy.LEAST_ALLOCATED)), 0);
        return new Scheduler(client, framework, queue, cache, new EventRecorder(client, "default-scheduler"),
                Runnable::run, clock);
    }

    @Test
    void aPodThatFitsIsAssumedAndBound() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        cache.putNode(node("n1"));
        queue.add(pod("p", "1", null).build());
        assertThat(scheduler(client).scheduleOne(0)).isTrue();
        assertThat(client.actions).contains("bind Pod p n1");
        assertThat(cache.isAssumed(pod("p"))).as("until the watch confirms it").isTrue();
        assertThat(queue.depths()).isEqualTo(new SchedulingQueue.Depths(0, 0, 0));
    }

    @Test
    void twoPodsInARowSeeEachOtherThroughTheAssumedOne() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        cache.putNode(node("n1", "1", "8Gi", 110).build());
        cache.putNode(node("n2", "1", "8Gi", 110).build());
        queue.add(pod("a", "1", null).build());
        clock.advance(java.time.Duration.ofMillis(1));
        queue.add(pod("b", "1", null).build());
        Scheduler s = scheduler(client);
        s.scheduleOne(0);
        s.scheduleOne(0);
        assertThat(client.actions.stream().filter(a -> a.startsWith("bind")).toList())
                .containsExactlyInAnyOrder("bind Pod a n1", "bind Pod b n2");
    }

    @Test
    void aPodThatFitsNowhereIsMarkedAndParked() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        cache.putNode(node("n1", "1", "8Gi", 110).build());
        queue.add(pod("big", "2", null).build());
        Scheduler s = scheduler(client);
        s.scheduleOne(0);
        Pod written = (Pod) client.statusWrites.get(0);
        assertThat(written.getStatus().getConditions()).singleElement().satisfies(c -> {
            assertThat(c.getType()).isEqualTo("PodScheduled");
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("Unschedulable");
            assertThat(c.getMessage()).isEqualTo("0/1 nodes are available: 1 Insufficient cpu.");
        });
        assertThat(client.actions).anyMatch(a -> a.startsWith("create Event"));
        assertThat(queue.depths().unschedulable()).isEqualTo(1);
        assertThat(s.lastDecision("ns/big")).get().extracting(Framework.Decision::scheduled).isEqualTo(false);
    }

    @Test
    void aRefusedBindingForgetsTheAssumedPodAndRetries() throws Exception {
        RecordingApiClient client = new RecordingApiClient() {
            @Override
            public void bind(String namespace, String pod, String node) {
                throw ApiException.conflict("", "pods", pod, "pod " + pod + " is already assigned to node \"x\"");
            }
        };
        cache.putNode(node("n1"));
        queue.add(pod("p", "1", null).build());
        scheduler(client).scheduleOne(0);
        assertThat(cache.isAssumed(pod("p"))).isFalse();
        assertThat(queue.depths().backoff()).isEqualTo(1);
    }
}

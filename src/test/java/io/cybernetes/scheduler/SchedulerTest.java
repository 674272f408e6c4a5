package io.cybernetes.scheduler;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.TestClock;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.Profile;
import io.cybernetes.scheduler.noderesources.NodeResourcesFit;
import io.fabric8.kubernetes.api.model.Pod;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
        // the FailedScheduling event is written beside the loop
        org.awaitility.Awaitility.await().untilAsserted(() ->
                assertThat(List.copyOf(client.actions)).anyMatch(a -> a.startsWith("create Event")));
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

    /** Records what the framework tells it; refuses to reserve the nodes named. */
    static final class RecordingPlugin implements Plugin.Reserve,
            Plugin.Bind {
        final List<String> calls = new ArrayList<>();
        final Set<String> refuse;
        final boolean binds;

        RecordingPlugin(boolean binds, String... refuse) {
            this.binds = binds;
            this.refuse = Set.of(refuse);
        }

        @Override
        public String name() {
            return "Recording";
        }

        @Override
        public Status reserve(CycleState state,
                                                                Pod pod, String node) {
            calls.add("reserve " + node);
            return refuse.contains(node) ? Status.unschedulable("volume taken")
                    : Status.SUCCESS;
        }

        @Override
        public void unreserve(CycleState state, Pod pod, String node) {
            calls.add("unreserve " + node);
        }

        @Override
        public Status bind(CycleState state,
                                                             Pod pod, String node) {
            calls.add("bind " + node);
            return Status.SUCCESS;
        }
    }

    private Scheduler scheduler(RecordingApiClient client, Plugin plugin) {
        Framework framework = new Framework(new Profile().add(new NodeResourcesFit(
                NodeResourcesFit.Strategy.LEAST_ALLOCATED)).add(plugin, 0), 0);
        return new Scheduler(client, framework, queue, cache, new EventRecorder(client, "default-scheduler"),
                Runnable::run, clock);
    }

    /** Only Reserve, without binding itself. */
    static final class ReserveOnly implements Plugin.Reserve {
        final RecordingPlugin inner;

        ReserveOnly(String... refuse) {
            inner = new RecordingPlugin(false, refuse);
        }

        @Override
        public String name() {
            return "ReserveOnly";
        }

        @Override
        public Status reserve(CycleState state,
                                                                Pod pod, String node) {
            return inner.reserve(state, pod, node);
        }

        @Override
        public void unreserve(CycleState state, Pod pod, String node) {
            inner.unreserve(state, pod, node);
        }
    }

    @Test
    void aRefusedReserveUnreservesAndBacksOffWithoutAssuming() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        ReserveOnly plugin = new ReserveOnly("n1");
        cache.putNode(node("n1"));
        queue.add(pod("p", "1", null).build());
        scheduler(client, plugin).scheduleOne(0);
        assertThat(plugin.inner.calls).containsExactly("reserve n1", "unreserve n1");
        assertThat(cache.isAssumed(pod("p"))).isFalse();
        assertThat(client.actions).noneMatch(a -> a.startsWith("bind"));
        assertThat(queue.depths().backoff()).isEqualTo(1);
    }

    @Test
    void aFailedBindingUnreserves() throws Exception {
        RecordingApiClient client = new RecordingApiClient() {
            @Override
            public void bind(String namespace, String pod, String node) {
                throw ApiException.conflict("", "pods", pod, "pod " + pod + " is already assigned to node \"x\"");
            }
        };
        ReserveOnly plugin = new ReserveOnly();
        cache.putNode(node("n1"));
        queue.add(pod("p", "1", null).build());
        scheduler(client, plugin).scheduleOne(0);
        assertThat(plugin.inner.calls).containsExactly("reserve n1", "unreserve n1");
    }

    @Test
    void aBindPluginBindsInsteadOfPodsBinding() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        RecordingPlugin plugin = new RecordingPlugin(true);
        cache.putNode(node("n1"));
        queue.add(pod("p", "1", null).build());
        scheduler(client, plugin).scheduleOne(0);
        assertThat(plugin.calls).containsExactly("reserve n1", "bind n1");
        assertThat(client.actions).noneMatch(a -> a.startsWith("bind"));
        assertThat(queue.depths()).isEqualTo(new SchedulingQueue.Depths(0, 0, 0));
    }

    @Test
    void aCycleThatFailsHalfWayLeavesThePodBackingOffNotLost() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        cache.putNode(node("n1"));
        queue.add(pod("p", "1", null).build());
        Plugin.Filter broken = new Plugin.Filter() {
            @Override
            public String name() {
                return "Broken";
            }

            @Override
            public Status filter(CycleState state, Pod pod, io.cybernetes.scheduler.framework.NodeInfo node) {
                throw new IllegalStateException("a plugin's bug");
            }
        };
        Scheduler s = scheduler(client, broken);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.scheduleOne(0))
                .isInstanceOf(IllegalStateException.class);
        assertThat(queue.depths()).isEqualTo(new SchedulingQueue.Depths(0, 1, 0));
        assertThat(cache.isAssumed(pod("p"))).isFalse();
    }
}

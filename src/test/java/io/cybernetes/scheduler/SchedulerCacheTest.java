package io.cybernetes.scheduler;

import io.cybernetes.controller.TestClock;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Resources;
import io.cybernetes.scheduler.framework.Snapshot;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** Assumed pods: counted at once, confirmed by the watch, forgotten on a failed binding, expired when never seen. */
class SchedulerCacheTest {

    final TestClock clock = new TestClock();
    final SchedulerCache cache = new SchedulerCache(clock);

    @BeforeEach
    void nodes() {
        cache.putNode(node("n1"));
        cache.putNode(node("n2"));
    }

    private long cpuOn(String node) {
        return cache.snapshot().stream().filter(n -> n.name().equals(node)).findFirst().map(NodeInfo::requested)
                .map(r -> r.get(Resources.CPU)).orElseThrow();
    }

    private static Pod bound(Pod p, String node) {
        Pod copy = new io.fabric8.kubernetes.api.model.PodBuilder(p).editSpec().withNodeName(node).endSpec().build();
        return copy;
    }

    @Test
    void anAssumedPodCountsAtOnceAndOnceConfirmed() {
        Pod p = pod("p", "1", null).build();
        cache.assume(p, "n1");
        assertThat(cpuOn("n1")).isEqualTo(1000);
        cache.finishBinding(p);
        cache.putPod(bound(p, "n1"));
        assertThat(cache.isAssumed(p)).isFalse();
        assertThat(cpuOn("n1")).as("counted once").isEqualTo(1000);
        clock.advance(Duration.ofMinutes(1));
        assertThat(cache.expire()).isZero();
        assertThat(cpuOn("n1")).isEqualTo(1000);
    }

    @Test
    void theSnapshotKnowsWhichNodesHoldPodsWithRequiredAntiAffinity() {
        Pod loner = new io.fabric8.kubernetes.api.model.PodBuilder(pod("loner", "1", null).build()).editSpec()
                .withNewAffinity().withNewPodAntiAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withNewLabelSelector().addToMatchLabels("app", "batch").endLabelSelector()
                .withTopologyKey("kubernetes.io/hostname").endRequiredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity().endAffinity().endSpec().build();
        cache.putPod(bound(pod("plain", "1", null).build(), "n1"));
        assertThat(Snapshot.withRequiredAntiAffinity(cache.snapshot())).isEmpty();
        cache.putPod(bound(loner, "n2"));
        assertThat(Snapshot.withRequiredAntiAffinity(cache.snapshot())).extracting(NodeInfo::name)
                .containsExactly("n2");
        assertThat(cache.snapshot()).as("a snapshot of the cache's own").isInstanceOf(Snapshot.class);
        cache.putNode(new io.fabric8.kubernetes.api.model.NodeBuilder(node("n2")).editMetadata()
                .addToLabels("changed", "yes").endMetadata().build());
        assertThat(Snapshot.withRequiredAntiAffinity(cache.snapshot())).as("the node changed, its pods did not")
                .extracting(NodeInfo::name).containsExactly("n2");
        cache.removePod(bound(loner, "n2"));
        assertThat(Snapshot.withRequiredAntiAffinity(cache.snapshot())).isEmpty();
        cache.putPod(bound(loner, "n2"));
        cache.removeNode("n2");
        assertThat(Snapshot.withRequiredAntiAffinity(cache.snapshot())).isEmpty();
        cache.putNode(node("n2"));
        assertThat(Snapshot.withRequiredAntiAffinity(cache.snapshot())).as("its pods count again when it returns")
                .extracting(NodeInfo::name).containsExactly("n2");
    }

    @Test
    void aFailedBindingForgetsThePod() {
        Pod p = pod("p", "1", null).build();
        cache.assume(p, "n1");
        cache.forget(p);
        assertThat(cpuOn("n1")).isZero();
    }

    @Test
    void anAssumedPodTheWatchNeverShowsExpires() {
        Pod p = pod("p", "1", null).build();
        cache.assume(p, "n2");
        clock.advance(Duration.ofMinutes(5));
        assertThat(cache.expire()).as("no expiry while the binding is under way").isZero();
        cache.finishBinding(p);
        clock.advance(Duration.ofSeconds(29));
        assertThat(cache.expire()).isZero();
        clock.advance(Duration.ofSeconds(2));
        assertThat(cache.expire()).isEqualTo(1);
        assertThat(cpuOn("n2")).isZero();
    }

    @Test
    void finishedAndDeletedPodsStopCountingAndRemovedNodesGo() {
        Pod p = bound(pod("p", "2", null).build(), "n1");
        cache.putPod(p);
        assertThat(cpuOn("n1")).isEqualTo(2000);
        Pod done = new io.fabric8.kubernetes.api.model.PodBuilder(p).withNewStatus().withPhase("Succeeded").endStatus()
                .build();
        cache.putPod(done);
        assertThat(cpuOn("n1")).isZero();
        cache.putPod(p);
        cache.removePod(p);
        assertThat(cpuOn("n1")).isZero();
        cache.removeNode("n2");
        assertThat(cache.snapshot()).extracting(NodeInfo::name).containsExactly("n1");
    }

    @Test
    void aNominatedPodIsKeptOnItsNodeUntilPlacedOrNominatedElsewhere() {
        Pod p = new io.fabric8.kubernetes.api.model.PodBuilder(pod("p", "1", null).build()).editSpec().withPriority(5)
                .endSpec().build();
        cache.nominate(p, "n1");
        assertThat(nominatedOn("n1")).containsExactly("p");
        assertThat(cpuOn("n1")).as("nominated pods are not bound pods").isZero();
        cache.pendingPod(p);
        assertThat(nominatedOn("n1")).as("a watch event from before the nomination does not undo it")
                .containsExactly("p");
        cache.pendingPod(new io.fabric8.kubernetes.api.model.PodBuilder(p).withNewStatus().withNominatedNodeName("n2")
                .endStatus().build());
        assertThat(nominatedOn("n1")).isEmpty();
        assertThat(nominatedOn("n2")).containsExactly("p");
        assertThat(cache.nominatedTo("n2")).hasSize(1);
        cache.assume(p, "n2");
        assertThat(nominatedOn("n2")).as("placed: no longer waiting").isEmpty();
        assertThat(cpuOn("n2")).isEqualTo(1000);
    }

    private java.util.List<String> nominatedOn(String node) {
        return cache.snapshot().stream().filter(n -> n.name().equals(node)).findFirst().orElseThrow().nominatedPods()
                .stream().map(x -> x.getMetadata().getName()).toList();
    }

    @Test
    void keptIncrementallyItAgreesWithNodesRebuiltFromScratch() {
        java.util.Random random = new java.util.Random(42);
        java.util.Map<String, Pod> live = new java.util.HashMap<>();
        for (int step = 0; step < 2000; step++) {
            String name = "p" + random.nextInt(60);
            String node = random.nextBoolean() ? "n1" : "n2";
            Pod p = new io.fabric8.kubernetes.api.model.PodBuilder(pod(name, (1 + random.nextInt(3)) * 100 + "m",
                    null).build()).editMetadata().addToLabels("v", Integer.toString(random.nextInt(3))).endMetadata()
                    .build();
            switch (random.nextInt(6)) {
                case 0 -> {
                    if (!live.containsKey(name)) { // the scheduler assumes only pending pods
                        cache.assume(p, node);
                    }
                }
                case 1 -> cache.forget(p);
                case 2, 3 -> {
                    Pod b = bound(p, node);
                    cache.putPod(b);
                    live.put(name, b);
                }
                case 4 -> {
                    cache.removePod(p);
                    live.remove(name);
                }
                default -> cache.putNode(node(node));
            }
        }
        for (NodeInfo info : cache.snapshot()) {
            java.util.List<Pod> on = info.pods();
            NodeInfo rebuilt = NodeInfo.of(info.node(), on);
            assertThat(info.requested()).as(info.name()).isEqualTo(rebuilt.requested());
            assertThat(info.nonZeroRequested()).isEqualTo(rebuilt.nonZeroRequested());
            assertThat(on.stream().map(x -> x.getMetadata().getName()).distinct().count()).as("no pod twice")
                    .isEqualTo(on.size());
        }
        java.util.Set<String> counted = new java.util.HashSet<>();
        cache.snapshot().forEach(n -> n.pods().forEach(x -> counted.add(x.getMetadata().getName())));
        assertThat(counted).containsAll(live.keySet());
    }
}

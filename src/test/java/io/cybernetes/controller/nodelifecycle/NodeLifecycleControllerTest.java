package io.cybernetes.controller.nodelifecycle;

import io.cybernetes.client.Indexer;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.TestClock;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

import static org.assertj.core.api.Assertions.assertThat;

class NodeLifecycleControllerTest {

    static final Duration GRACE = Duration.ofSeconds(50);
    static final String UNREACHABLE_NO_SCHEDULE = NodeLifecycleController.UNREACHABLE + ":NoSchedule";
    static final String UNREACHABLE_NO_EXECUTE = NodeLifecycleController.UNREACHABLE + ":NoExecute";

    final TestClock clock = new TestClock();
    final RecordingApiClient client = new RecordingApiClient();
    final Indexer<Node> nodes = new Indexer<>();
    final Indexer<Lease> leases = new Indexer<>();
    final Indexer<Pod> pods = new Indexer<>();
    NodeLifecycleController controller;

    /** Nodes besides n1 that keep heartbeating and are Ready (none of them means n1 alone makes a full disruption). */
    final java.util.Set<String> healthy = new java.util.HashSet<>(java.util.Set.of("n2"));

    @BeforeEach
    void cluster() {
        NodeLifecycleController.addIndexes(pods);
        nodes.put(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().withNewSpec().endSpec().build());
        node("n2");
        renew();
        controller = newController();
    }

    NodeLifecycleController newController() {
        return new NodeLifecycleController(client, nodes, leases, pods, new EventRecorder(client, "nl"), GRACE, clock);
    }

    /** A Ready node that heartbeats whenever the clock moves (while it is among the healthy). */
    void node(String name) {
        nodes.put(new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
                .build());
        renew(name);
    }

    void renew() {
        renew("n1");
    }

    void renew(String node) {
        leases.put(new LeaseBuilder().withNewMetadata().withNamespace("kube-node-lease").withName(node).endMetadata()
                .withNewSpec().withHolderIdentity(node).withRenewTime(ZonedDateTime.ofInstant(clock.now, ZoneOffset.UTC))
                .endSpec().build());
    }

    /** The node as last written, put back into the cache as an informer would; its taints as key:effect. */
    java.util.List<String> lastWrittenTaints() {
        Node written = (Node) client.updates.get(client.updates.size() - 1);
        nodes.put(written);
        return written.getSpec().getTaints().stream().map(t -> t.getKey() + ":" + t.getEffect()).toList();
    }

    /** Time passes; the healthy nodes heartbeat. */
    void advance(Duration d) {
        clock.advance(d);
        healthy.forEach(this::renew);
    }

    static Pod pod(String name, Long tolerationSeconds, boolean tolerates) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata()
                .withNewSpec().withNodeName("n1").endSpec();
        if (tolerates) {
            b.editSpec().addNewToleration().withKey(NodeLifecycleController.UNREACHABLE).withOperator("Exists")
                    .withEffect("NoExecute").withTolerationSeconds(tolerationSeconds).endToleration().endSpec();
        }
        return b.build();
    }

    long writes(String prefix) {
        return client.actions.stream().filter(a -> a.startsWith(prefix)).count();
    }

    @Test
    void aNodeThatKeepsRenewingIsLeftAlone() {
        Result r = controller.reconcile(new Request("", "n1"));
        advance(Duration.ofSeconds(30));
        renew();
        controller.reconcile(new Request("", "n1"));
        advance(Duration.ofSeconds(30));
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions.stream().filter(a -> !a.contains("Event"))).isEmpty();
        assertThat(r.requeueAfter()).isPositive();
    }

    @Test
    void aSilentNodeBecomesUnknownAndTaintedAndItsPodsAreEvictedWhenTheirTimeIsUp() {
        pods.put(pod("intolerant", null, false));
        pods.put(pod("patient", 300L, true));
        pods.put(pod("forever", null, true));
        controller.reconcile(new Request("", "n1"));
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        assertThat(writes("updateStatus Node")).isEqualTo(1);
        assertThat(writes("update Node")).isEqualTo(1);
        Node tainted = (Node) client.updates.get(0);
        assertThat(tainted.getStatus().getConditions()).anyMatch(c -> c.getType().equals("Ready")
                && c.getStatus().equals("Unknown"));
        assertThat(tainted.getSpec().getTaints()).anyMatch(t -> t.getKey().equals(NodeLifecycleController.UNREACHABLE)
                && t.getEffect().equals("NoExecute"));
        nodes.put(tainted);

        Result r = controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).contains("delete Pod intolerant").doesNotContain("delete Pod patient");
        assertThat(r.requeueAfter()).as("looked at again soon: the zones' health may change")
                .isEqualTo(Duration.ofSeconds(5));
        advance(Duration.ofSeconds(301));
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).contains("delete Pod patient").doesNotContain("delete Pod forever");
    }

    @Test
    void aNodeThatComesBackLosesTheTaint() {
        controller.reconcile(new Request("", "n1"));
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        nodes.put((Node) client.updates.get(0));
        advance(Duration.ofSeconds(5));
        renew();
        client.actions.clear();
        controller.reconcile(new Request("", "n1"));
        assertThat(writes("update Node")).isEqualTo(1);
        Node back = (Node) client.updates.get(client.updates.size() - 1);
        assertThat(back.getSpec().getTaints()).isEmpty();
        assertThat(nodes.get("n1").orElseThrow().getSpec().getTaints()).as("the cached object is never changed")
                .hasSize(2);
    }

    @Test
    void tolerationsDecideHowLongAPodStays() {
        String key = NodeLifecycleController.UNREACHABLE;
        assertThat(NodeLifecycleController.toleratedFor(pod("a", null, false), key)).isEqualTo(Duration.ZERO);
        assertThat(NodeLifecycleController.toleratedFor(pod("b", 300L, true), key)).isEqualTo(Duration.ofSeconds(300));
        assertThat(NodeLifecycleController.toleratedFor(pod("c", null, true), key)).isNull();
        assertThat(NodeLifecycleController.toleratedFor(pod("d", null, true), NodeLifecycleController.NOT_READY))
                .as("a toleration of another taint").isEqualTo(Duration.ZERO);
    }

    @Test
    void aNodeReportingNotReadyIsTaintedNotReadyItsPodsEvictedAndUntaintedWhenReady() {
        pods.put(pod("intolerant", null, false));
        nodes.put(new NodeBuilder(nodes.get("n1").orElseThrow()).withNewStatus().addNewCondition().withType("Ready")
                .withStatus("False").withReason("KubeletNotReady").endCondition().endStatus().build());
        controller.reconcile(new Request("", "n1"));
        assertThat(writes("updateStatus Node")).as("its own report stands").isZero();
        Node tainted = (Node) client.updates.get(0);
        assertThat(tainted.getSpec().getTaints()).extracting(t -> t.getKey() + ":" + t.getEffect())
                .containsExactlyInAnyOrder(NodeLifecycleController.NOT_READY + ":NoSchedule",
                        NodeLifecycleController.NOT_READY + ":NoExecute");
        nodes.put(tainted);
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).contains("delete Pod intolerant");

        nodes.put(new NodeBuilder(tainted).editStatus().editFirstCondition().withStatus("True")
                .withReason("KubeletReady").endCondition().endStatus().build());
        client.actions.clear();
        controller.reconcile(new Request("", "n1"));
        Node back = (Node) client.updates.get(client.updates.size() - 1);
        assertThat(back.getSpec().getTaints()).isEmpty();
    }

    @Test
    void whenNoNodeIsReadyNothingIsTaintedForEvictionNorEvictedAndTheNodesGetANewGraceAfterwards() {
        pods.put(pod("intolerant", null, false));
        healthy.clear(); // n2 falls silent with n1: the API was down, say
        controller.reconcile(new Request("", "n1"));
        controller.reconcile(new Request("", "n2"));
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        assertThat(lastWrittenTaints()).as("NoSchedule only: full disruption").containsExactly(UNREACHABLE_NO_SCHEDULE);
        assertThat(nodes.get("n1").orElseThrow().getStatus().getConditions()).anyMatch(c -> c.getType().equals("Ready")
                && c.getStatus().equals("Unknown"));
        advance(Duration.ofSeconds(5));
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).noneMatch(a -> a.startsWith("delete Pod"));

        // n2 heartbeats again: over; n1, still silent, gets a whole grace period from now
        healthy.add("n2");
        advance(Duration.ofSeconds(5));
        client.actions.clear();
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).as("n1 is not late yet").noneMatch(a -> a.startsWith("delete Pod"))
                .noneMatch(a -> a.startsWith("update"));
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        assertThat(lastWrittenTaints()).contains(UNREACHABLE_NO_EXECUTE);
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).contains("delete Pod intolerant");
    }

    @Test
    void aNoExecuteTaintGoesWhenEveryNodeTurnsOutNotReady() {
        controller.reconcile(new Request("", "n1"));
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        assertThat(lastWrittenTaints()).contains(UNREACHABLE_NO_EXECUTE);
        healthy.clear();
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        assertThat(lastWrittenTaints()).containsExactly(UNREACHABLE_NO_SCHEDULE);
    }

    @Test
    void inASmallZoneWhereMostNodesAreSilentNothingIsEvicted() {
        for (String n : java.util.List.of("n3", "n4", "n5")) {
            node(n);
        }
        // n1, n3 and n4 fall silent: 3 of 5, more than 55%, partial disruption of a small zone
        healthy.removeAll(java.util.Set.of("n3", "n4"));
        healthy.add("n5");
        pods.put(pod("intolerant", null, false));
        controller.reconcile(new Request("", "n1"));
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        assertThat(lastWrittenTaints()).containsExactly(UNREACHABLE_NO_SCHEDULE);
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).noneMatch(a -> a.startsWith("delete Pod"));
    }

    @Test
    void inAPartiallyDisruptedZoneATaintAlreadyThereStaysAndItsEvictionsGoOn() {
        for (String n : java.util.List.of("n3", "n4", "n5")) {
            node(n);
            healthy.add(n);
        }
        pods.put(pod("intolerant", null, false));
        controller.reconcile(new Request("", "n1"));
        advance(GRACE.plusSeconds(1));
        controller.reconcile(new Request("", "n1"));
        assertThat(lastWrittenTaints()).contains(UNREACHABLE_NO_EXECUTE);
        // then n3 and n4 fall silent too: 3 of 5, no new taints in the zone, but n1's stays
        healthy.removeAll(java.util.Set.of("n3", "n4"));
        advance(GRACE.plusSeconds(1));
        client.actions.clear();
        controller.reconcile(new Request("", "n1"));
        assertThat(client.actions).contains("delete Pod intolerant").noneMatch(a -> a.startsWith("update Node"));
    }

    @Test
    void aRestartedControllerGivesEveryNodeAWholeGracePeriod() {
        advance(GRACE.multipliedBy(3)); // n1's lease went quiet long ago
        NodeLifecycleController restarted = newController();
        restarted.reconcile(new Request("", "n1"));
        assertThat(client.actions).noneMatch(a -> a.startsWith("update"));
        advance(GRACE.plusSeconds(1));
        restarted.reconcile(new Request("", "n1"));
        assertThat(writes("updateStatus Node")).isEqualTo(1);
    }
}

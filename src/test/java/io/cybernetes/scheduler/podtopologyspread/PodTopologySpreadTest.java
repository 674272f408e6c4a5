package io.cybernetes.scheduler.podtopologyspread;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Profile;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** maxSkew over zones: which nodes a pod may go to, and 30 pods landing 10/10/10 over three zones. */
class PodTopologySpreadTest {

    static Pod spread(String name, int maxSkew, String when) {
        return pod(name, null, null).editMetadata().addToLabels("app", "web").endMetadata().editSpec()
                .addNewTopologySpreadConstraint().withMaxSkew(maxSkew).withTopologyKey("zone")
                .withWhenUnsatisfiable(when).withNewLabelSelector().addToMatchLabels("app", "web").endLabelSelector()
                .endTopologySpreadConstraint().endSpec().build();
    }

    static NodeInfo zoneNode(String name, String zone, int webPods) {
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < webPods; i++) {
            pods.add(pod(name + "-web-" + i, null, null).editMetadata().addToLabels("app", "web").endMetadata().build());
        }
        return NodeInfo.of(node(name, "64", "256Gi", 500).editMetadata().addToLabels("zone", zone).endMetadata()
                .build(), pods);
    }

    @ParameterizedTest(name = "zones a={0} b={1} c={2}, maxSkew {3}: a fits {4}, c fits {5}")
    @CsvSource({"0, 0, 0, 1, true, true", "1, 0, 0, 1, false, true", "1, 1, 0, 1, false, true",
            "2, 1, 1, 1, false, true", "2, 0, 0, 2, false, true", "1, 0, 0, 2, true, true"})
    void doNotScheduleKeepsTheSkew(int a, int b, int c, int maxSkew, boolean aFits, boolean cFits) {
        List<NodeInfo> nodes = List.of(zoneNode("na", "a", a), zoneNode("nb", "b", b), zoneNode("nc", "c", c));
        PodTopologySpread plugin = new PodTopologySpread();
        Pod pod = spread("new", maxSkew, "DoNotSchedule");
        CycleState state = new CycleState();
        plugin.preFilter(state, pod, nodes);
        assertThat(plugin.filter(state, pod, nodes.get(0)).isSuccess()).isEqualTo(aFits);
        assertThat(plugin.filter(state, pod, nodes.get(2)).isSuccess()).isEqualTo(cFits);
    }

    @Test
    void onlyTheNodesThePodsNodeSelectorAllowsCountTowardTheSkew() {
        // zone a is empty but the pod may not go there: b (1 pod) and c (1 pod) are even, so c fits
        NodeInfo a = zoneNode("na", "a", 0);
        NodeInfo b = zoneNode("nb", "b", 1);
        b.node().getMetadata().getLabels().put("disk", "ssd");
        NodeInfo c = zoneNode("nc", "c", 1);
        c.node().getMetadata().getLabels().put("disk", "ssd");
        PodTopologySpread plugin = new PodTopologySpread();
        Pod pod = spread("new", 1, "DoNotSchedule");
        pod.getSpec().setNodeSelector(Map.of("disk", "ssd"));
        CycleState state = new CycleState();
        plugin.preFilter(state, pod, List.of(a, b, c));
        assertThat(plugin.filter(state, pod, c).isSuccess()).isTrue();
        // without the selector zone a counts (0 pods), and c would make the skew 2
        Pod anywhere = spread("anywhere", 1, "DoNotSchedule");
        CycleState other = new CycleState();
        plugin.preFilter(other, anywhere, List.of(a, b, c));
        assertThat(plugin.filter(other, anywhere, c).isSuccess()).isFalse();
    }

    @Test
    void aNodeWithoutTheKeyIsOut() {
        NodeInfo bare = NodeInfo.of(node("bare"), List.of());
        PodTopologySpread plugin = new PodTopologySpread();
        Pod pod = spread("new", 1, "DoNotSchedule");
        CycleState state = new CycleState();
        plugin.preFilter(state, pod, List.of(bare));
        Status s = plugin.filter(state, pod, bare);
        assertThat(s.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        assertThat(s.reasons()).containsExactly(PodTopologySpread.MISSING_LABEL);
    }

    @Test
    void thirtyPodsOverThreeZonesLandTenTenTen() {
        Framework framework = new Framework(new Profile().add(new PodTopologySpread()), 0);
        Map<String, List<Pod>> placed = new HashMap<>(Map.of("na", new ArrayList<>(), "nb", new ArrayList<>(),
                "nc", new ArrayList<>()));
        Map<String, String> zones = Map.of("na", "a", "nb", "b", "nc", "c");
        for (int i = 0; i < 30; i++) {
            List<NodeInfo> nodes = new ArrayList<>();
            for (String n : List.of("na", "nb", "nc")) {
                nodes.add(NodeInfo.of(node(n, "64", "256Gi", 500).editMetadata().addToLabels("zone", zones.get(n))
                        .endMetadata().build(), placed.get(n)));
            }
            Pod p = spread("p" + i, 1, "DoNotSchedule");
            Framework.Decision d = framework.schedule(p, nodes);
            assertThat(d.scheduled()).as(d.message()).isTrue();
            placed.get(d.node()).add(p);
        }
        assertThat(placed.values()).allSatisfy(pods -> assertThat(pods).hasSize(10));
    }

    @Test
    void scheduleAnywayPrefersTheEmptierZones() {
        List<NodeInfo> nodes = List.of(zoneNode("na", "a", 3), zoneNode("nb", "b", 1), zoneNode("nc", "c", 0));
        PodTopologySpread plugin = new PodTopologySpread();
        Pod pod = spread("new", 1, "ScheduleAnyway");
        CycleState state = new CycleState();
        plugin.preFilter(state, pod, nodes);
        assertThat(plugin.filter(state, pod, nodes.get(0)).isSuccess()).as("only a preference").isTrue();
        Map<String, Long> scores = new HashMap<>();
        for (NodeInfo n : nodes) {
            scores.put(n.name(), plugin.score(state, pod, n));
        }
        io.cybernetes.scheduler.Fixtures.normalize(plugin, state, pod, scores);
        assertThat(scores).containsEntry("nc", 100L).containsEntry("na", 0L);
        assertThat(scores.get("nb")).isBetween(1L, 99L);
    }

    @Test
    void podsAddedAndTakenAwayInThoughtMoveTheCountsAndTheSmallestDomain() {
        NodeInfo a = zoneNode("na", "a", 2);
        NodeInfo b = zoneNode("nb", "b", 1);
        List<NodeInfo> nodes = List.of(a, b);
        PodTopologySpread plugin = new PodTopologySpread();
        Pod pod = spread("new", 1, "DoNotSchedule");
        CycleState state = new CycleState();
        plugin.preFilter(state, pod, nodes);
        assertThat(plugin.filter(state, pod, a).isSuccess()).as("a: 2 + 1 - 1 > 1").isFalse();
        CycleState copy = state.copy();
        plugin.removePod(copy, pod, a.pods().get(0), a);
        assertThat(plugin.filter(copy, pod, a).isSuccess()).as("a: 1 + 1 - 1").isTrue();
        assertThat(plugin.filter(state, pod, a).isSuccess()).as("the cycle's own state is untouched").isFalse();
        plugin.addPod(copy, pod, a.pods().get(0), b);
        assertThat(plugin.filter(copy, pod, b).isSuccess()).as("b: 2 + 1 - 1 > 1").isFalse();
        plugin.addPod(copy, pod, b.pods().get(0), a);
        assertThat(plugin.filter(copy, pod, a).isSuccess()).as("a and b hold 2 each: the smallest is 2 now").isTrue();
        Pod other = pod("other-app", null, null).editMetadata().addToLabels("app", "db").endMetadata().build();
        plugin.addPod(copy, pod, other, a);
        plugin.addPod(copy, pod, other, a);
        assertThat(plugin.filter(copy, pod, a).isSuccess()).as("pods the selector does not match do not count").isTrue();
    }
}

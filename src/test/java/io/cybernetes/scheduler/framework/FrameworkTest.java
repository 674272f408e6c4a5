package io.cybernetes.scheduler.framework;

import io.cybernetes.scheduler.noderesources.BalancedAllocation;
import io.cybernetes.scheduler.noderesources.NodeResourcesFit;
import io.cybernetes.scheduler.tainttoleration.TaintToleration;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** One scheduling cycle: filters, scores with weights, the winner, and the message when nobody fits. */
class FrameworkTest {

    static Framework framework() {
        return new Framework(new Profile().add(new NodeResourcesFit(NodeResourcesFit.Strategy.LEAST_ALLOCATED), 1)
                .add(new TaintToleration(), 3).add(new BalancedAllocation(), 1), 0);
    }

    static List<NodeInfo> cluster() {
        List<NodeInfo> nodes = new ArrayList<>();
        for (String n : List.of("small-1", "small-2", "small-3")) {
            nodes.add(NodeInfo.of(node(n, "1", "8Gi", 110).build(), List.of()));
        }
        for (String n : List.of("gpu-1", "gpu-2")) {
            nodes.add(NodeInfo.of(node(n, "16", "64Gi", 110).editSpec().withTaints(new TaintBuilder()
                    .withKey("dedicated").withValue("gpu").withEffect("NoSchedule").build()).endSpec().build(), List.of()));
        }
        return nodes;
    }

    @Test
    void whenNoNodeFitsTheMessageCountsTheReasons() {
        Framework.Decision d = framework().schedule(pod("big", "2", "1Gi").build(), cluster());
        assertThat(d.scheduled()).isFalse();
        assertThat(d.message()).isEqualTo("0/5 nodes are available: 3 Insufficient cpu,"
                + " 2 node(s) had untolerated taint {dedicated: gpu}.");
        assertThat(d.filtered().get("gpu-1").plugin()).isEqualTo(TaintToleration.NAME);
        assertThat(d.filtered().get("small-1").plugin()).isEqualTo(NodeResourcesFit.NAME);
    }

    @Test
    void theEmptiestFeasibleNodeWinsAndTheScoresAreKept() {
        List<NodeInfo> nodes = new ArrayList<>();
        nodes.add(NodeInfo.of(node("busy", "4", "8Gi", 110).build(), List.of(pod("a", "3", "6Gi").build())));
        nodes.add(NodeInfo.of(node("idle", "4", "8Gi", 110).build(), List.of()));
        Framework.Decision d = framework().schedule(pod("p", "500m", "512Mi").build(), nodes);
        assertThat(d.node()).isEqualTo("idle");
        assertThat(d.scores().get("idle")).containsKeys(NodeResourcesFit.NAME, TaintToleration.NAME,
                BalancedAllocation.NAME);
        assertThat(d.scores().get("idle").get(TaintToleration.NAME)).as("weight 3 × 100").isEqualTo(300);
        assertThat(d.scores().get("idle").get(NodeResourcesFit.NAME))
                .isGreaterThan(d.scores().get("busy").get(NodeResourcesFit.NAME));
    }

    @ParameterizedTest(name = "{0} nodes, {1}% → stop after {2} feasible")
    @CsvSource({"50, 0, 50", "100, 0, 100", "1000, 0, 420", "5000, 0, 500", "100000, 0, 5000", "1000, 30, 300",
            "1000, 5, 100"})
    void enoughFeasibleNodes(int nodes, int percentage, int expected) {
        assertThat(new Framework(new Profile(), percentage).feasibleNodesToFind(nodes)).isEqualTo(expected);
    }

    @Test
    void filteringStartsRoundRobinSoNoNodeIsAlwaysFirst() {
        Framework f = new Framework(new Profile().add(new NodeResourcesFit(NodeResourcesFit.Strategy.LEAST_ALLOCATED)),
                0);
        List<NodeInfo> equal = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            equal.add(NodeInfo.of(node("n" + i), List.of()));
        }
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            chosen.add(f.schedule(pod("p" + i), equal).node());
        }
        assertThat(chosen).containsExactly("n0", "n1", "n2");
    }

    @Test
    void manyNodesAreFilteredAndScoredInParallelAndFilteringStopsWhenEnoughFit() {
        Framework f = new Framework(new Profile().add(new NodeResourcesFit(NodeResourcesFit.Strategy.LEAST_ALLOCATED)),
                0, 4);
        List<NodeInfo> roomy = new ArrayList<>();
        List<NodeInfo> small = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            roomy.add(NodeInfo.of(node("roomy-" + i), List.of()));
            small.add(NodeInfo.of(node("small-" + i, "1", "8Gi", 110).build(), List.of()));
        }
        Framework.Decision d = f.schedule(pod("p", "2", null).build(), roomy);
        assertThat(d.scheduled()).isTrue();
        assertThat(d.scores()).as("200 nodes: 49%, at least 100").hasSize(100);
        Framework.Decision none = f.schedule(pod("p", "2", null).build(), small);
        assertThat(none.message()).isEqualTo("0/200 nodes are available: 200 Insufficient cpu.");
    }

    @Test
    void roomKeptForANominatedPodIsNotTakenByALesserOne() {
        io.fabric8.kubernetes.api.model.Pod important = pod("important", "3", null).editSpec().withPriority(100)
                .endSpec().withNewStatus().withNominatedNodeName("n1").endStatus().build();
        NodeInfo n1 = NodeInfo.of(node("n1"), List.of()).withNominated(List.of(important));
        Framework f = framework();
        Framework.Decision lesser = f.schedule(pod("lesser", "2", null).editSpec().withPriority(1).endSpec().build(),
                List.of(n1));
        assertThat(lesser.scheduled()).as("3 of 4 cpu kept for the nominated pod").isFalse();
        assertThat(lesser.message()).isEqualTo("0/1 nodes are available: 1 Insufficient cpu.");
        Framework.Decision higher = f.schedule(pod("higher", "2", null).editSpec().withPriority(500).endSpec()
                .build(), List.of(n1));
        assertThat(higher.node()).as("a pod more important than the nominated one is not held back").isEqualTo("n1");
        assertThat(f.schedule(important, List.of(n1)).node()).as("the nominated pod itself fits").isEqualTo("n1");
    }

    @Test
    void aPodIsPlacedOnItsNominatedNodeWhenItFitsThere() {
        io.fabric8.kubernetes.api.model.Pod p = pod("p", "1", null).build();
        p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withNominatedNodeName("busy").build());
        List<NodeInfo> nodes = List.of(NodeInfo.of(node("idle"), List.of()),
                NodeInfo.of(node("busy"), List.of(pod("other", "2", null).build())));
        Framework.Decision d = framework().schedule(p, nodes);
        assertThat(d.node()).as("busy scores lower, but the pod was nominated there").isEqualTo("busy");
        assertThat(d.scores()).as("no scoring needed").isEmpty();
    }
}

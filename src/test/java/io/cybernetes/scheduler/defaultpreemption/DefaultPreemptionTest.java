package io.cybernetes.scheduler.defaultpreemption;

import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Profile;
import io.cybernetes.scheduler.nodeaffinity.NodeAffinity;
import io.cybernetes.scheduler.noderesources.NodeResourcesFit;
import io.cybernetes.scheduler.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DefaultPreemption through a whole cycle: which node is chosen, which pods are the
 * victims, and why preemption is refused.
 */
class DefaultPreemptionTest {

    static Framework framework() {
        return new Framework(new Profile().add(new PrioritySort(), 0).add(new NodeAffinity(), 0)
                .add(new NodeResourcesFit(NodeResourcesFit.Strategy.LEAST_ALLOCATED), 1)
                .add(new DefaultPreemption(), 0), 0);
    }

    /** A pod requesting cpu at a priority, started at second {@code started} (or not yet, when negative). */
    static Pod running(String name, String cpu, int priority, int started) {
        PodBuilder b = pod(name, cpu, null).editSpec().withPriority(priority).endSpec();
        if (started >= 0) {
            b.withNewStatus().withStartTime(String.format("2026-01-01T00:00:%02dZ", started)).endStatus();
        }
        return b.build();
    }

    static Pod incoming(String cpu, int priority) {
        return pod("incoming", cpu, null).editSpec().withPriority(priority).endSpec().build();
    }

    /** Nodes of 4 cpu each, holding the pods given for them. */
    static List<NodeInfo> nodes(Map<String, List<Pod>> pods) {
        List<NodeInfo> out = new ArrayList<>();
        pods.forEach((name, onIt) -> out.add(NodeInfo.of(node(name, "4", "8Gi", 110).build(), onIt)));
        return out;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("the lowest-priority pod that makes room is the only victim",
                        nodes(Map.of("n1", List.of(running("low", "2", 1, 1), running("mid", "2", 5, 2)))),
                        incoming("2", 10), "n1", List.of("low")),
                Arguments.of("pods put back in order of importance: the higher-priority one stays",
                        nodes(Map.of("n1", List.of(running("a", "1", 1, 1), running("b", "1", 2, 1),
                                running("c", "2", 3, 1)))), incoming("2", 10), "n1", List.of("a", "b")),
                Arguments.of("the node whose most important victim matters least is chosen",
                        List.of(NodeInfo.of(node("n1", "4", "8Gi", 110).build(), List.of(running("x", "4", 5, 1))),
                                NodeInfo.of(node("n2", "4", "8Gi", 110).build(), List.of(running("y", "4", 3, 1)))),
                        incoming("2", 10), "n2", List.of("y")),
                Arguments.of("equal priorities: the node with fewer victims",
                        List.of(NodeInfo.of(node("n1", "4", "8Gi", 110).build(),
                                        List.of(running("x1", "2", 3, 1), running("x2", "2", 3, 1))),
                                NodeInfo.of(node("n2", "4", "8Gi", 110).build(), List.of(running("y", "4", 3, 1)))),
                        incoming("3", 10), "n2", List.of("y")),
                Arguments.of("everything else equal: the node whose victim started last",
                        List.of(NodeInfo.of(node("n1", "4", "8Gi", 110).build(), List.of(running("old", "4", 3, 1))),
                                NodeInfo.of(node("n2", "4", "8Gi", 110).build(), List.of(running("new", "4", 3, 9)))),
                        incoming("3", 10), "n2", List.of("new")),
                Arguments.of("pods of equal or higher priority are never victims",
                        nodes(Map.of("n1", List.of(running("same", "4", 10, 1)))), incoming("1", 10), null, List.of()),
                Arguments.of("evicting every lower-priority pod would still not make room",
                        nodes(Map.of("n1", List.of(running("low", "1", 1, 1), running("high", "3", 20, 1)))),
                        incoming("2", 10), null, List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void preemption(String title, List<NodeInfo> nodes, Pod pod, String node, List<String> victims) {
        Framework.Decision d = framework().schedule(pod, nodes);
        assertThat(d.scheduled()).isFalse();
        Plugin.PostFilterResult r = d.postFilter();
        if (node == null) {
            assertThat(d.preempting()).isFalse();
            assertThat(r.status().reasons()).containsExactly("0/" + nodes.size() + " nodes are available: "
                    + nodes.size() + " " + DefaultPreemption.NO_VICTIMS + ".");
            assertThat(r.nominatedNode()).as("the nomination cleared").isEmpty();
            return;
        }
        assertThat(d.preempting()).isTrue();
        assertThat(r.nominatedNode()).isEqualTo(node);
        assertThat(r.victims()).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrderElementsOf(victims);
    }

    @Test
    void theMessageSaysWhyPreemptionCannotHelp() {
        NodeInfo elsewhere = NodeInfo.of(node("gpu", "4", "8Gi", 110).editMetadata().addToLabels("kind", "gpu")
                .endMetadata().build(), List.of(running("low", "4", 1, 1)));
        NodeInfo here = NodeInfo.of(node("cpu", "4", "8Gi", 110).editMetadata().addToLabels("kind", "cpu")
                .endMetadata().build(), List.of(running("high", "4", 50, 1)));
        Pod pod = pod("incoming", "2", null).editSpec().withPriority(10).withNodeSelector(Map.of("kind", "cpu"))
                .endSpec().build();
        Framework.Decision d = framework().schedule(pod, List.of(elsewhere, here));
        assertThat(d.message()).isEqualTo("0/2 nodes are available: 1 Insufficient cpu,"
                + " 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available:"
                + " 1 " + DefaultPreemption.NO_VICTIMS + ", 1 " + DefaultPreemption.NOT_HELPFUL + ".");
    }

    @Test
    void aPodThatNeverPreemptsPreemptsNothing() {
        Pod pod = new PodBuilder(incoming("2", 10)).editSpec().withPreemptionPolicy("Never").endSpec().build();
        Framework.Decision d = framework().schedule(pod, nodes(Map.of("n1", List.of(running("low", "4", 1, 1)))));
        assertThat(d.preempting()).isFalse();
        assertThat(d.postFilter().status().reasons()).containsExactly("not eligible due to preemptionPolicy=Never.");
        assertThat(d.postFilter().nominatedNode()).as("left as it is").isNull();
    }

    @Test
    void aPodWaitingForItsVictimsToLeaveDoesNotPreemptMore() {
        Pod leaving = new PodBuilder(running("low", "4", 1, 1)).editMetadata()
                .withDeletionTimestamp("2026-01-01T00:01:00Z").endMetadata().build();
        Pod pod = new PodBuilder(incoming("2", 10)).withNewStatus().withNominatedNodeName("n1").endStatus().build();
        Framework.Decision d = framework().schedule(pod, List.of(
                NodeInfo.of(node("n1", "4", "8Gi", 110).build(), List.of(leaving)),
                NodeInfo.of(node("n2", "4", "8Gi", 110).build(), List.of(running("other", "4", 1, 1)))));
        assertThat(d.preempting()).isFalse();
        assertThat(d.postFilter().status().reasons())
                .containsExactly("not eligible due to a terminating pod on the nominated node.");
    }

    @Test
    void victimsAreChosenAmongEnoughCandidates() {
        List<NodeInfo> many = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            // every node is full; the 120th holds the least important pod
            many.add(NodeInfo.of(node("n" + i, "4", "8Gi", 110).build(),
                    List.of(running("p" + i, "4", i == 120 ? 1 : 5, 1))));
        }
        Framework.Decision d = framework().schedule(incoming("1", 10), many);
        assertThat(d.postFilter().nominatedNode()).as("the search stops at 100 candidates, before n120")
                .isEqualTo("n0");
        Framework.Decision among = framework().schedule(incoming("1", 10), List.of(many.get(0), many.get(120)));
        assertThat(among.postFilter().nominatedNode()).isEqualTo("n120");
    }

    @Test
    void theDryRunGoesOnPastEnoughCandidatesUntilOneBreaksNoBudget() {
        List<NodeInfo> many = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            // every node is full; the first 120 with a pod no budget lets go
            Pod p = running("p" + i, "4", 5, 1);
            many.add(NodeInfo.of(node("n" + i, "4", "8Gi", 110).build(), List.of(i < 120 ? labelled(p, "guarded") : p)));
        }
        Framework.Decision d = schedule(incoming("1", 10), many, budget("guarded", 0));
        assertThat(d.postFilter().nominatedNode()).as("100 candidates found, none of them sparing budgets: on to n120")
                .isEqualTo("n120");
        assertThat(d.postFilter().victims()).extracting(p -> p.getMetadata().getName()).containsExactly("p120");
    }

    /** A budget over pods labelled app={@code app} that allows {@code allowed} more disruptions. */
    static PodDisruptionBudget budget(String app, int allowed, String... disrupted) {
        Map<String, String> already = new java.util.HashMap<>();
        for (String d : disrupted) {
            already.put(d, "2026-01-01T00:00:00Z");
        }
        return new PodDisruptionBudgetBuilder().withNewMetadata().withName(app).withNamespace("ns").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", app).endSelector().endSpec()
                .withNewStatus().withDisruptionsAllowed(allowed).withDisruptedPods(already).endStatus().build();
    }

    static Pod labelled(Pod p, String app) {
        return new PodBuilder(p).editMetadata().addToLabels("app", app).endMetadata().build();
    }

    static Framework.Decision schedule(Pod pod, List<NodeInfo> nodes, PodDisruptionBudget... budgets) {
        Framework f = framework();
        f.disruptionBudgets(() -> List.of(budgets));
        return f.schedule(pod, nodes);
    }

    @Test
    void aPodItsBudgetProtectsIsPutBackFirstOnTheNode() {
        List<NodeInfo> nodes = nodes(Map.of("n1", List.of(labelled(running("low", "2", 1, 1), "guarded"),
                running("mid", "2", 5, 1))));
        assertThat(schedule(incoming("2", 10), nodes).postFilter().victims())
                .extracting(p -> p.getMetadata().getName()).containsExactly("low");
        assertThat(schedule(incoming("2", 10), nodes, budget("guarded", 0)).postFilter().victims())
                .as("the budget allows no disruption: the unguarded pod goes instead")
                .extracting(p -> p.getMetadata().getName()).containsExactly("mid");
        assertThat(schedule(incoming("2", 10), nodes, budget("guarded", 1)).postFilter().victims())
                .as("a budget that allows one more does not stand in the way")
                .extracting(p -> p.getMetadata().getName()).containsExactly("low");
    }

    @Test
    void theNodeBreakingFewestBudgetsIsChosenBeforeTheLeastImportantVictims() {
        List<NodeInfo> nodes = List.of(
                NodeInfo.of(node("n1", "4", "8Gi", 110).build(), List.of(labelled(running("low", "4", 1, 1), "guarded"))),
                NodeInfo.of(node("n2", "4", "8Gi", 110).build(), List.of(running("mid", "4", 5, 1))));
        assertThat(schedule(incoming("2", 10), nodes).postFilter().nominatedNode()).isEqualTo("n1");
        Plugin.PostFilterResult r = schedule(incoming("2", 10), nodes, budget("guarded", 0)).postFilter();
        assertThat(r.nominatedNode()).isEqualTo("n2");
        assertThat(r.victims()).extracting(p -> p.getMetadata().getName()).containsExactly("mid");
    }

    @Test
    void aBudgetIsBrokenWhenNothingElseMakesRoom() {
        List<NodeInfo> nodes = nodes(Map.of("n1", List.of(labelled(running("low", "4", 1, 1), "guarded"))));
        Framework.Decision d = schedule(incoming("2", 10), nodes, budget("guarded", 0));
        assertThat(d.preempting()).as("budgets weigh, they do not forbid").isTrue();
        assertThat(d.postFilter().victims()).extracting(p -> p.getMetadata().getName()).containsExactly("low");
    }

    @Test
    void budgetsCountTheMoreImportantPodsFirstAndNotPodsAlreadyDisrupted() {
        List<Pod> pods = List.of(labelled(running("a", "1", 5, 1), "guarded"), labelled(running("b", "1", 3, 1), "guarded"),
                labelled(running("c", "1", 1, 1), "guarded"), labelled(running("gone", "1", 1, 1), "guarded"),
                running("other", "1", 1, 1), labelled(running("elsewhere", "1", 1, 1), "guarded"));
        pods.get(5).getMetadata().setNamespace("other");
        List<Pod> violating = new ArrayList<>();
        List<Pod> rest = new ArrayList<>();
        DefaultPreemption.splitByBudgets(pods, DefaultPreemption.Budget.of(List.of(budget("guarded", 1, "gone"))),
                violating, rest);
        assertThat(violating).extracting(p -> p.getMetadata().getName()).containsExactly("b", "c");
        assertThat(rest).extracting(p -> p.getMetadata().getName()).containsExactly("a", "gone", "other", "elsewhere");
    }

    @Test
    void aBudgetWithAnEmptySelectorCoversNothingForPreemption() {
        PodDisruptionBudget empty = new PodDisruptionBudgetBuilder(budget("guarded", 0)).editSpec()
                .withNewSelector().endSelector().endSpec().build();
        assertThat(DefaultPreemption.Budget.of(List.of(empty))).isEmpty();
    }

    @Test
    void aPodWhosePreemptionIsStillEvictingPreemptsNothingMore() {
        Framework f = framework();
        Pod pod = incoming("2", 10);
        f.preemptionsRunning(p -> p.getMetadata().getName().equals("incoming"));
        Framework.Decision d = f.schedule(pod, nodes(Map.of("n1", List.of(running("low", "4", 1, 1)))));
        assertThat(d.preempting()).isFalse();
        assertThat(d.postFilter().status().reasons()).containsExactly(
                "waiting for the preemption for this pod to be finished");
        f.preemptionsRunning(p -> false);
        assertThat(f.schedule(pod, nodes(Map.of("n1", List.of(running("low", "4", 1, 1))))).preempting()).isTrue();
    }
}

package io.cybernetes.scheduler.interpodaffinity;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Snapshot;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** Affinity and anti-affinity by hostname and zone, the first pod of a group, symmetry, preferences, namespaces. */
class InterPodAffinityTest {

    static PodAffinityTerm term(String app, String topologyKey) {
        return new PodAffinityTermBuilder().withNewLabelSelector().addToMatchLabels("app", app).endLabelSelector()
                .withTopologyKey(topologyKey).build();
    }

    static Pod labelled(String name, String app) {
        return pod(name, null, null).editMetadata().addToLabels("app", app).endMetadata().build();
    }

    static NodeInfo node(String name, String zone, Pod... pods) {
        return NodeInfo.of(io.cybernetes.scheduler.Fixtures.node(name, "4", "8Gi", 110).editMetadata()
                .addToLabels("kubernetes.io/hostname", name).addToLabels("zone", zone).endMetadata().build(),
                List.of(pods));
    }

    private static Map<String, Status> verdicts(Pod pod, List<NodeInfo> nodes) {
        InterPodAffinity plugin = new InterPodAffinity();
        CycleState state = new CycleState();
        plugin.preFilter(state, pod, nodes);
        Map<String, Status> out = new HashMap<>();
        for (NodeInfo n : nodes) {
            out.put(n.name(), plugin.filter(state, pod, n));
        }
        return out;
    }

    @Test
    void requiredAntiAffinityKeepsReplicasOffEachOthersHosts() {
        Pod web = pod("web-2", null, null).editMetadata().addToLabels("app", "web").endMetadata().editSpec()
                .withNewAffinity().withNewPodAntiAffinity().withRequiredDuringSchedulingIgnoredDuringExecution(
                        term("web", "kubernetes.io/hostname")).endPodAntiAffinity().endAffinity().endSpec().build();
        Map<String, Status> v = verdicts(web, List.of(node("n1", "a", labelled("web-1", "web")), node("n2", "a")));
        assertThat(v.get("n1").reasons()).containsExactly(InterPodAffinity.ANTI_AFFINITY);
        assertThat(v.get("n2").isSuccess()).isTrue();
    }

    @Test
    void requiredAffinityFollowsThePodsItSelectsAcrossTheZone() {
        Pod app = pod("app", null, null).editSpec().withNewAffinity().withNewPodAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("db", "zone")).endPodAffinity().endAffinity()
                .endSpec().build();
        Map<String, Status> v = verdicts(app, List.of(node("n1", "a", labelled("db-0", "db")), node("n2", "a"),
                node("n3", "b")));
        assertThat(v.get("n1").isSuccess()).isTrue();
        assertThat(v.get("n2").isSuccess()).as("same zone as the db").isTrue();
        assertThat(v.get("n3").reasons()).containsExactly(InterPodAffinity.AFFINITY);
    }

    @Test
    void theFirstPodOfAGroupMayGoAnywhere() {
        Pod first = pod("db-0", null, null).editMetadata().addToLabels("app", "db").endMetadata().editSpec()
                .withNewAffinity().withNewPodAffinity().withRequiredDuringSchedulingIgnoredDuringExecution(
                        term("db", "zone")).endPodAffinity().endAffinity().endSpec().build();
        assertThat(verdicts(first, List.of(node("n1", "a"), node("n2", "b"))).values()).allMatch(Status::isSuccess);
    }

    @Test
    void existingPodsAntiAffinityIsRespected() {
        Pod loner = pod("loner", null, null).editSpec().withNewAffinity().withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("batch", "kubernetes.io/hostname"))
                .endPodAntiAffinity().endAffinity().endSpec().build();
        Map<String, Status> v = verdicts(labelled("batch-1", "batch"), List.of(node("n1", "a", loner), node("n2", "a")));
        assertThat(v.get("n1").reasons()).containsExactly(InterPodAffinity.EXISTING_ANTI_AFFINITY);
        assertThat(v.get("n2").isSuccess()).isTrue();
    }

    @Test
    void existingPodsAntiAffinityIsFoundThroughTheSnapshotsListOfNodesHoldingIt() {
        Pod loner = pod("loner", null, null).editSpec().withNewAffinity().withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("batch", "zone"))
                .endPodAntiAffinity().endAffinity().endSpec().build();
        List<NodeInfo> nodes = List.of(node("n1", "a"), node("n2", "a", loner), node("n3", "b"));
        Map<String, Status> walked = verdicts(labelled("batch-1", "batch"), nodes);
        Map<String, Status> listed = verdicts(labelled("batch-1", "batch"), new Snapshot(nodes, List.of(nodes.get(1))));
        assertThat(listed).isEqualTo(walked);
        assertThat(listed.get("n1").reasons()).as("the loner's zone").containsExactly(
                InterPodAffinity.EXISTING_ANTI_AFFINITY);
        assertThat(listed.get("n3").isSuccess()).isTrue();
        assertThat(Snapshot.withRequiredAntiAffinity(nodes)).containsExactly(nodes.get(1));
        assertThat(verdicts(labelled("batch-1", "batch"), new Snapshot(nodes, List.of())).get("n1").isSuccess())
                .as("PreFilter takes the snapshot's word for where such pods are").isTrue();
    }

    @Test
    void termsSelectInThePodsOwnNamespaceUnlessTheyNameOthers() {
        Pod elsewhere = pod("web-x", null, null).editMetadata().withNamespace("other").addToLabels("app", "web")
                .endMetadata().build();
        Pod web = pod("web-2", null, null).editSpec().withNewAffinity().withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("web", "kubernetes.io/hostname"))
                .endPodAntiAffinity().endAffinity().endSpec().build();
        assertThat(verdicts(web, List.of(node("n1", "a", elsewhere))).get("n1").isSuccess()).isTrue();
        PodAffinityTerm everywhere = new PodAffinityTermBuilder(term("web", "kubernetes.io/hostname"))
                .withNamespaces("ns", "other").build();
        Pod strict = pod("web-3", null, null).editSpec().withNewAffinity().withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(everywhere).endPodAntiAffinity().endAffinity()
                .endSpec().build();
        assertThat(verdicts(strict, List.of(node("n1", "a", elsewhere))).get("n1").isSuccess()).isFalse();
    }

    @Test
    void preferredTermsScoreTowardsAndAwayFromPods() {
        Pod pod = pod("p", null, null).editSpec().withNewAffinity().withNewPodAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(50)
                .withPodAffinityTerm(term("cache", "zone")).endPreferredDuringSchedulingIgnoredDuringExecution()
                .endPodAffinity().withNewPodAntiAffinity().addNewPreferredDuringSchedulingIgnoredDuringExecution()
                .withWeight(100).withPodAffinityTerm(term("noisy", "kubernetes.io/hostname"))
                .endPreferredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity().endSpec()
                .build();
        List<NodeInfo> nodes = List.of(node("near-cache", "a", labelled("cache-0", "cache")), node("plain", "b"),
                node("noisy", "b", labelled("noisy-0", "noisy")));
        InterPodAffinity plugin = new InterPodAffinity();
        CycleState state = new CycleState();
        plugin.preFilter(state, pod, nodes);
        Map<String, Long> scores = new HashMap<>();
        for (NodeInfo n : nodes) {
            scores.put(n.name(), plugin.score(state, pod, n));
        }
        io.cybernetes.scheduler.Fixtures.normalize(plugin, state, pod, scores);
        assertThat(scores).containsEntry("near-cache", 100L).containsEntry("noisy", 0L);
        assertThat(scores.get("plain")).isBetween(1L, 99L);
    }

    @Test
    void podsAddedAndTakenAwayInThoughtChangeTheVerdictOnACopyOnly() {
        Pod web = pod("web-2", null, null).editMetadata().addToLabels("app", "web").endMetadata().editSpec()
                .withNewAffinity().withNewPodAntiAffinity().withRequiredDuringSchedulingIgnoredDuringExecution(
                        term("web", "kubernetes.io/hostname")).endPodAntiAffinity().endAffinity().endSpec().build();
        Pod web1 = labelled("web-1", "web");
        NodeInfo n1 = node("n1", "a", web1);
        NodeInfo n2 = node("n2", "a");
        InterPodAffinity plugin = new InterPodAffinity();
        CycleState state = new CycleState();
        plugin.preFilter(state, web, List.of(n1, n2));
        CycleState copy = state.copy();
        plugin.removePod(copy, web, web1, n1);
        assertThat(plugin.filter(copy, web, n1).isSuccess()).as("web-1 gone from n1").isTrue();
        assertThat(plugin.filter(state, web, n1).reasons()).as("the cycle's own state is untouched")
                .containsExactly(InterPodAffinity.ANTI_AFFINITY);
        plugin.addPod(copy, web, web1, n2);
        assertThat(plugin.filter(copy, web, n2).reasons()).containsExactly(InterPodAffinity.ANTI_AFFINITY);
        assertThat(plugin.filter(copy, web, n1).isSuccess()).isTrue();
    }

    @Test
    void aPlacedPodsAntiAffinityTakenAwayInThoughtNoLongerKeepsThePodOff() {
        Pod guard = pod("guard", null, null).editSpec().withNewAffinity().withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("web", "zone")).endPodAntiAffinity()
                .endAffinity().endSpec().build();
        NodeInfo n1 = node("n1", "a", guard);
        Pod web = labelled("web", "web");
        InterPodAffinity plugin = new InterPodAffinity();
        CycleState state = new CycleState();
        plugin.preFilter(state, web, List.of(n1));
        assertThat(plugin.filter(state, web, n1).reasons()).containsExactly(InterPodAffinity.EXISTING_ANTI_AFFINITY);
        plugin.removePod(state, web, guard, n1);
        assertThat(plugin.filter(state, web, n1).isSuccess()).isTrue();
    }

    @Test
    void takingAwayTheOnlyPodAnAffinityTermSelectsLeavesNoDomainForIt() {
        Pod app = pod("app", null, null).editSpec().withNewAffinity().withNewPodAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("db", "zone")).endPodAffinity().endAffinity()
                .endSpec().build();
        Pod db = labelled("db", "db");
        NodeInfo n1 = node("n1", "a", db);
        NodeInfo n2 = node("n2", "a");
        InterPodAffinity plugin = new InterPodAffinity();
        CycleState state = new CycleState();
        plugin.preFilter(state, app, List.of(n1, n2));
        assertThat(plugin.filter(state, app, n2).isSuccess()).as("db is in zone a").isTrue();
        plugin.removePod(state, app, db, n1);
        assertThat(plugin.filter(state, app, n2).reasons()).as("and the app does not match its own term")
                .containsExactly(InterPodAffinity.AFFINITY);
        plugin.addPod(state, app, db, n1);
        assertThat(plugin.filter(state, app, n2).isSuccess()).isTrue();
    }

    @Test
    void oneAndTheSamePodMustMatchEveryRequiredAffinityTerm() {
        Pod app = pod("app", null, null).editSpec().withNewAffinity().withNewPodAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(term("db", "zone"), new PodAffinityTermBuilder()
                        .withNewLabelSelector().addToMatchLabels("tier", "backend").endLabelSelector()
                        .withTopologyKey("zone").build()).endPodAffinity().endAffinity().endSpec().build();
        Pod db = labelled("db", "db");
        Pod backend = pod("backend", null, null).editMetadata().addToLabels("tier", "backend").endMetadata().build();
        Map<String, Status> apart = verdicts(app, List.of(node("n1", "a", db, backend), node("n2", "b")));
        assertThat(apart.get("n1").reasons()).as("two pods matching one term each").containsExactly(
                InterPodAffinity.AFFINITY);
        Pod both = pod("both", null, null).editMetadata().addToLabels("app", "db").addToLabels("tier", "backend")
                .endMetadata().build();
        Map<String, Status> together = verdicts(app, List.of(node("n1", "a", both), node("n2", "b")));
        assertThat(together.get("n1").isSuccess()).isTrue();
        assertThat(together.get("n2").reasons()).containsExactly(InterPodAffinity.AFFINITY);
    }
}

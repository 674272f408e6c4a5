package io.cybernetes.controller.replicaset;

import io.cybernetes.client.Indexer;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class ReplicaSetControllerTest {

    static final String RS_UID = "rs-uid";

    static ReplicaSet rs(int replicas) {
        return new ReplicaSetBuilder().withNewMetadata().withNamespace("ns").withName("web").withUid(RS_UID)
                .withGeneration(3L).endMetadata().withNewSpec().withReplicas(replicas).withNewSelector()
                .addToMatchLabels("app", "web").endSelector().withNewTemplate().withNewMetadata()
                .addToLabels("app", "web").endMetadata().withNewSpec().addNewContainer().withName("c")
                .withImage("nginx").endContainer().endSpec().endTemplate().endSpec().build();
    }

    /** A tiny pod builder: owned by the ReplicaSet or orphan, with a phase, readiness and age. */
    static PodBuilder pod(String name, boolean owned) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name)
                .addToLabels("app", "web").withCreationTimestamp("2026-11-29T10:00:00Z").endMetadata()
                .withNewSpec().withNodeName("node-1").endSpec().withNewStatus().withPhase("Running").endStatus();
        if (owned) {
            b.editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("web")
                    .withUid(RS_UID).withController(true).endOwnerReference().endMetadata();
        }
        return b;
    }

    static Pod ready(PodBuilder b) {
        return b.editStatus().addNewCondition().withType("Ready").withStatus("True")
                .withLastTransitionTime(Instant.now().minusSeconds(60).toString()).endCondition().endStatus().build();
    }

    record Case(ReplicaSet rs, List<Pod> pods) {
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("a new ReplicaSet of 3 creates 3 pods from its template", rs(3), List.of(),
                        List.of("create Pod web-1", "create Pod web-2", "create Pod web-3")),
                Arguments.of("a ReplicaSet with its pods does nothing but report", rs(2),
                        List.of(ready(pod("a", true)), ready(pod("b", true))), List.of()),
                Arguments.of("one pod too many: the pending one goes first", rs(1),
                        List.of(ready(pod("running", true)), pod("pending", true).editStatus().withPhase("Pending")
                                .endStatus().build()), List.of("delete Pod pending")),
                Arguments.of("one pod too many: an unscheduled one goes before a scheduled one", rs(1),
                        List.of(pod("scheduled", true).build(), pod("unscheduled", true).editSpec().withNodeName(null)
                                .endSpec().build()), List.of("delete Pod unscheduled")),
                Arguments.of("finished pods do not count", rs(1),
                        List.of(pod("done", true).editStatus().withPhase("Succeeded").endStatus().build()),
                        List.of("create Pod web-1")),
                Arguments.of("an orphan pod the selector matches is adopted instead of creating one", rs(1),
                        List.of(ready(pod("orphan", false))), List.of("patch Pod orphan")),
                Arguments.of("an owned pod whose labels no longer match is released and replaced", rs(1),
                        List.of(pod("relabelled", true).editMetadata().withLabels(java.util.Map.of("app", "other"))
                                .endMetadata().build()), List.of("patch Pod relabelled", "create Pod web-1")),
                Arguments.of("pods of another controller are left alone", rs(1),
                        List.of(pod("theirs", false).editMetadata().addNewOwnerReference().withKind("ReplicaSet")
                                .withName("other").withUid("other-uid").withController(true).endOwnerReference()
                                .endMetadata().build()), List.of("create Pod web-1")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void reconcilesToTheWantedNumberOfPods(String name, ReplicaSet rs, List<Pod> pods, List<String> writes)
            throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        Indexer<ReplicaSet> sets = new Indexer<>();
        Indexer<Pod> podIndex = new Indexer<>();
        sets.put(rs);
        pods.forEach(podIndex::put);
        ReplicaSetController c = new ReplicaSetController(client, sets, podIndex, new EventRecorder(client, "rs"));
        c.reconcile(new Request("ns", "web"));
        assertThat(client.actions.stream().filter(a -> !a.startsWith("updateStatus") && !a.contains(" Event ")).toList())
                .isEqualTo(writes);
        for (var created : client.created) {
            if (created instanceof Pod p) {
                assertThat(p.getMetadata().getOwnerReferences().get(0).getController()).isTrue();
                assertThat(p.getMetadata().getOwnerReferences().get(0).getUid()).isEqualTo(RS_UID);
                assertThat(p.getMetadata().getLabels()).containsEntry("app", "web");
            }
        }
    }

    @Test
    void expectationsStopASecondRoundOfCreatesUntilTheInformerHasSeenTheFirst() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        Indexer<ReplicaSet> sets = new Indexer<>();
        sets.put(rs(2));
        ReplicaSetController c = new ReplicaSetController(client, sets, new Indexer<>(), new EventRecorder(client, "rs"));
        c.reconcile(new Request("ns", "web"));
        c.reconcile(new Request("ns", "web"));
        assertThat(client.actions.stream().filter(a -> a.startsWith("create Pod")).count()).isEqualTo(2);
        c.expectations().creationObserved("ns/web");
        c.expectations().creationObserved("ns/web");
        c.reconcile(new Request("ns", "web"));
        assertThat(client.actions.stream().filter(a -> a.startsWith("create Pod")).count()).as("the cache still shows none,"
                + " so once the expectations are met it creates again: the informer is the truth").isEqualTo(4);
    }

    @Test
    void aFailedCreateStopsTheBatchRecordsAnEventAndRetries() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        client.failCreatesAfter(3);
        Indexer<ReplicaSet> sets = new Indexer<>();
        sets.put(rs(10));
        ReplicaSetController c = new ReplicaSetController(client, sets, new Indexer<>(), new EventRecorder(client, "rs"));
        Result r = c.reconcile(new Request("ns", "web"));
        assertThat(r).isEqualTo(Result.REQUEUE);
        assertThat(client.actions.stream().filter(a -> a.startsWith("create Pod")).count()).isEqualTo(3);
        ReplicaSet failing = (ReplicaSet) client.statusWrites.get(client.statusWrites.size() - 1);
        assertThat(failing.getStatus().getConditions()).singleElement().satisfies(cond -> {
            assertThat(cond.getType()).isEqualTo("ReplicaFailure");
            assertThat(cond.getReason()).isEqualTo("FailedCreate");
            assertThat(cond.getMessage()).contains("exceeded quota");
        });
        assertThat(c.expectations().satisfied("ns/web")).as("what was not created is not expected").isFalse();
        c.expectations().creationObserved("ns/web");
        c.expectations().creationObserved("ns/web");
        c.expectations().creationObserved("ns/web");
        assertThat(c.expectations().satisfied("ns/web")).isTrue();
    }

    @Test
    void statusCountsReadyAndAvailablePodsAndTheObservedGeneration() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        Indexer<ReplicaSet> sets = new Indexer<>();
        sets.put(rs(3));
        Indexer<Pod> pods = new Indexer<>();
        pods.put(ready(pod("a", true)));
        pods.put(ready(pod("b", true)));
        pods.put(pod("c", true).build());
        ReplicaSetController c = new ReplicaSetController(client, sets, pods, new EventRecorder(client, "rs"));
        c.reconcile(new Request("ns", "web"));
        ReplicaSet written = (ReplicaSet) client.statusWrites.get(0);
        assertThat(written.getStatus().getReplicas()).isEqualTo(3);
        assertThat(written.getStatus().getReadyReplicas()).isEqualTo(2);
        assertThat(written.getStatus().getAvailableReplicas()).isEqualTo(2);
        assertThat(written.getStatus().getFullyLabeledReplicas()).isEqualTo(3);
        assertThat(written.getStatus().getObservedGeneration()).isEqualTo(3L);
    }

    @Test
    void aDeletedReplicaSetEndsCleanly() throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        ReplicaSetController c = new ReplicaSetController(client, new Indexer<>(), new Indexer<>(),
                new EventRecorder(client, "rs"));
        assertThat(c.reconcile(new Request("ns", "gone"))).isEqualTo(Result.DONE);
        assertThat(client.actions).isEmpty();
    }
}

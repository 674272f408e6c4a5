package io.cybernetes.controller.deployment;

import io.cybernetes.controller.IntOrPercent;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The Deployment controller's decisions, one situation per test, against a recording client. */
class DeploymentControllerTest {

    static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    static final String UID = "d-uid";

    final RecordingApiClient client = new RecordingApiClient();
    final Indexer<Deployment> deployments = new Indexer<>();
    final Indexer<ReplicaSet> sets = new Indexer<>();
    final Indexer<Pod> pods = new Indexer<>();
    final DeploymentController controller = new DeploymentController(client, deployments, sets, pods,
            new EventRecorder(client, "deployment-controller"), Clock.fixed(NOW, ZoneOffset.UTC));

    static PodTemplateSpec template(String image) {
        return new PodTemplateSpecBuilder().withNewMetadata().addToLabels("app", "web").endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage(image).endContainer().endSpec().build();
    }

    static DeploymentBuilder deployment(int replicas, String image, String strategy) {
        DeploymentBuilder b = new DeploymentBuilder().withNewMetadata().withNamespace("ns").withName("web").withUid(UID)
                .withGeneration(1L).endMetadata().withNewSpec().withReplicas(replicas).withNewSelector()
                .addToMatchLabels("app", "web").endSelector().withTemplate(template(image))
                .withRevisionHistoryLimit(10).withProgressDeadlineSeconds(600).withNewStrategy().withType(strategy)
                .endStrategy().endSpec();
        if (strategy.equals("RollingUpdate")) {
            b.editSpec().editStrategy().withNewRollingUpdate().withMaxSurge(new IntOrString(1))
                    .withMaxUnavailable(new IntOrString(1)).endRollingUpdate().endStrategy().endSpec();
        }
        return b;
    }

    /** A set of the Deployment's for the image: replicas asked, and as many available; created at {@code minute}. */
    static ReplicaSet set(String image, int replicas, int available, String revision, int minute) {
        PodTemplateSpec t = template(image);
        String hash = DeploymentSpecs.templateHash(t, 0);
        t.getMetadata().getLabels().put(DeploymentController.HASH_LABEL, hash);
        Map<String, String> annotations = new HashMap<>(Map.of(DeploymentController.REVISION, revision,
                DeploymentController.DESIRED_REPLICAS, "4", DeploymentController.MAX_REPLICAS, "5"));
        return new ReplicaSetBuilder().withNewMetadata().withNamespace("ns").withName("web-" + hash)
                .withUid("rs-" + image).withGeneration(1L).withCreationTimestamp("2026-11-29T10:" + (10 + minute) + ":00Z")
                .withLabels(new HashMap<>(t.getMetadata().getLabels())).withAnnotations(annotations)
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("Deployment")
                        .withName("web").withUid(UID).withController(true).build())
                .endMetadata().withNewSpec().withReplicas(replicas).withNewSelector().addToMatchLabels("app", "web")
                .addToMatchLabels(DeploymentController.HASH_LABEL, hash).endSelector().withTemplate(t).endSpec()
                .withNewStatus().withReplicas(replicas).withReadyReplicas(available).withAvailableReplicas(available)
                .withObservedGeneration(1L).endStatus().build();
    }

    private Result reconcile() throws Exception {
        return controller.reconcile(new Request("ns", "web"));
    }

    private List<String> writes() {
        return client.actions.stream().filter(a -> !a.startsWith("create Event") && !a.startsWith("updateStatus"))
                .toList();
    }

    private static int replicasOf(HasMetadata o) {
        return ((ReplicaSet) o).getSpec().getReplicas();
    }

    private Deployment lastStatus() {
        return (Deployment) client.statusWrites.get(client.statusWrites.size() - 1);
    }

    private static String condition(Deployment d, String type, String field) {
        for (DeploymentCondition c : d.getStatus().getConditions()) {
            if (c.getType().equals(type)) {
                return field.equals("reason") ? c.getReason() : c.getStatus();
            }
        }
        return null;
    }

    @Test
    void aNewDeploymentGetsOneReplicaSetOfAllItsReplicasNamedByTheTemplateHash() throws Exception {
        deployments.put(deployment(3, "v1", "RollingUpdate").build());
        reconcile();
        String hash = DeploymentSpecs.templateHash(template("v1"), 0);
        assertThat(writes()).containsExactly("create ReplicaSet web-" + hash, "update Deployment ns/web");
        ReplicaSet rs = (ReplicaSet) client.created.get(0);
        assertThat(rs.getSpec().getReplicas()).isEqualTo(3);
        assertThat(rs.getSpec().getSelector().getMatchLabels()).containsEntry(DeploymentController.HASH_LABEL, hash);
        assertThat(rs.getSpec().getTemplate().getMetadata().getLabels()).containsEntry(DeploymentController.HASH_LABEL, hash);
        assertThat(rs.getMetadata().getAnnotations()).containsEntry(DeploymentController.REVISION, "1")
                .containsEntry(DeploymentController.DESIRED_REPLICAS, "3").containsEntry(DeploymentController.MAX_REPLICAS, "4");
        assertThat(rs.getMetadata().getOwnerReferences().get(0).getController()).isTrue();
        assertThat(condition(lastStatus(), "Progressing", "reason")).isEqualTo("NewReplicaSetCreated");
        assertThat(condition(lastStatus(), "Available", "status")).isEqualTo("False");
    }

    @Test
    void aNewTemplateStartsARollingUpdateWithinSurgeAndUnavailability() throws Exception {
        deployments.put(deployment(4, "v2", "RollingUpdate").build());
        sets.put(set("v1", 4, 4, "1", 0));
        reconcile();
        // new set 1 (4 + maxSurge 1 = 5 at most), then the old one down by 1 (4 - maxUnavailable 1 = 3 stay)
        ReplicaSet created = (ReplicaSet) client.created.stream().filter(o -> o instanceof ReplicaSet).findFirst()
                .orElseThrow();
        assertThat(created.getSpec().getReplicas()).isEqualTo(1);
        assertThat(created.getMetadata().getAnnotations()).containsEntry(DeploymentController.REVISION, "2");
        ReplicaSet old = (ReplicaSet) client.updates.stream().filter(o -> o instanceof ReplicaSet).reduce((a, b) -> b)
                .orElseThrow();
        assertThat(old.getMetadata().getName()).isEqualTo(set("v1", 0, 0, "1", 0).getMetadata().getName());
        assertThat(old.getSpec().getReplicas()).isEqualTo(3);
    }

    @ParameterizedTest(name = "old {0}/{1} available, new {2}/{3} available → old {4}, new {5}")
    @CsvSource({
            // nothing new available yet: the old set may only lose its unavailable replica budget
            "3, 3, 2, 0, 3, 2",
            // two new available: old can go down to keep 3 available in all
            "3, 3, 2, 2, 1, 2",
            // new set complete at its size: it grows by the surge left
            "1, 1, 3, 3, 1, 4",
    })
    void rollingUpdateSteps(int oldReplicas, int oldAvailable, int newReplicas, int newAvailable, int oldAfter,
                            int newAfter) throws Exception {
        deployments.put(deployment(4, "v2", "RollingUpdate").build());
        ReplicaSet old = set("v1", oldReplicas, oldAvailable, "1", 0);
        ReplicaSet current = set("v2", newReplicas, newAvailable, "2", 1);
        sets.put(old);
        sets.put(current);
        reconcile();
        int oldNow = oldReplicas;
        int newNow = newReplicas;
        for (HasMetadata u : client.updates) {
            if (u instanceof ReplicaSet rs) {
                if (rs.getMetadata().getName().equals(old.getMetadata().getName())) {
                    oldNow = replicasOf(rs);
                } else {
                    newNow = replicasOf(rs);
                }
            }
        }
        assertThat(oldNow).as("old set").isEqualTo(oldAfter);
        assertThat(newNow).as("new set").isEqualTo(newAfter);
    }

    @Test
    void recreateScalesTheOldSetToZeroFirstAndMakesNoNewOne() throws Exception {
        deployments.put(deployment(3, "v2", "Recreate").build());
        ReplicaSet old = set("v1", 3, 3, "1", 0);
        old.getMetadata().getAnnotations().put(DeploymentController.DESIRED_REPLICAS, "3");
        old.getMetadata().getAnnotations().put(DeploymentController.MAX_REPLICAS, "3");
        sets.put(old);
        reconcile();
        assertThat(client.created).noneMatch(o -> o instanceof ReplicaSet);
        assertThat(client.updates).filteredOn(o -> o instanceof ReplicaSet).extracting(DeploymentControllerTest::replicasOf)
                .containsExactly(0);
    }

    @Test
    void recreateStartsTheNewSetOnceTheOldPodsAreGone() throws Exception {
        deployments.put(deployment(3, "v2", "Recreate").build());
        ReplicaSet old = set("v1", 0, 0, "1", 0);
        old.getStatus().setReplicas(0);
        sets.put(old);
        reconcile();
        ReplicaSet created = (ReplicaSet) client.created.stream().filter(o -> o instanceof ReplicaSet).findFirst()
                .orElseThrow();
        assertThat(created.getSpec().getReplicas()).isEqualTo(3);
    }

    @Test
    void aPausedDeploymentMakesNoNewSetAndSaysItIsPaused() throws Exception {
        deployments.put(deployment(4, "v2", "RollingUpdate").editSpec().withPaused(true).endSpec().build());
        sets.put(set("v1", 4, 4, "1", 0));
        reconcile();
        assertThat(client.created).noneMatch(o -> o instanceof ReplicaSet);
        assertThat(condition((Deployment) client.statusWrites.get(0), "Progressing", "reason"))
                .isEqualTo("DeploymentPaused");
    }

    @Test
    void scalingMidRolloutIsSpreadInProportion() throws Exception {
        deployments.put(deployment(8, "v2", "RollingUpdate").build());
        sets.put(set("v1", 3, 3, "1", 0));
        sets.put(set("v2", 2, 0, "2", 1));
        reconcile();
        // sized for 4 (+1 surge = 5); now 8 (+1 = 9): 4 more, shared 3:2 by size, the rest to the largest
        Map<String, Integer> after = new HashMap<>();
        client.updates.stream().filter(o -> o instanceof ReplicaSet).forEach(o -> after.put(
                ((ReplicaSet) o).getSpec().getTemplate().getSpec().getContainers().get(0).getImage(), replicasOf(o)));
        assertThat(after).containsEntry("v1", 5).containsEntry("v2", 4);
    }

    @Test
    void oldSetsBeyondTheHistoryLimitAreDeletedOnceComplete() throws Exception {
        deployments.put(deployment(2, "v4", "RollingUpdate").editSpec().withRevisionHistoryLimit(1).endSpec()
                .editMetadata().addToAnnotations(DeploymentController.REVISION, "4").endMetadata().build());
        sets.put(set("v1", 0, 0, "1", 0));
        sets.put(set("v2", 0, 0, "2", 1));
        sets.put(set("v3", 0, 0, "3", 2));
        ReplicaSet current = set("v4", 2, 2, "4", 3);
        current.getMetadata().getAnnotations().put(DeploymentController.DESIRED_REPLICAS, "2");
        current.getMetadata().getAnnotations().put(DeploymentController.MAX_REPLICAS, "3");
        sets.put(current);
        reconcile();
        assertThat(writes()).filteredOn(a -> a.startsWith("delete")).containsExactly(
                "delete ReplicaSet " + set("v1", 0, 0, "1", 0).getMetadata().getName(),
                "delete ReplicaSet " + set("v2", 0, 0, "2", 1).getMetadata().getName());
        assertThat(condition(lastStatus(), "Progressing", "reason")).isEqualTo("NewReplicaSetAvailable");
        assertThat(condition(lastStatus(), "Available", "status")).isEqualTo("True");
    }

    /** A rollout with one old replica available and one new that never became so, progressing since {@code since}. */
    private void stuckSince(String since) {
        DeploymentCondition progressing = new DeploymentConditionBuilder().withType("Progressing").withStatus("True")
                .withReason("ReplicaSetUpdated").withLastUpdateTime(since).withLastTransitionTime(since).build();
        deployments.put(deployment(2, "v2", "RollingUpdate").editSpec().withProgressDeadlineSeconds(60).endSpec()
                .withNewStatus().withReplicas(2).withUpdatedReplicas(1).withReadyReplicas(1).withAvailableReplicas(1)
                .withConditions(progressing).endStatus().build());
        for (ReplicaSet rs : List.of(set("v1", 1, 1, "1", 0), set("v2", 1, 0, "2", 1))) {
            rs.getMetadata().getAnnotations().put(DeploymentController.DESIRED_REPLICAS, "2");
            rs.getMetadata().getAnnotations().put(DeploymentController.MAX_REPLICAS, "3");
            sets.put(rs);
        }
    }

    @Test
    void aRolloutPastItsDeadlineIsMarkedExceeded() throws Exception {
        stuckSince("2026-11-29T11:00:00Z"); // an hour ago, with a deadline of 60 s
        Result r = reconcile();
        assertThat(condition(lastStatus(), "Progressing", "reason")).isEqualTo("ProgressDeadlineExceeded");
        assertThat(condition(lastStatus(), "Progressing", "status")).isEqualTo("False");
        assertThat(r).isEqualTo(Result.DONE);
    }

    @Test
    void aRolloutWithinItsDeadlineIsLookedAtAgainWhenItPasses() throws Exception {
        stuckSince("2026-11-29T11:59:30Z");
        Result r = reconcile();
        assertThat(r.requeueAfter()).isEqualTo(java.time.Duration.ofSeconds(31));
    }

    @Test
    void theHashIgnoresNothingButItsOwnLabelAndChangesWithTheCollisionCount() {
        PodTemplateSpec a = template("v1");
        String hash = DeploymentSpecs.templateHash(a, 0);
        assertThat(hash).matches("[bcdfghjklmnpqrstvwxz2456789]{1,10}");
        assertThat(DeploymentSpecs.templateHash(template("v1"), 0)).isEqualTo(hash);
        assertThat(DeploymentSpecs.templateHash(template("v2"), 0)).isNotEqualTo(hash);
        assertThat(DeploymentSpecs.templateHash(a, 1)).isNotEqualTo(hash);
        PodTemplateSpec labelled = template("v1");
        labelled.getMetadata().getLabels().put(DeploymentController.HASH_LABEL, hash);
        assertThat(DeploymentSpecs.sameTemplate(labelled, template("v1"))).isTrue();
        assertThat(DeploymentSpecs.sameTemplate(labelled, template("v2"))).isFalse();
    }

    /** kubectl's rollback writes a template back without the zero values a protobuf body spelled out. */
    @Test
    void zeroValuesGoCannotTellFromAbsentCompareEqual() {
        PodTemplateSpec spelled = template("v1");
        spelled.getMetadata().setGeneration(0L);
        spelled.getSpec().setHostNetwork(false);
        spelled.getSpec().getContainers().get(0).setStdin(false);
        spelled.getSpec().getContainers().get(0).setTty(false);
        assertThat(DeploymentSpecs.sameTemplate(spelled, template("v1"))).isTrue();
        PodTemplateSpec different = template("v1");
        different.getSpec().setAutomountServiceAccountToken(false);
        assertThat(DeploymentSpecs.sameTemplate(different, template("v1")))
                .as("a pointer field's false is not its absence").isFalse();
    }

    @ParameterizedTest(name = "{0} of {1} rounded {2} = {3}")
    @CsvSource({"25%, 4, up, 1", "25%, 4, down, 1", "25%, 3, up, 1", "25%, 3, down, 0", "10%, 10, up, 1",
            "50%, 5, down, 2", "2, 10, up, 2", "0, 3, down, 0", "100%, 7, up, 7"})
    void intOrPercent(String value, int total, String rounding, int expected) {
        IntOrString v = value.endsWith("%") ? new IntOrString(value) : new IntOrString(Integer.parseInt(value));
        assertThat(IntOrPercent.resolve(v, "25%", total, rounding.equals("up"))).isEqualTo(expected);
    }
}

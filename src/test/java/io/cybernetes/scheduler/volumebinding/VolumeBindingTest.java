package io.cybernetes.scheduler.volumebinding;

import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static io.cybernetes.scheduler.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

/** A pod's claims as the scheduler weighs them: missing, being deleted, unbound, or bound to a volume of some nodes. */
class VolumeBindingTest {

    private static final Map<String, PersistentVolumeClaim> CLAIMS = Map.of(
            "bound", claim("bound", "pv-any", false),
            "pinned", claim("pinned", "pv-n2", false),
            "unbound", claim("unbound", null, false),
            "going", claim("going", "pv-any", true));
    private static final Map<String, PersistentVolume> VOLUMES = Map.of(
            "pv-any", new PersistentVolumeBuilder().withNewMetadata().withName("pv-any").endMetadata().withNewSpec()
                    .endSpec().build(),
            "pv-n2", new PersistentVolumeBuilder().withNewMetadata().withName("pv-n2").endMetadata().withNewSpec()
                    .withNewNodeAffinity().withNewRequired().addNewNodeSelectorTerm().addNewMatchExpression()
                    .withKey("kubernetes.io/hostname").withOperator("In").withValues("n2").endMatchExpression()
                    .endNodeSelectorTerm().endRequired().endNodeAffinity().endSpec().build());

    private static PersistentVolumeClaim claim(String name, String volume, boolean deleting) {
        return new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).withNamespace("ns")
                .withDeletionTimestamp(deleting ? "2026-12-01T00:00:00Z" : null).endMetadata().withNewSpec()
                .withVolumeName(volume).endSpec().build();
    }

    private static VolumeBinding plugin() {
        VolumeBinding p = new VolumeBinding();
        p.handle(io.cybernetes.scheduler.Fixtures.volumes(CLAIMS, VOLUMES));
        return p;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "a bound claim fits every node                  | bound   | n1 | ",
        "a volume of one node keeps the pod to that node | pinned  | n1 | node(s) had volume node affinity conflict",
        "and fits that node                              | pinned  | n2 | ",
        "an unbound claim waits                          | unbound | n1 | pod has unbound immediate PersistentVolumeClaims",
        "a missing claim is said by name                 | nope    | n1 | persistentvolumeclaim \"nope\" not found",
        "a claim being deleted holds no pod              | going   | n1 | persistentvolumeclaim \"going\" is being deleted"})
    void aPodIsPlacedByItsClaims(String why, String claim, String nodeName, String reason) {
        Pod pod = io.cybernetes.scheduler.Fixtures.claiming(claim);
        NodeInfo node = NodeInfo.of(node(nodeName, "4", "8Gi", 110).editMetadata()
                .addToLabels("kubernetes.io/hostname", nodeName).endMetadata().build(), List.of());
        Status s = io.cybernetes.scheduler.Fixtures.preFilterAndFilter(plugin(), pod, node);
        if (reason == null) {
            assertThat(s.isSuccess()).as(why).isTrue();
        } else {
            assertThat(s.reasons()).as(why).containsExactly(reason);
        }
    }
}

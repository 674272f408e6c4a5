package io.cybernetes.scheduler.volumezone;

import io.cybernetes.scheduler.Fixtures;
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

/** Volumes with zone labels keep their pods to nodes of those zones, as kube-scheduler's VolumeZone decides. */
class VolumeZoneTest {

    private static final Map<String, PersistentVolumeClaim> CLAIMS = Map.of(
            "in-a", claim("in-a", "pv-a"), "in-ab", claim("in-ab", "pv-ab"), "beta", claim("beta", "pv-beta"),
            "plain", claim("plain", "pv-plain"), "unbound", claim("unbound", null));
    private static final Map<String, PersistentVolume> VOLUMES = Map.of(
            "pv-a", volume("pv-a", "topology.kubernetes.io/zone", "zone-a"),
            "pv-ab", volume("pv-ab", "topology.kubernetes.io/zone", "zone-a__zone-b"),
            "pv-beta", volume("pv-beta", "failure-domain.beta.kubernetes.io/zone", "zone-b"),
            "pv-plain", volume("pv-plain", "team", "x"));

    private static PersistentVolumeClaim claim(String name, String volume) {
        return new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).withNamespace("ns").endMetadata()
                .withNewSpec().withVolumeName(volume).endSpec().build();
    }

    private static PersistentVolume volume(String name, String label, String value) {
        return new PersistentVolumeBuilder().withNewMetadata().withName(name).addToLabels(label, value).endMetadata()
                .withNewSpec().endSpec().build();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "a volume of zone-a fits a node of zone-a               | in-a    | zone-a | ",
        "but not a node of zone-b                               | in-a    | zone-b | node(s) had no available volume zone",
        "a volume of two zones fits either                      | in-ab   | zone-b | ",
        "a beta label is matched against the node's GA label    | beta    | zone-b | ",
        "and refuses another zone                               | beta    | zone-a | node(s) had no available volume zone",
        "a volume without zone labels fits anywhere             | plain   | zone-b | ",
        "an unbound claim is VolumeBinding's to judge           | unbound | zone-b | ",
        "a node without zone labels takes any volume            | in-a    |        | "})
    void volumesKeepTheirPodsInTheirZones(String why, String claim, String zone, String reason) {
        Pod pod = io.cybernetes.scheduler.Fixtures.claiming(claim);
        VolumeZone p = new VolumeZone();
        p.handle(Fixtures.volumes(CLAIMS, VOLUMES));
        var builder = node("n1", "4", "8Gi", 110);
        if (zone != null) {
            builder.editMetadata().addToLabels("topology.kubernetes.io/zone", zone).endMetadata();
        }
        NodeInfo node = NodeInfo.of(builder.build(), List.of());
        Status s = io.cybernetes.scheduler.Fixtures.preFilterAndFilter(p, pod, node);
        if (reason == null) {
            assertThat(s.isSuccess()).as(why).isTrue();
        } else {
            assertThat(s.reasons()).as(why).containsExactly(reason);
        }
    }
}

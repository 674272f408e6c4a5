package io.cybernetes.admission.resourcequota;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.FakeCluster;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResourceQuotaAdmissionTest {

    FakeCluster cluster() {
        return new FakeCluster().add("", "resourcequotas", """
                {"metadata":{"name":"q","namespace":"ns"},"spec":{"hard":{"pods":"2","requests.cpu":"1",
                 "count/configmaps":"1"}},"status":{"used":{"pods":"0","requests.cpu":"0","count/configmaps":"0"}}}""");
    }

    static Attributes pod(String name, String cpu) {
        return FakeCluster.pod(Attributes.Operation.CREATE, "ns", "{\"metadata\":{\"name\":\"" + name + "\"},\"spec\":"
                + "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"" + cpu + "\"}}}]}}");
    }

    static String used(FakeCluster c) {
        return c.current("ns", "q").path("status").path("used").toString();
    }

    @Test
    void admittedPodsAreCountedAndTheHardLimitHolds() {
        FakeCluster c = cluster();
        ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(c, c);
        plugin.validate(pod("a", "500m"));
        assertThat(used(c)).isEqualTo("{\"pods\":\"1\",\"requests.cpu\":\"500m\",\"count/configmaps\":\"0\"}");
        assertThatThrownBy(() -> plugin.validate(pod("b", "600m"))).isInstanceOf(ApiException.class)
                .hasMessage("pods \"b\" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used:"
                        + " requests.cpu=500m, limited: requests.cpu=1");
        plugin.validate(pod("b", "500m"));
        assertThatThrownBy(() -> plugin.validate(pod("c", "0"))).hasMessageContaining("exceeded quota: q, requested: pods=1");
        assertThat(used(c)).isEqualTo("{\"pods\":\"2\",\"requests.cpu\":\"1\",\"count/configmaps\":\"0\"}");
    }

    @Test
    void aFailedWriteAndARemovedObjectGiveTheirUsageBack() {
        FakeCluster c = cluster();
        ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(c, c);
        Attributes a = pod("a", "500m");
        plugin.validate(a);
        plugin.release(a);
        assertThat(used(c)).contains("\"pods\":\"0\"", "\"requests.cpu\":\"0\"");
        plugin.validate(a);
        plugin.removed(a);
        assertThat(used(c)).contains("\"pods\":\"0\"");
    }

    @Test
    void aDryRunChecksButReservesNothing() {
        FakeCluster c = cluster();
        ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(c, c);
        Attributes a = pod("a", "500m");
        plugin.validate(new Attributes(a.operation(), a.group(), a.version(), a.kind(), a.resource(), "", "ns", "a",
                a.object(), null, a.user(), true));
        assertThat(used(c)).contains("\"pods\":\"0\"");
    }

    @Test
    void aPodUnderARequestsQuotaMustSayWhatItRequests() {
        FakeCluster c = cluster();
        Attributes a = FakeCluster.pod(Attributes.Operation.CREATE, "ns", "{\"metadata\":{\"name\":\"p\"},\"spec\":"
                + "{\"containers\":[{\"name\":\"web\"}]}}");
        assertThatThrownBy(() -> new ResourceQuotaAdmission(c, c).validate(a))
                .hasMessage("pods \"p\" is forbidden: failed quota: q: must specify requests.cpu for: web");
    }

    @Test
    void aPodThatFinishesStopsCounting() {
        FakeCluster c = cluster();
        ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(c, c);
        Attributes a = pod("a", "500m");
        plugin.validate(a);
        var done = a.object().deepCopy();
        Json.child(done, "status").put("phase", "Succeeded");
        plugin.validate(new Attributes(Attributes.Operation.UPDATE, "", "v1", "Pod", "pods", "status", "ns", "a", done,
                a.object(), a.user(), false));
        assertThat(used(c)).contains("\"pods\":\"0\"", "\"requests.cpu\":\"0\"");
    }

    private static Attributes claim(Attributes.Operation op, String name, String size, String old) {
        String json = "{\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{\"storageClassName\":\"fast\","
                + "\"resources\":{\"requests\":{\"storage\":\"%s\"}}}}";
        return new Attributes(op, "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "", "ns", name,
                (tools.jackson.databind.node.ObjectNode) Json.MAPPER.readTree(json.formatted(size)),
                old == null ? null : (tools.jackson.databind.node.ObjectNode) Json.MAPPER.readTree(json.formatted(old)),
                new Attributes.User("alice", "", java.util.List.of(), java.util.Map.of()), false);
    }

    @Test
    void claimsCountTheirStorageInAllAndPerClassAndAResizeCountsTheDifference() {
        FakeCluster c = new FakeCluster().add("", "resourcequotas", """
                {"metadata":{"name":"q","namespace":"ns"},"spec":{"hard":{"persistentvolumeclaims":"3",
                 "requests.storage":"10Gi","fast.storageclass.storage.k8s.io/requests.storage":"5Gi",
                 "fast.storageclass.storage.k8s.io/persistentvolumeclaims":"2"}},"status":{"used":{}}}""");
        ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(c, c);
        plugin.validate(claim(Attributes.Operation.CREATE, "a", "2Gi", null));
        assertThat(used(c)).contains("\"persistentvolumeclaims\":\"1\"", "\"requests.storage\":\"2Gi\"",
                "\"fast.storageclass.storage.k8s.io/requests.storage\":\"2Gi\"");
        assertThatThrownBy(() -> plugin.validate(claim(Attributes.Operation.CREATE, "b", "4Gi", null)))
                .hasMessage("persistentvolumeclaims \"b\" is forbidden: exceeded quota: q, requested:"
                        + " fast.storageclass.storage.k8s.io/requests.storage=4Gi, used:"
                        + " fast.storageclass.storage.k8s.io/requests.storage=2Gi, limited:"
                        + " fast.storageclass.storage.k8s.io/requests.storage=5Gi");
        plugin.validate(claim(Attributes.Operation.UPDATE, "a", "3Gi", "2Gi"));
        assertThat(used(c)).contains("\"requests.storage\":\"3Gi\"", "\"persistentvolumeclaims\":\"1\"");
        assertThatThrownBy(() -> plugin.validate(claim(Attributes.Operation.UPDATE, "a", "6Gi", "3Gi")))
                .hasMessageContaining("exceeded quota: q, requested: fast.storageclass.storage.k8s.io/requests.storage=3Gi");
    }
}

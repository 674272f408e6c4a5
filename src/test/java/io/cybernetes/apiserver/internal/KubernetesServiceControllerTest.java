package io.cybernetes.apiserver.internal;

import io.cybernetes.api.Json;
import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.store.Store;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bootstrap controller's part for Services: the {@code kubernetes} Service, its
 * endpoints listing the replicas with live leases (another replica's lease written here as
 * that replica would write it, then left to lapse), and the allocation repair.
 */
class KubernetesServiceControllerTest extends ApiTestSupport {

    @Autowired
    KubernetesServiceController controller;

    @Autowired
    Store store;

    private final String host = KubernetesServiceController.hostAddress().orElse(null);

    @Test
    void theKubernetesServicePointsAtThisServersHttpsPort() {
        eventually(() -> {
            Response r = get("/api/v1/namespaces/default/services/kubernetes");
            assertThat(r.code()).as(r.body()).isEqualTo(200);
            JsonNode spec = r.json().path("spec");
            assertThat(spec.path("clusterIP").asString()).isEqualTo("10.96.0.1");
            assertThat(spec.path("ports").toString()).isEqualTo("[{\"name\":\"https\",\"port\":443,\"protocol\":\"TCP\","
                    + "\"targetPort\":" + endpoints.httpsPort() + "}]");
            assertThat(r.json().path("metadata").path("labels").path("provider").asString()).isEqualTo("kubernetes");
        });
    }

    @Test
    void theEndpointsListTheReplicasWhoseLeasesAreLive() throws Exception {
        assertThat(host).as("this host needs an IPv4 address other than loopback").isNotNull();
        int port = endpoints.httpsPort();
        String other = KubernetesServiceController.LEASES + "192.0.2.77:" + port;
        ObjectNode lease = Json.object();
        lease.put("address", "192.0.2.77").put("port", port).put("renewTime", System.currentTimeMillis())
                .put("ttlMillis", 1500);
        store.create(other, lease);
        controller.reconcile();
        JsonNode ep = get("/api/v1/namespaces/default/endpoints/kubernetes").json();
        assertThat(ep.path("subsets")).hasSize(1);
        assertThat(ep.path("subsets").path(0).path("addresses").findValuesAsString("ip"))
                .containsExactlyInAnyOrder(host, "192.0.2.77");
        assertThat(ep.path("subsets").path(0).path("ports").toString())
                .isEqualTo("[{\"name\":\"https\",\"port\":" + port + ",\"protocol\":\"TCP\"}]");
        JsonNode slice = get("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes").json();
        assertThat(slice.path("endpoints")).hasSize(2);
        assertThat(slice.path("metadata").path("labels").path("kubernetes.io/service-name").asString())
                .isEqualTo("kubernetes");
        // that replica stops renewing: once its lease lapses it leaves, and its lease is gone
        Thread.sleep(1600);
        controller.reconcile();
        ep = get("/api/v1/namespaces/default/endpoints/kubernetes").json();
        assertThat(ep.path("subsets").path(0).path("addresses").findValuesAsString("ip")).containsExactly(host);
        assertThat(store.get(other)).isEmpty();
        assertThat(get("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes").json()
                .path("endpoints")).hasSize(1);
        assertThat(ep.path("metadata").path("labels").path("endpointslice.kubernetes.io/skip-mirror").asString())
                .as("its slice is the server's own: nothing mirrors the Endpoints").isEqualTo("true");
        assertThat(get("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector="
                + "kubernetes.io/service-name%3Dkubernetes").json().path("items")).hasSize(1);
    }

    @Test
    void theRepairRecordsLostAllocationsAndGivesBackLeakedOnesAfterThreePasses() {
        assertThat(createNamespace("repair").code()).isIn(201, 409);
        Response svc = post("/api/v1/namespaces/repair/services", "{\"apiVersion\":\"v1\",\"kind\":\"Service\","
                + "\"metadata\":{\"name\":\"kept\"},\"spec\":{\"type\":\"NodePort\",\"clusterIP\":\"10.96.44.4\","
                + "\"ports\":[{\"port\":80,\"nodePort\":31444}]}}");
        assertThat(svc.code()).as(svc.body()).isEqualTo(201);
        String ipKey = "_ranges/serviceips/10.96.44.4";
        String portKey = "_ranges/nodeports/31444";
        // the records lost: the repair writes them again for the Service that has them
        store.delete(ipKey, store.get(ipKey).orElseThrow().modRevision(), null);
        store.delete(portKey, store.get(portKey).orElseThrow().modRevision(), null);
        controller.repair();
        assertThat(holder(ipKey)).contains("repair/kept/" + svc.text("metadata.uid"));
        assertThat(holder(portKey)).contains("repair/kept/" + svc.text("metadata.uid"));
        // a record held for a Service that is not there: still held after two passes, given back at the third
        ObjectNode leak = Json.object();
        leak.put("holder", "repair/gone/0000");
        store.create("_ranges/serviceips/10.96.44.5", leak);
        controller.repair();
        controller.repair();
        assertThat(holder("_ranges/serviceips/10.96.44.5")).contains("repair/gone/0000");
        controller.repair();
        assertThat(store.get("_ranges/serviceips/10.96.44.5")).isEmpty();
        assertThat(holder(ipKey)).contains("repair/kept/" + svc.text("metadata.uid"));
        // and the address is free to ask for again
        Response again = post("/api/v1/namespaces/repair/services", "{\"apiVersion\":\"v1\",\"kind\":\"Service\","
                + "\"metadata\":{\"name\":\"reuses\"},\"spec\":{\"clusterIP\":\"10.96.44.5\",\"ports\":[{\"port\":80}]}}");
        assertThat(again.code()).as(again.body()).isEqualTo(201);
        assertThat(List.of(delete("/api/v1/namespaces/repair/services/kept").code(),
                delete("/api/v1/namespaces/repair/services/reuses").code())).containsOnly(200);
    }

    private Optional<String> holder(String key) {
        return store.get(key).map(o -> Json.text(o.value(), "holder"));
    }
}

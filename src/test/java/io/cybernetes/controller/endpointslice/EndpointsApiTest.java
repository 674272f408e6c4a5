package io.cybernetes.controller.endpointslice;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoints and EndpointSlice controllers of the application's controller manager, fed
 * by pods whose status is written here as a kubelet would: who is listed, ready, serving and
 * terminating; named ports resolved per pod; a placeholder slice for a Service selecting
 * nothing; selector-less Services left to whoever writes their Endpoints; everything gone
 * with the Service.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EndpointsApiTest extends ApiTestSupport {

    static final String NS = "endpoints-api";
    static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
    static final String SVC = "/api/v1/namespaces/" + NS + "/services";
    static final String EP = "/api/v1/namespaces/" + NS + "/endpoints";
    static final String SLICES = "/apis/discovery.k8s.io/v1/namespaces/" + NS + "/endpointslices";
    static final String NODE = "endpoints-node";

    @BeforeAll
    void setUp() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        Response n = post("/api/v1/nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + NODE
                + "\",\"labels\":{\"topology.kubernetes.io/zone\":\"zone-a\"}}}");
        assertThat(n.code()).as(n.body()).isIn(201, 409);
    }

    /** A pod on the test node whose one container serves {@code port} under the name http. */
    private void pod(String name, String app, int port, String extraMeta) {
        Response r = post(PODS, ("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"NAME\","
                + "\"labels\":{\"app\":\"APP\"}EXTRA},\"spec\":{\"nodeName\":\"" + NODE + "\",\"containers\":[{\"name\":"
                + "\"c\",\"image\":\"nginx\",\"ports\":[{\"name\":\"http\",\"containerPort\":PORT}]}]}}")
                .replace("NAME", name).replace("APP", app).replace("PORT", Integer.toString(port))
                .replace("EXTRA", extraMeta));
        assertThat(r.code()).as(r.body()).isEqualTo(201);
    }

    /** Writes the pod's status as its kubelet would: Running at the address, Ready or not. */
    private void running(String name, String ip, boolean ready) {
        Response r = patch(PODS + "/" + name + "/status", "application/merge-patch+json",
                "{\"status\":{\"phase\":\"Running\",\"podIP\":\"" + ip + "\",\"podIPs\":[{\"ip\":\"" + ip + "\"}],"
                        + "\"conditions\":[{\"type\":\"Ready\",\"status\":\"" + (ready ? "True" : "False") + "\"}]}}");
        assertThat(r.code()).as(r.body()).isEqualTo(200);
    }

    private void service(String name, String spec) {
        Response r = post(SVC, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" + name
                + "\",\"labels\":{\"team\":\"a\"}},\"spec\":" + spec + "}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
    }

    private List<JsonNode> slicesOf(String svc) {
        Response r = get(SLICES + "?labelSelector=kubernetes.io/service-name%3D" + svc);
        assertThat(r.code()).as(r.body()).isEqualTo(200);
        List<JsonNode> out = new ArrayList<>();
        r.json().path("items").forEach(out::add);
        return out;
    }

    private static JsonNode endpointOf(JsonNode slice, String ip) {
        for (JsonNode e : slice.path("endpoints")) {
            if (e.path("addresses").path(0).asString().equals(ip)) {
                return e;
            }
        }
        return null;
    }

    @Test
    void readyNotReadyAndTerminatingPodsAreListedAsKubernetesListsThem() {
        pod("web-1", "web", 8080, "");
        pod("web-2", "web", 8080, "");
        pod("web-3", "web", 8080, ",\"finalizers\":[\"example.com/hold\"]");
        pod("other", "other", 8080, "");
        running("web-1", "10.244.0.11", true);
        running("web-2", "10.244.0.12", false);
        running("web-3", "10.244.0.13", true);
        running("other", "10.244.0.14", true);
        service("web", "{\"selector\":{\"app\":\"web\"},\"ports\":[{\"name\":\"http\",\"port\":80,"
                + "\"targetPort\":\"http\"}]}");
        eventually(() -> {
            List<JsonNode> slices = slicesOf("web");
            assertThat(slices).hasSize(1);
            JsonNode s = slices.get(0);
            assertThat(s.path("addressType").asString()).isEqualTo("IPv4");
            assertThat(s.path("metadata").path("name").asString()).startsWith("web-");
            assertThat(s.path("metadata").path("labels").path("endpointslice.kubernetes.io/managed-by").asString())
                    .isEqualTo("endpointslice-controller.k8s.io");
            assertThat(s.path("metadata").path("labels").path("team").asString()).isEqualTo("a");
            assertThat(s.path("metadata").path("ownerReferences").path(0).path("kind").asString()).isEqualTo("Service");
            assertThat(s.path("ports").toString()).isEqualTo("[{\"name\":\"http\",\"port\":8080,\"protocol\":\"TCP\"}]");
            assertThat(s.path("endpoints")).hasSize(3);
            JsonNode one = endpointOf(s, "10.244.0.11");
            assertThat(one.path("conditions").toString())
                    .isEqualTo("{\"ready\":true,\"serving\":true,\"terminating\":false}");
            assertThat(one.path("nodeName").asString()).isEqualTo(NODE);
            assertThat(one.path("zone").asString()).isEqualTo("zone-a");
            assertThat(one.path("targetRef").path("name").asString()).isEqualTo("web-1");
            assertThat(endpointOf(s, "10.244.0.12").path("conditions").path("ready").asBoolean()).isFalse();
        });
        eventually(() -> {
            JsonNode ep = get(EP + "/web").json();
            assertThat(ep.path("metadata").path("labels").path("endpointslice.kubernetes.io/skip-mirror").asString())
                    .isEqualTo("true");
            JsonNode subset = ep.path("subsets").path(0);
            assertThat(ep.path("subsets")).hasSize(1);
            assertThat(subset.path("addresses").findValuesAsString("ip")).containsExactly("10.244.0.11", "10.244.0.13");
            assertThat(subset.path("notReadyAddresses").findValuesAsString("ip")).containsExactly("10.244.0.12");
            assertThat(subset.path("ports").toString()).isEqualTo("[{\"name\":\"http\",\"port\":8080,\"protocol\":\"TCP\"}]");
        });
        // the reconcile status shows the Service's endpoints and which controllers last kept it
        eventually(() -> {
            JsonNode view = get("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/servicereconciles/web").json();
            assertThat(view.path("kind").asString()).isEqualTo("ServiceReconcile");
            assertThat(view.path("status").path("desired").path("type").asString()).isEqualTo("ClusterIP");
            assertThat(view.path("status").path("observed").toString()).isEqualTo("{\"endpointSlices\":1,"
                    + "\"readyEndpoints\":2,\"notReadyEndpoints\":1,\"loadBalancerIngress\":[]}");
            assertThat(view.path("status").path("reconciles").findValuesAsString("controller"))
                    .contains("endpointslice", "endpoints");
            assertThat(view.path("status").path("lastReconcile").path("result").asString()).isEqualTo("Success");
        });
        // deleting a pod held by a finalizer: it stays in the slice as terminating, and leaves the Endpoints
        assertThat(delete(PODS + "/web-3").code()).isIn(200, 202);
        eventually(() -> {
            JsonNode three = endpointOf(slicesOf("web").get(0), "10.244.0.13");
            assertThat(three.path("conditions").toString())
                    .isEqualTo("{\"ready\":false,\"serving\":true,\"terminating\":true}");
            assertThat(get(EP + "/web").json().path("subsets").path(0).path("addresses").findValuesAsString("ip"))
                    .containsExactly("10.244.0.11");
        });
        // ready again, and a pod that stops matching the selector leaves
        running("web-2", "10.244.0.12", true);
        assertThat(patch(PODS + "/web-1", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"app\":\"gone\"}}}")
                .code()).isEqualTo(200);
        eventually(() -> {
            JsonNode s = slicesOf("web").get(0);
            assertThat(endpointOf(s, "10.244.0.11")).isNull();
            assertThat(endpointOf(s, "10.244.0.12").path("conditions").path("ready").asBoolean()).isTrue();
            assertThat(get(EP + "/web").json().path("subsets").path(0).path("addresses").findValuesAsString("ip"))
                    .containsExactly("10.244.0.12");
        });
        assertThat(patch(PODS + "/web-3", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}")
                .code()).isEqualTo(200);
        // the Service deleted: its Endpoints go, and its slices with it as their owner
        assertThat(delete(SVC + "/web").code()).isEqualTo(200);
        eventually(() -> {
            assertThat(get(EP + "/web").code()).isEqualTo(404);
            assertThat(slicesOf("web")).isEmpty();
        });
    }

    @Test
    void podsServingANamedPortOnDifferentNumbersGetASliceAndASubsetEach() {
        pod("api-1", "api", 8080, "");
        pod("api-2", "api", 9090, "");
        running("api-1", "10.244.1.1", true);
        running("api-2", "10.244.1.2", true);
        service("api", "{\"selector\":{\"app\":\"api\"},\"ports\":[{\"name\":\"http\",\"port\":80,"
                + "\"targetPort\":\"http\"},{\"name\":\"metrics\",\"port\":9100}]}");
        eventually(() -> {
            List<JsonNode> slices = slicesOf("api");
            assertThat(slices).hasSize(2);
            List<String> ports = slices.stream().map(s -> s.path("ports").findValuesAsString("port").toString()).toList();
            assertThat(ports).containsExactlyInAnyOrder("[8080, 9100]", "[9090, 9100]");
            JsonNode ep = get(EP + "/api").json();
            assertThat(ep.path("subsets")).hasSize(2);
        });
    }

    @Test
    void aServiceSelectingNothingHasOnePlaceholderSliceAndEmptyEndpoints() {
        service("lonely", "{\"selector\":{\"app\":\"nobody\"},\"ports\":[{\"port\":80}]}");
        eventually(() -> {
            List<JsonNode> slices = slicesOf("lonely");
            assertThat(slices).hasSize(1);
            assertThat(slices.get(0).path("endpoints").size()).isZero();
            assertThat(slices.get(0).path("ports").size()).isZero();
            Response ep = get(EP + "/lonely");
            assertThat(ep.code()).isEqualTo(200);
            assertThat(ep.json().path("subsets").size()).isZero();
        });
        pod("found-1", "nobody", 80, "");
        running("found-1", "10.244.2.1", true);
        eventually(() -> {
            List<JsonNode> slices = slicesOf("lonely");
            assertThat(slices).hasSize(1);
            assertThat(endpointOf(slices.get(0), "10.244.2.1")).isNotNull();
        });
    }

    @Test
    void aSelectorLessServiceKeepsTheEndpointsItsOwnerWritesMirroredIntoSlices() {
        service("external-db", "{\"ports\":[{\"port\":5432}]}");
        Response manual = post(EP, "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"external-db\","
                + "\"labels\":{\"team\":\"db\"},\"annotations\":{\"note\":\"kept\"}},\"subsets\":[{\"addresses\":"
                + "[{\"ip\":\"192.0.2.10\",\"hostname\":\"primary\"}],\"notReadyAddresses\":[{\"ip\":\"192.0.2.11\"}],"
                + "\"ports\":[{\"name\":\"pg\",\"port\":5432}]},{\"addresses\":[{\"ip\":\"2001:db8:0:0:0:0:0:7\"}],"
                + "\"ports\":[{\"name\":\"pg\",\"port\":5432}]}]}");
        assertThat(manual.code()).as(manual.body()).isEqualTo(201);
        String uid = manual.text("metadata.uid");
        // a loopback address is refused as Kubernetes refuses it, and nothing is stored
        Response loopback = put(EP + "/external-db", "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":"
                + "{\"name\":\"external-db\"},\"subsets\":[{\"addresses\":[{\"ip\":\"127.0.0.1\"}],\"ports\":[{\"port\":"
                + "5432}]}]}");
        assertThat(loopback.code()).isEqualTo(422);
        // the mirroring controller copies them: one slice per address type, owned by the Endpoints
        eventually(() -> {
            List<JsonNode> slices = slicesOf("external-db");
            assertThat(slices).extracting(x -> x.path("addressType").asString()).containsExactlyInAnyOrder("IPv4", "IPv6");
            for (JsonNode slice : slices) {
                JsonNode meta = slice.path("metadata");
                assertThat(meta.path("name").asString()).startsWith("external-db-");
                assertThat(meta.path("labels").path("endpointslice.kubernetes.io/managed-by").asString())
                        .isEqualTo("endpointslicemirroring-controller.k8s.io");
                assertThat(meta.path("labels").path("team").asString()).isEqualTo("db");
                assertThat(meta.path("annotations").path("note").asString()).isEqualTo("kept");
                assertThat(meta.path("ownerReferences").path(0).path("kind").asString()).isEqualTo("Endpoints");
                assertThat(meta.path("ownerReferences").path(0).path("uid").asString()).isEqualTo(uid);
                assertThat(slice.path("ports").toString())
                        .isEqualTo("[{\"name\":\"pg\",\"port\":5432,\"protocol\":\"TCP\"}]");
                if (slice.path("addressType").asString().equals("IPv4")) {
                    assertThat(endpointOf(slice, "192.0.2.10").path("conditions").toString()).isEqualTo("{\"ready\":true}");
                    assertThat(endpointOf(slice, "192.0.2.10").path("hostname").asString()).isEqualTo("primary");
                    assertThat(endpointOf(slice, "192.0.2.11").path("conditions").toString()).isEqualTo("{\"ready\":false}");
                } else {
                    assertThat(slice.path("endpoints").path(0).path("addresses").toString()).isEqualTo("[\"2001:db8::7\"]");
                }
            }
        });
        JsonNode ep = get(EP + "/external-db").json();
        assertThat(ep.path("subsets").path(0).path("addresses").findValuesAsString("ip")).containsExactly("192.0.2.10");
        assertThat(ep.path("metadata").path("labels").has("endpointslice.kubernetes.io/skip-mirror")).isFalse();

        // the IPv6 address gone: its slice goes; the Service given a selector: the mirrored slices go
        assertThat(patch(EP + "/external-db", "application/merge-patch+json", "{\"subsets\":[{\"addresses\":"
                + "[{\"ip\":\"192.0.2.12\"}],\"ports\":[{\"name\":\"pg\",\"port\":5432}]}]}").code()).isEqualTo(200);
        eventually(() -> {
            List<JsonNode> slices = slicesOf("external-db");
            assertThat(slices).hasSize(1);
            assertThat(slices.get(0).path("endpoints")).hasSize(1);
            assertThat(slices.get(0).path("endpoints").path(0).path("addresses").toString()).isEqualTo("[\"192.0.2.12\"]");
        });
        assertThat(patch(SVC + "/external-db", "application/merge-patch+json",
                "{\"spec\":{\"selector\":{\"app\":\"db\"}}}").code()).isEqualTo(200);
        eventually(() -> assertThat(slicesOf("external-db")).extracting(x -> x.path("metadata").path("labels")
                .path("endpointslice.kubernetes.io/managed-by").asString())
                .containsOnly("endpointslice-controller.k8s.io"));
    }
}

package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node ({@code system:node:node1}) reaches only what its pods need: its own Node and
 * Lease, the status of pods bound to it, and the secrets and config maps those pods use.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeAuthorizerTest extends ApiTestSupport {

    static final String NS = "node-graph";

    @BeforeAll
    void cluster() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        for (String node : new String[] {"node1", "node2"}) {
            assertThat(post("/api/v1/nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + node
                    + "\"}}").code()).isIn(201, 409);
            assertThat(post("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "{\"apiVersion\":"
                    + "\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"" + node + "\"}}").code())
                    .isIn(201, 409);
        }
        for (String s : new String[] {"used-secret", "other-secret"}) {
            assertThat(post("/api/v1/namespaces/" + NS + "/secrets", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\","
                    + "\"metadata\":{\"name\":\"" + s + "\"}}").code()).isIn(201, 409);
        }
        assertThat(post("/api/v1/namespaces/" + NS + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"used-config\"}}").code()).isIn(201, 409);
        pod("on-node1", "node1", "{\"name\":\"s\",\"secret\":{\"secretName\":\"used-secret\"}},"
                + "{\"name\":\"c\",\"configMap\":{\"name\":\"used-config\"}}");
        pod("on-node2", "node2", "{\"name\":\"s\",\"secret\":{\"secretName\":\"other-secret\"}}");
        eventually(() -> assertThat(asNode1("GET", "/api/v1/namespaces/" + NS + "/secrets/used-secret").code())
                .isEqualTo(200));
        eventually(() -> assertThat(get("/api/v1/namespaces/" + NS + "/serviceaccounts/default").code()).isEqualTo(200));
    }

    private void pod(String name, String node, String volumes) {
        Response r = post("/api/v1/namespaces/" + NS + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"" + name + "\"},\"spec\":{\"nodeName\":\"" + node + "\",\"volumes\":[" + volumes + "],"
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertThat(r.code()).as(r.body()).isIn(201, 409);
    }

    private Response asNode1(String method, String path) {
        if (method.equals("POST")) {
            return callAs("node1-token", method, path, "application/json", "{\"apiVersion\":\"authentication.k8s.io/v1\","
                    + "\"kind\":\"TokenRequest\",\"spec\":{}}", "application/json");
        }
        String body = method.equals("PATCH") ? "{\"metadata\":{\"labels\":{\"touched\":\"yes\"}}}" : null;
        return callAs("node1-token", method, path, body == null ? null : "application/merge-patch+json", body,
                "application/json");
    }

    static Stream<Arguments> requests() {
        String pods = "/api/v1/namespaces/" + NS + "/pods/";
        String secrets = "/api/v1/namespaces/" + NS + "/secrets/";
        String leases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/";
        return Stream.of(
                Arguments.of("a node reads a secret its pod mounts", "GET", secrets + "used-secret", true),
                Arguments.of("a node reads a config map its pod mounts", "GET",
                        "/api/v1/namespaces/" + NS + "/configmaps/used-config", true),
                Arguments.of("a node may not read a secret only another node's pod uses", "GET",
                        secrets + "other-secret", false),
                Arguments.of("a node may not list secrets", "GET", "/api/v1/namespaces/" + NS + "/secrets", false),
                Arguments.of("a node watches a secret its pod mounts by name", "GET", "/api/v1/namespaces/" + NS
                        + "/secrets?fieldSelector=metadata.name%3Dused-secret&watch=true&timeoutSeconds=1", true),
                Arguments.of("a node may not watch another node's pod's secret", "GET", "/api/v1/namespaces/" + NS
                        + "/secrets?fieldSelector=metadata.name%3Dother-secret&watch=true&timeoutSeconds=1", false),
                Arguments.of("a node updates the status of its own pod", "PATCH", pods + "on-node1/status", true),
                Arguments.of("a node may not update the status of another node's pod", "PATCH", pods + "on-node2/status",
                        false),
                Arguments.of("a node may not change a pod's spec", "PATCH", pods + "on-node1", false),
                Arguments.of("a node lists the pods bound to it, as kubelets ask", "GET",
                        "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode1", true),
                Arguments.of("a node watches them", "GET",
                        "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode1&watch=true&timeoutSeconds=1", true),
                Arguments.of("a node may not list all pods", "GET", "/api/v1/pods", false),
                Arguments.of("a node may not list another node's pods", "GET",
                        "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode2", false),
                Arguments.of("a node gets its own pod", "GET", pods + "on-node1", true),
                Arguments.of("a node may not get another node's pod", "GET", pods + "on-node2", false),
                Arguments.of("a node reads its own Node", "GET", "/api/v1/nodes/node1", true),
                Arguments.of("a node watches its own Node by name", "GET",
                        "/api/v1/nodes?fieldSelector=metadata.name%3Dnode1&watch=true&timeoutSeconds=1", true),
                Arguments.of("a node may not read another Node", "GET", "/api/v1/nodes/node2", false),
                Arguments.of("a node may not list the Nodes", "GET", "/api/v1/nodes", false),
                Arguments.of("a node updates its own Node", "PATCH", "/api/v1/nodes/node1", true),
                Arguments.of("a node updates its own Node's status", "PATCH", "/api/v1/nodes/node1/status", true),
                Arguments.of("a node may not update another Node", "PATCH", "/api/v1/nodes/node2", false),
                Arguments.of("a node may not delete a Node", "DELETE", "/api/v1/nodes/node2", false),
                Arguments.of("a node renews its own Lease", "PATCH", leases + "node1", true),
                Arguments.of("a node may not renew another node's Lease", "PATCH", leases + "node2", false),
                Arguments.of("a node may not read deployments", "GET", "/apis/apps/v1/deployments", false),
                Arguments.of("a node gets a token for the ServiceAccount its pod runs as", "POST",
                        "/api/v1/namespaces/" + NS + "/serviceaccounts/default/token", true),
                Arguments.of("a node may not get a token for another ServiceAccount", "POST",
                        "/api/v1/namespaces/" + NS + "/serviceaccounts/other/token", false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void nodesReachOnlyWhatTheirPodsNeed(String name, String method, String path, boolean allowed) {
        Response r = asNode1(method, path);
        if (allowed) {
            assertThat(r.code()).as(r.body()).isBetween(200, 299);
        } else {
            assertThat(r.code()).as(r.body()).isEqualTo(403);
            assertThat(r.text("message")).contains("User \"system:node:node1\" cannot");
        }
    }
}

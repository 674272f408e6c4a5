package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The resource metrics API as the metrics-server serves it, read from the simulated
 * kubelets: {@code kubectl top} for nodes and pods, the usage the pod annotation sets,
 * discovery, and the 404s of a pod that has no usage or does not exist.
 */
class ResourceMetricsKubectlTest extends SimulatedClusterSupport {

    static final String NS = "top";
    static final String METRICS = "/apis/metrics.k8s.io/v1beta1";

    @TempDir
    Path dir;

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    private Response pod(String name, String usage, String nodeSelector) {
        String annotations = usage == null ? "" : ",\"annotations\":{\"cybernetes.io/usage\":\"" + usage + "\"}";
        String selector = nodeSelector == null ? "" : "\"nodeSelector\":{\"" + nodeSelector + "\":\"x\"},";
        return post("/api/v1/namespaces/" + NS + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"" + name + "\",\"labels\":{\"app\":\"" + name + "\"}" + annotations + "},\"spec\":{"
                + selector + "\"containers\":[{\"name\":\"web\",\"image\":\"nginx\",\"resources\":{\"requests\":"
                + "{\"cpu\":\"200m\",\"memory\":\"100Mi\"}}}]}}");
    }

    @Test
    void kubectlTopShowsTheUsageTheKubeletsReport() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        assertThat(pod("busy", "cpu=150m memory=80Mi", null).code()).isEqualTo(201);
        assertThat(pod("idle", null, null).code()).isEqualTo(201);
        assertThat(pod("nowhere", null, "no-such-label").code()).isEqualTo(201);

        Kubectl.Run resources = kubectl().run("api-resources", "--api-group=metrics.k8s.io");
        assertThat(resources.out()).containsPattern("nodes\\s+metrics.k8s.io/v1beta1\\s+false\\s+NodeMetrics")
                .containsPattern("pods\\s+metrics.k8s.io/v1beta1\\s+true\\s+PodMetrics");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Kubectl.Run top = kubectl().run("top", "pod", "-n", NS);
            assertThat(top.exit()).as(top.err()).isZero();
            assertThat(top.out()).containsPattern("NAME\\s+CPU\\(cores\\)\\s+MEMORY\\(bytes\\)")
                    .containsPattern("busy\\s+150m\\s+80Mi").contains("idle").doesNotContain("nowhere");
        });
        JsonNode busy = get(METRICS + "/namespaces/" + NS + "/pods/busy").json();
        assertThat(busy.path("kind").asString()).isEqualTo("PodMetrics");
        assertThat(busy.path("metadata").path("labels").path("app").asString()).isEqualTo("busy");
        assertThat(busy.path("containers").get(0).path("name").asString()).isEqualTo("web");
        assertThat(busy.path("containers").get(0).path("usage").path("cpu").asString()).isEqualTo("150m");
        assertThat(busy.path("containers").get(0).path("usage").path("memory").asString()).isEqualTo("80Mi");
        assertThat(busy.path("window").asString()).endsWith("s");
        assertThat(busy.path("timestamp").asString()).isNotEmpty();
        // the idle one uses about 30% of its 200m request, give or take the noise
        JsonNode idle = get(METRICS + "/namespaces/" + NS + "/pods/idle").json();
        double cpu = io.cybernetes.api.Quantities.parse(idle.path("containers").get(0).path("usage").path("cpu")
                .asString()).doubleValue();
        assertThat(cpu).isBetween(0.050, 0.070);

        Kubectl.Run selected = kubectl().run("top", "pod", "-n", NS, "-l", "app=busy", "--containers");
        assertThat(selected.out()).containsPattern("busy\\s+web\\s+150m\\s+80Mi").doesNotContain("idle");

        Response missing = get(METRICS + "/namespaces/" + NS + "/pods/nowhere");
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.text("message")).isEqualTo("podmetrics.metrics.k8s.io \"top/nowhere\" not found");
        Kubectl.Run none = kubectl().run("top", "pod", "nope", "-n", NS);
        assertThat(none.err()).contains("pod \"nope\" not found");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Kubectl.Run nodes = kubectl().run("top", "node");
            assertThat(nodes.exit()).as(nodes.err()).isZero();
            assertThat(nodes.out()).containsPattern("NAME\\s+CPU\\(cores\\)\\s+CPU(%)?.*MEMORY")
                    .containsPattern("node-1\\s+\\d+m\\s+\\d+%");
        });
        Response node = get(METRICS + "/nodes/node-1");
        assertThat(node.text("kind")).isEqualTo("NodeMetrics");
        assertThat(get(METRICS + "/nodes/no-such-node").code()).isEqualTo(404);
        String busyNode = get("/api/v1/namespaces/" + NS + "/pods/busy").json().path("spec").path("nodeName").asString();
        assertThat(kubectl().run("get", "--raw", "/api/v1/nodes/" + busyNode + "/proxy/metrics/resource").out())
                .contains("# TYPE container_cpu_usage_seconds_total counter")
                .containsPattern("container_cpu_usage_seconds_total\\{container=\"web\",namespace=\"top\",pod=\"busy\"} "
                        + "[0-9.]+ \\d+");
    }

    @Test
    void readingMetricsNeedsTheRightToListThem() {
        Response denied = callAs("carol-token", "GET", METRICS + "/nodes", null, null, "application/json");
        assertThat(denied.code()).isEqualTo(403);
        assertThat(denied.text("message")).isEqualTo("nodes.metrics.k8s.io is forbidden: User \"carol\" cannot"
                + " list resource \"nodes\" in API group \"metrics.k8s.io\" at the cluster scope");
    }
}

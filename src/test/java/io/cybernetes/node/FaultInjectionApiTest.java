package io.cybernetes.node;

import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults injected through the admin-only endpoint into the application's simulated nodes,
 * and how the control plane takes them: a node NotReady is tainted not-ready until it is
 * Ready again; a node whose heartbeats stop goes Unknown, tainted unreachable; a crashed
 * container restarts (restartCount, lastState) or, for a pod that does not restart, fails
 * the pod. Errors are Statuses; nobody but cluster-admin may inject.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultInjectionApiTest extends SimulatedClusterSupport {

    static final String NS = "faults";
    static final String FAULTS = "/apis/status.cybernetes.io/v1/nodes/node-3/faults";

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        await().atMost(Duration.ofSeconds(20)).until(() -> get("/api/v1/nodes/node-3").code() == 200);
    }

    private JsonNode node3() {
        return get("/api/v1/nodes/node-3").json();
    }

    private static String readyStatus(JsonNode node) {
        for (JsonNode c : node.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asString())) {
                return c.path("status").asString() + "/" + c.path("reason").asString();
            }
        }
        return "";
    }

    @Test
    void aNodeMarkedNotReadyIsTaintedUntilItIsReadyAgain() {
        Response r = post(FAULTS, "{\"action\":\"NotReady\"}");
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.json().path("status").path("ready").asBoolean()).isFalse();
        assertThat(r.json().path("status").path("heartbeating").asBoolean()).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> readyStatus(node3()).equals("False/KubeletNotReady")
                && node3().path("spec").path("taints").toString().contains("node.kubernetes.io/not-ready"));
        assertThat(post(FAULTS, "{\"action\":\"Ready\"}").code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> readyStatus(node3()).equals("True/KubeletReady")
                && !node3().path("spec").path("taints").toString().contains("not-ready"));
    }

    @Test
    void aNodeWhoseHeartbeatsStopGoesUnknownAndComesBack() {
        assertThat(post(FAULTS, "{\"action\":\"StopHeartbeats\"}").code()).isEqualTo(200);
        assertThat(get(FAULTS).json().path("status").path("heartbeating").asBoolean()).isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> readyStatus(node3()).startsWith("Unknown/")
                && node3().path("spec").path("taints").toString().contains("node.kubernetes.io/unreachable"));
        assertThat(post(FAULTS, "{\"action\":\"ResumeHeartbeats\"}").code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> readyStatus(node3()).equals("True/KubeletReady")
                && !node3().path("spec").path("taints").toString().contains("unreachable"));
    }

    private JsonNode runningPod(String name, String restartPolicy) {
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", ("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"NAME\"},\"spec\":{\"restartPolicy\":\"POLICY\",\"containers\":[{\"name\":\"app\","
                + "\"image\":\"nginx\"},{\"name\":\"sidecar\",\"image\":\"envoy\"}]}}").replace("NAME", name)
                .replace("POLICY", restartPolicy)).code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(pod(name).path("status").path("phase")
                .asString()));
        return pod(name);
    }

    private JsonNode pod(String name) {
        return get("/api/v1/namespaces/" + NS + "/pods/" + name).json();
    }

    private static JsonNode container(JsonNode pod, String name) {
        for (JsonNode c : pod.path("status").path("containerStatuses")) {
            if (name.equals(c.path("name").asString())) {
                return c;
            }
        }
        throw new AssertionError("no status of container " + name);
    }

    @Test
    void aCrashedContainerIsRestartedAndCounted() {
        runningPod("crashy", "Always");
        Response r = post("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/pods/crashy/faults",
                "{\"action\":\"CrashContainer\",\"container\":\"sidecar\",\"exitCode\":137}");
        assertThat(r.code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> container(pod("crashy"), "sidecar").path("restartCount")
                .asInt() == 1 && container(pod("crashy"), "sidecar").path("ready").asBoolean());
        JsonNode sidecar = container(pod("crashy"), "sidecar");
        assertThat(sidecar.path("lastState").path("terminated").path("exitCode").asInt()).isEqualTo(137);
        assertThat(sidecar.path("state").has("running")).isTrue();
        assertThat(container(pod("crashy"), "app").path("restartCount").asInt()).isZero();
        assertThat(pod("crashy").path("status").path("phase").asString()).isEqualTo("Running");
    }

    @Test
    void aCrashedContainerOfAPodThatNeverRestartsFailsThePod() {
        runningPod("once", "Never");
        assertThat(post("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/pods/once/faults",
                "{\"action\":\"CrashContainer\",\"exitCode\":2}").code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Failed".equals(pod("once").path("status").path("phase")
                .asString()));
        assertThat(container(pod("once"), "app").path("state").path("terminated").path("exitCode").asInt())
                .isEqualTo(2);
        assertThat(pod("once").path("status").path("conditions").toString()).contains("\"Ready\"");
    }

    @Test
    void badFaultsAreStatusesAndOnlyAdminsMayInject() {
        Response unknown = post(FAULTS, "{\"action\":\"Explode\"}");
        assertThat(unknown.code()).isEqualTo(400);
        assertThat(unknown.text("message")).isEqualTo("unknown node fault action \"Explode\": one of StopHeartbeats,"
                + " ResumeHeartbeats, NotReady, Ready");
        assertThat(post(FAULTS, "not json").code()).isEqualTo(400);
        Response noNode = post("/apis/status.cybernetes.io/v1/nodes/node-99/faults", "{\"action\":\"NotReady\"}");
        assertThat(noNode.code()).isEqualTo(404);
        assertThat(noNode.text("kind")).isEqualTo("Status");
        assertThat(noNode.text("message")).isEqualTo("node \"node-99\" is not simulated by this process");
        assertThat(post("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/pods/nope/faults",
                "{\"action\":\"CrashContainer\"}").code()).isEqualTo(404);
        runningPod("sturdy", "Always");
        Response noContainer = post("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/pods/sturdy/faults",
                "{\"action\":\"CrashContainer\",\"container\":\"ghost\"}");
        assertThat(noContainer.code()).isEqualTo(400);
        assertThat(noContainer.text("message")).isEqualTo("pod \"sturdy\" has no container \"ghost\"");

        Response bob = callAs("bob-token", "POST", FAULTS, "application/json", "{\"action\":\"NotReady\"}",
                "application/json");
        assertThat(bob.code()).isEqualTo(403);
        assertThat(bob.text("message")).contains("cannot create resource \"nodes/faults\" in API group"
                + " \"status.cybernetes.io\"");
        assertThat(readyStatus(node3())).isEqualTo("True/KubeletReady");
    }
}

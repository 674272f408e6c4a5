package io.cybernetes.node;

import io.cybernetes.api.LocalApi;
import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClients;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node agent against the running server (ahead of its wiring in issue 5): registration,
 * Lease heartbeats, pods bound to it going Running (and Succeeded when they end), graceful
 * deletion, and the node going Unknown when its heartbeats stop (grace 5 s in tests).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeAgentApiTest extends ApiTestSupport {

    static final String NS = "node-agent";

    @Autowired
    LocalApi api;

    NodeFleet fleet;
    NodeAgent agent;

    @BeforeAll
    void start() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        fleet = new NodeFleet(ApiClients.local(api, token()), Clock.systemUTC(), 1);
        agent = fleet.add(ApiClients.local(api, token()), new NodeAgent.Config("sim-node-1", "8", "16Gi", 110,
                "zone-a", "region-1", Map.of("pool", "general"), List.of(new TaintBuilder().withKey("sim")
                .withValue("yes").withEffect("PreferNoSchedule").build()), List.of("nginx:1.27"), "10.250.1",
                "192.168.50.11", Duration.ofMillis(200), Duration.ofMillis(300)));
        fleet.start();
    }

    @AfterAll
    void stop() {
        fleet.close();
    }

    private String phase(String pod) {
        return get("/api/v1/namespaces/" + NS + "/pods/" + pod).json().path("status").path("phase").asString();
    }

    private void boundPod(String name, String extraSpec, String annotations) {
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", ("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"NAME\"ANNOTATIONS},\"spec\":{EXTRA\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}")
                .replace("NAME", name).replace("EXTRA", extraSpec).replace("ANNOTATIONS", annotations)).code())
                .isEqualTo(201);
        assertThat(post("/api/v1/namespaces/" + NS + "/pods/" + name + "/binding", "{\"apiVersion\":\"v1\","
                + "\"kind\":\"Binding\",\"metadata\":{\"name\":\"" + name + "\"},\"target\":{\"kind\":\"Node\","
                + "\"name\":\"sim-node-1\"}}").code()).isEqualTo(201);
    }

    @Test
    void theNodeRegistersAndHeartbeats() {
        JsonNode node = get("/api/v1/nodes/sim-node-1").json();
        assertThat(node.path("metadata").path("labels").path("topology.kubernetes.io/zone").asString())
                .isEqualTo("zone-a");
        assertThat(node.path("metadata").path("labels").path("kubernetes.io/hostname").asString())
                .isEqualTo("sim-node-1");
        assertThat(node.path("metadata").path("labels").path("pool").asString()).isEqualTo("general");
        assertThat(node.path("status").path("allocatable").path("cpu").asString()).isEqualTo("8");
        assertThat(node.path("status").path("images").get(0).path("names").get(0).asString()).isEqualTo("nginx:1.27");
        assertThat(node.path("spec").path("taints").get(0).path("key").asString()).isEqualTo("sim");
        assertThat(node.path("status").path("conditions").toString()).contains("\"Ready\"", "KubeletReady");
        // every field a kubelet reports, which clients' models require (the Python client refuses a NodeList without)
        JsonNode info = node.path("status").path("nodeInfo");
        for (String field : List.of("architecture", "bootID", "containerRuntimeVersion", "kernelVersion",
                "kubeProxyVersion", "kubeletVersion", "machineID", "operatingSystem", "osImage", "systemUUID")) {
            assertThat(info.path(field).asString()).as(field).isNotEmpty();
        }
        assertThat(info.path("machineID").asString()).matches("[0-9a-f]{32}");
        assertThat(info.path("systemUUID").asString()).isEqualTo(java.util.UUID.nameUUIDFromBytes(
                "system:sim-node-1".getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString());
        assertThat(info.path("bootID").asString()).isNotEqualTo(info.path("systemUUID").asString());
        String first = get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/sim-node-1").text(
                "spec.renewTime");
        await().atMost(Duration.ofSeconds(10)).until(() -> !first.equals(get(
                "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/sim-node-1").text("spec.renewTime")));
    }

    @Test
    void aBoundPodRunsAndOneThatEndsSucceeds() {
        boundPod("runs", "", "");
        await().atMost(Duration.ofSeconds(10)).until(() -> "Running".equals(phase("runs")));
        JsonNode status = get("/api/v1/namespaces/" + NS + "/pods/runs").json().path("status");
        assertThat(status.path("podIP").asString()).startsWith("10.250.1.");
        assertThat(status.path("hostIP").asString()).isEqualTo("192.168.50.11");
        assertThat(status.path("containerStatuses").get(0).path("ready").asBoolean()).isTrue();
        assertThat(status.path("conditions").toString()).contains("\"Ready\"");

        boundPod("job", "\"restartPolicy\":\"Never\",", ",\"annotations\":{\"" + NodeAgent.RUN_SECONDS + "\":\"0.3\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> "Succeeded".equals(phase("job")));
        assertThat(get("/api/v1/namespaces/" + NS + "/pods/job").json().path("status").path("containerStatuses")
                .get(0).path("state").has("terminated")).isTrue();
    }

    @Test
    void aDeletedPodIsLetGo() {
        boundPod("doomed", "", "");
        await().atMost(Duration.ofSeconds(10)).until(() -> "Running".equals(phase("doomed")));
        assertThat(delete("/api/v1/namespaces/" + NS + "/pods/doomed").code()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                get("/api/v1/namespaces/" + NS + "/pods/doomed").code() == 404);
    }

    @Test
    void whenItsHeartbeatsStopTheNodeGoesUnknownAndComesBack() {
        agent.heartbeats(false);
        await().atMost(Duration.ofSeconds(30)).until(() -> get("/api/v1/nodes/sim-node-1").json().path("spec")
                .path("taints").toString().contains("node.kubernetes.io/unreachable"));
        assertThat(get("/api/v1/nodes/sim-node-1").json().path("status").path("conditions").toString())
                .contains("\"Unknown\"");
        agent.heartbeats(true);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode n = get("/api/v1/nodes/sim-node-1").json();
            return !n.path("spec").path("taints").toString().contains("unreachable")
                    && n.path("status").path("conditions").toString().contains("KubeletReady");
        });
    }
}

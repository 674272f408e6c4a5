package io.cybernetes.controller.replication;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ReplicationControllers on the simulated cluster: Kubernetes' defaults (selector and
 * labels from the template), their pods kept and owned by them, scaled by kubectl, counted
 * by a disruption budget, listed with Kubernetes' columns, and a template that does not
 * restart always refused.
 */
class ReplicationControllerApiTest extends SimulatedClusterSupport {

    static final String NS = "replication";
    static final String RCS = "/api/v1/namespaces/" + NS + "/replicationcontrollers";

    @TempDir
    Path dir;

    @Test
    void aReplicationControllerKeepsItsPodsAndScales() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        Kubectl kubectl = new Kubectl(endpoints.adminKubeconfig(), dir);
        Path manifest = dir.resolve("rc.yaml");
        Files.writeString(manifest, """
                apiVersion: v1
                kind: ReplicationController
                metadata:
                  name: legacy
                spec:
                  replicas: 3
                  template:
                    metadata:
                      labels:
                        app: legacy
                    spec:
                      containers:
                      - name: web
                        image: nginx
                ---
                apiVersion: policy/v1
                kind: PodDisruptionBudget
                metadata:
                  name: legacy
                spec:
                  maxUnavailable: 1
                  selector:
                    matchLabels:
                      app: legacy
                """, StandardCharsets.UTF_8);
        Kubectl.Run applied = kubectl.run("-n", NS, "apply", "-f", manifest.toString());
        assertThat(applied.exit()).as(applied.all()).isZero();
        JsonNode rc = get(RCS + "/legacy").json();
        assertThat(rc.path("spec").path("selector").toString()).isEqualTo("{\"app\":\"legacy\"}");
        assertThat(rc.path("metadata").path("labels").path("app").asString()).isEqualTo("legacy");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode status = get(RCS + "/legacy").json().path("status");
            assertThat(status.path("readyReplicas").asInt()).isEqualTo(3);
            assertThat(status.path("observedGeneration").asLong()).isEqualTo(1);
        });
        JsonNode pods = get("/api/v1/namespaces/" + NS + "/pods?labelSelector=app%3Dlegacy").json().path("items");
        assertThat(pods).hasSize(3);
        assertThat(pods.path(0).path("metadata").path("ownerReferences").path(0).path("kind").asString())
                .isEqualTo("ReplicationController");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get("/apis/policy/v1/namespaces/" + NS
                + "/poddisruptionbudgets/legacy").json().path("status").path("expectedPods").asInt()).isEqualTo(3));
        // their reconcile status, as kubectl reads it
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Kubectl.Run views = kubectl.run("-n", NS, "get", "replicationcontrollerreconciles,"
                    + "poddisruptionbudgetreconciles");
            assertThat(views.exit()).as(views.all()).isZero();
            assertThat(views.out()).containsPattern("NAME\\s+DESIRED\\s+AVAILABLE\\s+GENERATION LAG\\s+LAST RESULT")
                    .containsPattern("replicationcontrollerreconcile\\.status\\.cybernetes\\.io/legacy\\s+3\\s+3\\s+0\\s+Success")
                    .containsPattern("NAME\\s+DESIRED HEALTHY\\s+CURRENT HEALTHY\\s+ALLOWED DISRUPTIONS")
                    .containsPattern("poddisruptionbudgetreconcile\\.status\\.cybernetes\\.io/legacy\\s+2\\s+3\\s+1\\s+0\\s+Success");
        });
        Kubectl.Run got = kubectl.run("-n", NS, "get", "rc", "-o", "wide");
        assertThat(got.out()).containsPattern("NAME\\s+DESIRED\\s+CURRENT\\s+READY\\s+AGE\\s+CONTAINERS\\s+IMAGES\\s+SELECTOR")
                .containsPattern("legacy\\s+3\\s+3\\s+3\\s+\\d+s\\s+web\\s+nginx\\s+app=legacy");
        Kubectl.Run scaled = kubectl.run("-n", NS, "scale", "rc", "legacy", "--replicas=1");
        assertThat(scaled.exit()).as(scaled.all()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(get("/api/v1/namespaces/" + NS
                + "/pods?labelSelector=app%3Dlegacy").json().path("items")).hasSize(1));
        Response never = post(RCS, "{\"apiVersion\":\"v1\",\"kind\":\"ReplicationController\",\"metadata\":{\"name\":"
                + "\"never\"},\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"app\":\"never\"}},\"spec\":"
                + "{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}");
        assertThat(never.code()).isEqualTo(422);
        assertThat(never.text("message")).isEqualTo("ReplicationController \"never\" is invalid:"
                + " spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"");
        assertThat(kubectl.run("delete", "namespace", NS, "--wait=false").exit()).isZero();
    }
}

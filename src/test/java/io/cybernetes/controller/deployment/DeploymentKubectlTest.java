package io.cybernetes.controller.deployment;

import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.client.ApiClients;
import io.cybernetes.controller.FakeKubelet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real kubectl driving rollouts: {@code rollout status} and {@code wait
 * --for=condition=Available} return once converged, {@code set image}, {@code rollout
 * history} and {@code rollout undo} go back to the previous template, and a rollout past
 * its deadline makes {@code rollout status} fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeploymentKubectlTest extends ApiTestSupport {

    static final String NS = "kubectl-rollouts";

    @TempDir
    Path dir;
    FakeKubelet kubelet;

    @BeforeAll
    void cluster() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        kubelet = new FakeKubelet(ApiClients.http(URI.create(url("")), null, token()), NS,
                List.of("kubectl-node-1", "kubectl-node-2"), Duration.ofMillis(300));
    }

    @AfterAll
    void stop() {
        kubelet.close();
    }

    private Kubectl.Run run(String... args) {
        return new Kubectl(endpoints.adminKubeconfig(), dir).run(args);
    }

    private Kubectl.Run apply(String name, int replicas, String image, String extraSpec) throws IOException {
        Path m = dir.resolve(name + ".yaml");
        Files.writeString(m, """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: NAME
                  namespace: NS
                spec:
                  replicas: REPLICAS
                  EXTRA
                  selector:
                    matchLabels: {app: NAME}
                  template:
                    metadata:
                      labels: {app: NAME}
                    spec:
                      containers:
                      - name: c
                        image: IMAGE
                """.replace("NAME", name).replace("NS", NS).replace("REPLICAS", Integer.toString(replicas))
                .replace("IMAGE", image).replace("EXTRA", extraSpec == null ? "" : extraSpec));
        Kubectl.Run r = run("apply", "-f", m.toString());
        assertThat(r.exit()).as(r.all()).isZero();
        return r;
    }

    @Test
    void rolloutStatusAndWaitReturnOnceConverged() throws IOException {
        apply("status", 3, "nginx:1", null);
        Kubectl.Run status = run("rollout", "status", "-n", NS, "deployment/status", "--timeout=60s");
        assertThat(status.exit()).as(status.all()).isZero();
        assertThat(status.out()).contains("deployment \"status\" successfully rolled out");
        JsonNode d = get("/apis/apps/v1/namespaces/" + NS + "/deployments/status").json();
        assertThat(d.path("status").path("availableReplicas").asInt()).isEqualTo(3);

        Kubectl.Run wait = run("wait", "-n", NS, "--for=condition=Available", "deployment/status", "--timeout=60s");
        assertThat(wait.exit()).as(wait.all()).isZero();
        assertThat(wait.out()).contains("deployment.apps/status condition met");

        Kubectl.Run table = run("get", "-n", NS, "deployment", "status");
        assertThat(table.out()).containsPattern("status\\s+3/3\\s+3\\s+3\\s+");
    }

    @Test
    void setImageHistoryAndUndo() throws IOException {
        apply("undo", 2, "nginx:1", null);
        assertThat(run("rollout", "status", "-n", NS, "deployment/undo", "--timeout=60s").exit()).isZero();
        Kubectl.Run set = run("set", "image", "-n", NS, "deployment/undo", "c=nginx:2");
        assertThat(set.exit()).as(set.all()).isZero();
        Kubectl.Run status = run("rollout", "status", "-n", NS, "deployment/undo", "--timeout=60s");
        assertThat(status.exit()).as(status.all()).isZero();
        assertThat(image()).isEqualTo("nginx:2");

        Kubectl.Run history = run("rollout", "history", "-n", NS, "deployment/undo");
        assertThat(history.exit()).as(history.all()).isZero();
        assertThat(history.out()).containsPattern("(?m)^1\\s").containsPattern("(?m)^2\\s");

        Kubectl.Run undo = run("rollout", "undo", "-n", NS, "deployment/undo");
        assertThat(undo.exit()).as(undo.all()).isZero();
        assertThat(undo.out()).contains("deployment.apps/undo rolled back");
        Kubectl.Run again = run("rollout", "status", "-n", NS, "deployment/undo", "--timeout=60s");
        assertThat(again.exit()).as(again.all()).isZero();
        assertThat(image()).isEqualTo("nginx:1");
        // the first template's ReplicaSet is the current one again, now as revision 3
        JsonNode d = get("/apis/apps/v1/namespaces/" + NS + "/deployments/undo").json();
        assertThat(d.path("metadata").path("annotations").path(DeploymentController.REVISION).asString()).isEqualTo("3");
        JsonNode sets = get("/apis/apps/v1/namespaces/" + NS + "/replicasets?labelSelector=app%3Dundo").json()
                .path("items");
        assertThat(sets.size()).isEqualTo(2);
        for (JsonNode rs : sets) {
            String img = rs.path("spec").path("template").path("spec").path("containers").get(0).path("image").asString();
            assertThat(rs.path("metadata").path("annotations").path(DeploymentController.REVISION).asString())
                    .isEqualTo(img.equals("nginx:1") ? "3" : "2");
            assertThat(rs.path("spec").path("replicas").asInt()).isEqualTo(img.equals("nginx:1") ? 2 : 0);
        }
    }

    private String image() {
        return get("/apis/apps/v1/namespaces/" + NS + "/deployments/undo").json().path("spec").path("template")
                .path("spec").path("containers").get(0).path("image").asString();
    }

    @Test
    void rolloutStatusFailsPastTheProgressDeadline() throws IOException {
        apply("deadline", 1, "nginx:1", "progressDeadlineSeconds: 2");
        run("annotate", "-n", NS, "deployment/deadline", "kubernetes.io/change-cause=first");
        assertThat(run("rollout", "status", "-n", NS, "deployment/deadline", "--timeout=60s").exit()).isZero();
        Kubectl.Run patched = run("patch", "-n", NS, "deployment/deadline", "--type=merge", "-p",
                "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"" + FakeKubelet.NEVER_READY
                        + "\":\"true\"}}}}}");
        assertThat(patched.exit()).as(patched.all()).isZero();
        Kubectl.Run status = run("rollout", "status", "-n", NS, "deployment/deadline", "--timeout=60s");
        assertThat(status.exit()).as(status.all()).isNotZero();
        assertThat(status.all()).contains("exceeded its progress deadline");
        Kubectl.Run history = run("rollout", "history", "-n", NS, "deployment/deadline");
        assertThat(history.out()).contains("first");
    }
}

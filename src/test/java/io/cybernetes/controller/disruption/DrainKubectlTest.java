package io.cybernetes.controller.disruption;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code kubectl drain} end to end on nodes of the test's own: the node cordoned, its pods
 * evicted within their budget (an eviction the budget refuses retried until the replacement
 * elsewhere is ready), and the Deployment whole again on the other node.
 */
class DrainKubectlTest extends SimulatedClusterSupport {

    @TempDir
    Path dir;

    @Test
    void drainingANodeRespectsTheBudgetAndThePodsComeBackElsewhere() throws Exception {
        // the pods all start on drain-a; drain-b comes once they run
        startNodes(node("drain-a", "8", "zone-d", Map.of("pool", "drain"), List.of()));
        Kubectl kubectl = new Kubectl(endpoints.adminKubeconfig(), dir);
        String ns = "drain";
        assertThat(kubectl.run("create", "namespace", ns).exit()).isZero();
        Path manifest = dir.resolve("app.yaml");
        Files.writeString(manifest, """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: app
                spec:
                  replicas: 4
                  selector:
                    matchLabels:
                      app: app
                  template:
                    metadata:
                      labels:
                        app: app
                    spec:
                      nodeSelector:
                        pool: drain
                      containers:
                      - name: app
                        image: nginx
                ---
                apiVersion: policy/v1
                kind: PodDisruptionBudget
                metadata:
                  name: app
                spec:
                  maxUnavailable: 1
                  selector:
                    matchLabels:
                      app: app
                """, StandardCharsets.UTF_8);
        Kubectl.Run applied = kubectl.run("-n", ns, "apply", "-f", manifest.toString());
        assertThat(applied.exit()).as(applied.all()).isZero();
        assertThat(kubectl.run("-n", ns, "rollout", "status", "deployment/app", "--timeout=60s").exit()).isZero();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(kubectl.run("-n", ns, "get", "pdb", "app",
                "-o", "jsonpath={.status.expectedPods} {.status.desiredHealthy} {.status.disruptionsAllowed}").out())
                .isEqualTo("4 3 1"));
        assertThat(kubectl.run("-n", ns, "get", "pdb").out())
                .containsPattern("NAME\\s+MIN AVAILABLE\\s+MAX UNAVAILABLE\\s+ALLOWED DISRUPTIONS\\s+AGE")
                .containsPattern("app\\s+N/A\\s+1\\s+1\\s+\\d+s");
        startNodes(node("drain-b", "8", "zone-d", Map.of("pool", "drain"), List.of()));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(kubectl.run("get", "node", "drain-b",
                "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}").out()).isEqualTo("True"));
        Kubectl.Run drained = kubectl.run("drain", "drain-a", "--ignore-daemonsets", "--delete-emptydir-data",
                "--timeout=120s");
        assertThat(drained.exit()).as(drained.all()).isZero();
        assertThat(drained.all()).contains("node/drain-a cordoned", "node/drain-a drained");
        // four pods on the node, one disruption allowed: evictions were refused, and retried
        assertThat(drained.all()).contains("(will retry after 5s): Cannot evict pod as it would violate the pod's"
                + " disruption budget.");
        assertThat(kubectl.run("get", "node", "drain-a", "-o", "jsonpath={.spec.unschedulable}").out()).isEqualTo("true");
        await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
            String nodes = kubectl.run("-n", ns, "get", "pods", "-l", "app=app", "--field-selector=status.phase=Running",
                    "-o", "jsonpath={.items[*].spec.nodeName}").out();
            assertThat(nodes.split(" ")).hasSize(4).containsOnly("drain-b");
        });
        assertThat(kubectl.run("uncordon", "drain-a").exit()).isZero();
        assertThat(kubectl.run("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }
}

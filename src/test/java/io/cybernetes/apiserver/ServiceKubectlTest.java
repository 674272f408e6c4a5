package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The real kubectl on the simulated cluster: a Deployment exposed, its pods run by the node
 * agents, and the Service's endpoints as {@code get endpoints}, {@code get endpointslices}
 * and {@code describe svc} print them.
 */
class ServiceKubectlTest extends SimulatedClusterSupport {

    @TempDir
    Path dir;

    private Kubectl.Run kubectl(String... args) {
        return new Kubectl(endpoints.adminKubeconfig(), dir).run(args);
    }

    @Test
    void anExposedDeploymentsPodsAreItsEndpoints() throws Exception {
        String ns = "svc-kubectl";
        assertThat(kubectl("create", "namespace", ns).exit()).isZero();
        Path manifest = dir.resolve("web.yaml");
        Files.writeString(manifest, """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  replicas: 2
                  selector:
                    matchLabels:
                      app: web
                  template:
                    metadata:
                      labels:
                        app: web
                    spec:
                      containers:
                      - name: web
                        image: nginx:1.27
                        ports:
                        - name: http
                          containerPort: 8080
                """, StandardCharsets.UTF_8);
        Kubectl.Run applied = kubectl("-n", ns, "apply", "-f", manifest.toString());
        assertThat(applied.exit()).as(applied.all()).isZero();
        Kubectl.Run exposed = kubectl("-n", ns, "expose", "deployment", "web", "--port=80", "--target-port=http");
        assertThat(exposed.exit()).as(exposed.all()).isZero();
        Kubectl.Run rolled = kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=60s");
        assertThat(rolled.exit()).as(rolled.all()).isZero();
        Kubectl.Run listed = kubectl("-n", ns, "get", "pods", "-l", "app=web", "-o",
                "jsonpath={.items[*].status.podIP}");
        assertThat(listed.exit()).as(listed.all()).isZero();
        String ips = listed.out();
        assertThat(ips.split(" ")).as(listed.all() + "\n" + get("/api/v1/namespaces/" + ns + "/pods").body())
                .hasSize(2);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Kubectl.Run ep = kubectl("-n", ns, "get", "endpoints", "web");
            assertThat(ep.exit()).as(ep.all()).isZero();
            for (String ip : ips.split(" ")) {
                assertThat(ep.out()).contains(ip + ":8080");
            }
        });
        Kubectl.Run slices = kubectl("-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=web");
        assertThat(slices.exit()).as(slices.all()).isZero();
        assertThat(slices.out()).containsPattern("NAME\\s+ADDRESSTYPE\\s+PORTS\\s+ENDPOINTS\\s+AGE")
                .containsPattern("web-\\w{5}\\s+IPv4\\s+8080\\s+\\S+");
        Kubectl.Run described = kubectl("-n", ns, "describe", "svc", "web");
        assertThat(described.exit()).as(described.all()).isZero();
        assertThat(described.out()).containsPattern("TargetPort:\\s+http/TCP").containsPattern("Endpoints:\\s+\\S+:8080");
        // scaled down, one endpoint goes
        assertThat(kubectl("-n", ns, "scale", "deployment", "web", "--replicas=1").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(kubectl("-n", ns, "get", "endpoints",
                "web", "-o", "jsonpath={.subsets[*].addresses[*].ip}").out().split(" ")).hasSize(1));
        assertThat(kubectl("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }

    @Test
    void applyingAServiceAgainWithAnotherPortMergesItsPortsByPort() throws Exception {
        String ns = "svc-apply";
        assertThat(kubectl("create", "namespace", ns).exit()).isZero();
        Path manifest = dir.resolve("svc.yaml");
        String service = """
                apiVersion: v1
                kind: Service
                metadata:
                  name: front
                spec:
                  selector:
                    app: front
                  ports:
                  - name: http
                    port: 80
                    targetPort: 8080
                """;
        Files.writeString(manifest, service, StandardCharsets.UTF_8);
        Kubectl.Run created = kubectl("-n", ns, "apply", "-f", manifest.toString());
        assertThat(created.exit()).as(created.all()).isZero();
        Files.writeString(manifest, service + """
                  - name: https
                    port: 443
                    targetPort: 8443
                """, StandardCharsets.UTF_8);
        Kubectl.Run configured = kubectl("-n", ns, "apply", "-f", manifest.toString());
        assertThat(configured.exit()).as(configured.all()).isZero();
        assertThat(configured.out()).contains("service/front configured");
        assertThat(kubectl("-n", ns, "get", "service", "front", "-o",
                "jsonpath={range .spec.ports[*]}{.name}:{.port}:{.targetPort} {end}").out().trim())
                .isEqualTo("http:80:8080 https:443:8443");
        Files.writeString(manifest, service, StandardCharsets.UTF_8);
        Kubectl.Run removed = kubectl("-n", ns, "apply", "-f", manifest.toString());
        assertThat(removed.exit()).as(removed.all()).isZero();
        assertThat(kubectl("-n", ns, "get", "service", "front", "-o", "jsonpath={.spec.ports[*].port}").out().trim())
                .as("the port no longer in the manifest goes").isEqualTo("80");
        assertThat(kubectl("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }
}

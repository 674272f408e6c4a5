package io.cybernetes.node;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import io.cybernetes.client.ApiClient;
import io.fabric8.kubernetes.api.model.Node;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

import java.io.File;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The node agent as a process of its own: started with {@code node-agent} as the first
 * argument, it registers its nodes over HTTPS, each node with its own client certificate
 * (so the Node authorizer keeps each to itself), runs their pods, and takes faults typed
 * on its standard input.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeAgentProcessTest extends SimulatedClusterSupport {

    static final String NS = "node-process";

    @org.junit.jupiter.api.io.TempDir
    Path dir;

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private Path pki() {
        return endpoints.adminKubeconfig().getParent().resolve("pki");
    }

    private String server() {
        return "https://127.0.0.1:" + endpoints.httpsPort();
    }

    private static String ready(JsonNode node) {
        for (JsonNode c : node.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asString())) {
                return c.path("status").asString();
            }
        }
        return "";
    }

    @Test
    void aSeparateProcessRunsItsNodesAndTakesFaultsOnItsInput() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.cybernetes.CybernetesApplication", "node-agent",
                "--server", server(), "--pki", pki().toString(), "--nodes", "2", "--name-prefix", "proc-",
                "--zones", "zone-p", "--startup-delay", "3s", "--heartbeat", "1s", "--kubelet-port", "0",
                "--log-interval", "100ms")
                .redirectErrorStream(true).redirectOutput(new File("target/node-agent-process.log")).start();
        try (Writer stdin = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> "True".equals(ready(get("/api/v1/nodes/proc-1")
                    .json())) && "True".equals(ready(get("/api/v1/nodes/proc-2").json())));
            assertThat(get("/api/v1/nodes/proc-1").json().path("metadata").path("labels")
                    .path("topology.kubernetes.io/zone").asString()).isEqualTo("zone-p");
            assertThat(post("/api/v1/namespaces/" + NS + "/pods", """
                    {"apiVersion":"v1","kind":"Pod","metadata":{"name":"on-proc"},
                     "spec":{"nodeSelector":{"kubernetes.io/hostname":"proc-1"},
                      "containers":[{"name":"c","image":"nginx"}]}}""").code()).isEqualTo(201);
            // bound but not yet started (the agent waits 3 s): its kubelet says so, in the kubelet's words
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
                var waiting = call("GET", "/api/v1/namespaces/" + NS + "/pods/on-proc/log", null, null, "*/*", true);
                assertThat(waiting.code()).as(waiting.body()).isEqualTo(400);
                assertThat(waiting.text("message")).isEqualTo("container \"c\" in pod \"on-proc\" is waiting to start:"
                        + " ContainerCreating");
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(get("/api/v1/namespaces/" + NS
                    + "/pods/on-proc").json().path("status").path("phase").asString()));
            assertThat(get("/api/v1/namespaces/" + NS + "/pods/on-proc").text("status.podIP")).startsWith("10.100.1.");
            // its kubelet endpoint serves the pod's log to the API server
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                var log = call("GET", "/api/v1/namespaces/" + NS + "/pods/on-proc/log", null, null, "*/*", true);
                assertThat(log.code()).as(log.body()).isEqualTo(200);
                assertThat(log.body()).startsWith("[cybernetes] started container c (image nginx)\n")
                        .contains("c: running in pod " + NS + "/on-proc on proc-1 (2)");
            });

            // and its exec and port-forward
            Kubectl kubectl = new Kubectl(endpoints.adminKubeconfig(), dir);
            Kubectl.Run host = kubectl.run("-n", NS, "exec", "on-proc", "--", "sh", "-c", "hostname; exit 4");
            assertThat(host.exit()).as(host.all()).isEqualTo(4);
            assertThat(host.out()).isEqualTo("on-proc\n");
            assertThat(PortForwarding.get(endpoints.adminKubeconfig(), dir, java.util.Map.of(), NS, "on-proc", 8080,
                    "/from-a-process")).containsExactly("pod " + NS + "/on-proc port 8080: GET /from-a-process\n");

            stdin.write("not-ready proc-2\n");
            stdin.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> "False".equals(ready(get("/api/v1/nodes/proc-2")
                    .json())));
            stdin.write("ready proc-2\n");
            stdin.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> "True".equals(ready(get("/api/v1/nodes/proc-2")
                    .json())));
        } finally {
            p.destroy();
            p.waitFor();
            for (String n : List.of("proc-1", "proc-2")) {
                delete("/api/v1/nodes/" + n);
            }
        }
    }

    @Test
    void eachNodeIsItselfAndNoOtherNode() throws Exception {
        X509Certificate ca = X509Certificates.readCertificate(pki().resolve("ca.crt"));
        PrivateKey caKey = X509Certificates.readPrivateKey(pki().resolve("ca.key"));
        ApiClient one = NodeAgentCommand.clientFor(URI.create(server()), ca, caKey, "ident-1");
        ApiClient two = NodeAgentCommand.clientFor(URI.create(server()), ca, caKey, "ident-2");
        NodeFleet fleet = new NodeFleet(null, java.time.Clock.systemUTC(), 1);
        fleet.add(one, node("ident-1", "4", "zone-p", java.util.Map.of(), List.of()));
        fleet.add(two, node("ident-2", "4", "zone-p", java.util.Map.of(), List.of()));
        try {
            fleet.start();
            ApiException read = catchThrowableOfType(ApiException.class, () -> one.get(Node.class, null, "ident-2"));
            assertThat(read.code()).isEqualTo(403);
            assertThat(read.getMessage()).endsWith("node 'ident-1' cannot read 'ident-2', only its own Node object");
            Node other = two.get(Node.class, null, "ident-2").orElseThrow();
            ApiException e = catchThrowableOfType(ApiException.class, () -> one.updateStatus(other));
            assertThat(e.code()).isEqualTo(403);
            assertThat(e.getMessage()).contains("system:node:ident-1");
        } finally {
            fleet.close();
            delete("/api/v1/nodes/ident-1");
            delete("/api/v1/nodes/ident-2");
        }
    }

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource(delimiter = '|', value = {
            "--nodes 3                          | --server is required",
            "--server https://x --nodes 0       | --nodes must be a positive number, not 0",
            "--server https://x --heartbeat 10  | not a duration (500ms, 10s, 1m): 10",
            "--server https://x --colour blue   | unknown option --colour",
            "--server https://x --nodes         | --nodes needs a value",
            "--server https://x stray           | unexpected argument stray"})
    void badCommandLinesAreExplained(String args, String message) {
        assertThatThrownBy(() -> NodeAgentCommand.Options.parse(args.trim().split(" ")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void theCommandLineHasDefaults() {
        NodeAgentCommand.Options o = NodeAgentCommand.Options.parse(new String[] {"--server=https://h:6443",
                "--nodes", "1000", "--startup-delay", "500ms"});
        assertThat(o.nodes()).isEqualTo(1000);
        assertThat(o.startupDelay()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.heartbeat()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.zones()).containsExactly("zone-a", "zone-b");
        assertThat(o.pki()).isEqualTo(Path.of("./data/pki"));
    }
}

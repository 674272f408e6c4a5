package io.cybernetes.node;

import com.sun.net.httpserver.HttpServer;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code kubectl port-forward} (SPDY tunnelled in a WebSocket, as kubectl 1.32 speaks it)
 * to a simulated pod: the node's HTTP responder answers, or a real process on a loopback
 * address the pod's annotation names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodPortForwardKubectlTest extends SimulatedClusterSupport {

    static final String NS = "port-forward";
    static final String PODS = "/api/v1/namespaces/" + NS + "/pods";

    @TempDir
    Path dir;

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private void pod(String name, String annotations) {
        assertThat(post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\","
                + "\"annotations\":{" + annotations + "}},\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx\","
                + "\"ports\":[{\"containerPort\":8080}]}]}}").code()).isIn(201, 409);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(get(PODS + "/" + name).json()
                .path("status").path("phase").asString()));
    }

    /** Runs kubectl port-forward to the pod's port on a free local one, and GETs {@code paths} through it. */
    private List<String> through(String pod, int port, String... paths) throws Exception {
        return through(Map.of(), pod, port, paths);
    }

    private List<String> through(Map<String, String> env, String pod, int port, String... paths) throws Exception {
        return PortForwarding.get(endpoints.adminKubeconfig(), dir, env, NS, pod, port, paths);
    }

    @Test
    void aForwardedPortReachesTheNodesResponder() throws Exception {
        pod("site", "");
        assertThat(through("site", 8080, "/hello", "/again?x=1")).containsExactly(
                "pod " + NS + "/site port 8080: GET /hello\n", "pod " + NS + "/site port 8080: GET /again?x=1\n");
    }

    @Test
    void kubectlWithoutWebSocketsForwardsOverSpdy() throws Exception {
        pod("spdy-site", "");
        assertThat(through(Map.of("KUBECTL_PORT_FORWARD_WEBSOCKETS", "false"), "spdy-site", 8080, "/one", "/two"))
                .containsExactly("pod " + NS + "/spdy-site port 8080: GET /one\n",
                        "pod " + NS + "/spdy-site port 8080: GET /two\n");
    }

    @Test
    void anAnnotationPutsARealProcessBehindThePod() throws Exception {
        HttpServer real = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        real.createContext("/", ex -> {
            byte[] b = ("a real process saw " + ex.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        real.start();
        try {
            pod("backed", "\"port-forward.cybernetes.io/9000\":\"127.0.0.1:" + real.getAddress().getPort() + "\"");
            assertThat(through("backed", 9000, "/status")).containsExactly("a real process saw /status");
        } finally {
            real.stop(0);
        }
    }

    @Test
    void refusals() {
        var unplaced = post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"unplaced\"},\"spec\":"
                + "{\"nodeSelector\":{\"no\":\"such-node\"},\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertThat(unplaced.code()).isIn(201, 409);
        var r = get(PODS + "/unplaced/portforward?ports=80");
        assertThat(r.code()).isEqualTo(400);
        assertThat(r.text("message")).isEqualTo("pod unplaced does not have a host assigned");
        var refused = callAs("carol-token", "GET", PODS + "/unplaced/portforward?ports=80", null, null, "*/*");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.text("message")).contains("cannot get resource \"pods/portforward\"");
    }
}

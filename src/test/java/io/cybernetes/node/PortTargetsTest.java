package io.cybernetes.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a forwarded port leads: the node's responder, the loopback address the pod's
 * annotation names for every port or for one, and never an address off the machine.
 */
class PortTargetsTest {

    private static Pod pod(Map<String, String> annotations) {
        return new PodBuilder().withNewMetadata().withName("p").withNamespace("ns").withAnnotations(annotations)
                .endMetadata().build();
    }

    /** A loopback server that answers each connection with its name and closes it. */
    private static ServerSocket server(String name) throws IOException {
        ServerSocket s = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                    c.getOutputStream().write(name.getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return s;
    }

    private static String read(PortTargets.Target t) throws IOException {
        try {
            return new String(t.from().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            t.close();
        }
    }

    @Test
    void thePodsAnnotationNamesTheAddressOfEveryPortAndAPortsOwnOverridesIt() throws Exception {
        try (ServerSocket all = server("every port"); ServerSocket one = server("port 9000")) {
            Pod pod = pod(Map.of(PortTargets.POD_ANNOTATION, "127.0.0.1:" + all.getLocalPort(),
                    PortTargets.PORT_ANNOTATION_PREFIX + "9000", "localhost:" + one.getLocalPort()));
            assertThat(read(PortTargets.open(pod, 8080))).isEqualTo("every port");
            assertThat(read(PortTargets.open(pod, 9000))).isEqualTo("port 9000");
        }
    }

    @Test
    void withoutAnAnnotationTheNodesResponderAnswers() throws Exception {
        PortTargets.Target t = PortTargets.open(pod(Map.of()), 8080);
        t.to().write("GET /x HTTP/1.1\r\nHost: p\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        t.to().flush();
        t.endInput();
        assertThat(read(t)).startsWith("HTTP/1.1 200 OK").endsWith("pod ns/p port 8080: GET /x\n");
    }

    @Test
    void anAddressOffTheMachineIsNeverDialled() {
        assertThatThrownBy(() -> PortTargets.open(pod(Map.of(PortTargets.POD_ANNOTATION, "10.1.2.3:80")), 80))
                .isInstanceOf(IOException.class)
                .hasMessage("port forward to 10.1.2.3:80 refused: only a loopback address may stand behind a simulated"
                        + " pod");
    }
}

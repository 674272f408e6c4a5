package io.cybernetes.node;

import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.KubeletApi;
import io.cybernetes.api.X509Certificates;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The kubelet endpoint's WebSocket handshake and framing against the JDK's WebSocket client. */
class KubeletWebSocketTest {

    @Test
    void aWebSocketHandshakeCompletes() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        var kp = g.generateKeyPair();
        var caCert = X509Certificates.sign("CN=test-ca", kp.getPublic(), kp.getPrivate(), null, Duration.ofDays(1),
                null, List.of());
        CertificateAuthority ca = CertificateAuthority.of(caCert, kp.getPrivate());
        try (KubeletServer server = new KubeletServer()) {
            int port = server.listen("127.0.0.1", 0, ca.tls(ca.issue("CN=node", X509Certificates.Purpose.SERVER,
                    List.of("127.0.0.1"), Duration.ofDays(1))), (req, res) -> {
                var ws = WebSocket.accept(req, res, List.of("v5.channel.k8s.io"));
                ws.sendBinary(new byte[] {1, 'h', 'i'});
                ws.close(1000, "");
            });
            HttpClient http = HttpClient.newBuilder().sslContext(ca.tls(ca.issue(KubeletApi.CLIENT_SUBJECT,
                    X509Certificates.Purpose.CLIENT, List.of(), Duration.ofDays(1)))).build();
            CompletableFuture<String> got = new CompletableFuture<>();
            var ws = http.newWebSocketBuilder().subprotocols("v5.channel.k8s.io").buildAsync(
                    URI.create("wss://127.0.0.1:" + port + "/x"), new java.net.http.WebSocket.Listener() {
                        @Override
                        public CompletionStage<?> onBinary(java.net.http.WebSocket w, ByteBuffer data, boolean last) {
                            byte[] b = new byte[data.remaining()];
                            data.get(b);
                            got.complete(new String(b, 1, b.length - 1));
                            return null;
                        }
                    }).get(10, TimeUnit.SECONDS);
            assertThat(ws.getSubprotocol()).isEqualTo("v5.channel.k8s.io");
            assertThat(got.get(10, TimeUnit.SECONDS)).isEqualTo("hi");
        }
    }
}

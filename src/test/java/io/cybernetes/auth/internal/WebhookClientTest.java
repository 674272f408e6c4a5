package io.cybernetes.auth.internal;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.cybernetes.TestCertificates;
import io.cybernetes.api.Json;
import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.Authorizer.Decision;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A webhook reached over HTTPS as its kubeconfig says, and what comes of answers that are not answers. */
class WebhookClientTest {

    final AtomicReference<String> answer = new AtomicReference<>("{}");
    final AtomicReference<String> authorization = new AtomicReference<>();
    TestCertificates.Served tls;
    HttpsServer server;

    @BeforeEach
    void start() throws Exception {
        tls = TestCertificates.forLocalhost();
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls.server()));
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            authorization.set(exchange.getRequestHeaders().getFirst("Authorization"));
            String a = answer.get();
            if (a.startsWith("status:")) {
                exchange.sendResponseHeaders(Integer.parseInt(a.substring(7)), -1);
            } else {
                byte[] b = a.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, b.length);
                exchange.getResponseBody().write(b);
            }
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private Path kubeconfig(Path dir, String ca) throws IOException {
        Path file = dir.resolve("hook.kubeconfig");
        Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters:\n- name: hook\n  cluster:\n"
                + "    server: https://127.0.0.1:" + server.getAddress().getPort() + "/review\n"
                + (ca == null ? "" : "    certificate-authority-data: " + ca + "\n")
                + "users:\n- name: apiserver\n  user:\n    token: hook-token\n");
        return file;
    }

    @Test
    void theClusterCaFromTheKubeconfigIsTrustedAndTheUsersTokenSent(@TempDir Path dir) throws Exception {
        answer.set("{\"status\":{\"allowed\":true}}");
        WebhookClient client = WebhookClient.fromKubeconfig(kubeconfig(dir, tls.caBase64Pem()));
        assertThat(client.post(Json.object()).path("status").path("allowed").asBoolean()).isTrue();
        assertThat(authorization.get()).isEqualTo("Bearer hook-token");
        WebhookClient untrusting = WebhookClient.fromKubeconfig(kubeconfig(dir, null));
        assertThatThrownBy(() -> untrusting.post(Json.object())).isInstanceOf(IOException.class)
                .hasMessageContaining("Post \"https://127.0.0.1:");
    }

    @Test
    void anAuthorizationWebhookThatAnswersGarbageOrFailsHasNoOpinionAndIsNotRemembered(@TempDir Path dir) throws Exception {
        WebhookAuthorizer z = new WebhookAuthorizer(WebhookClient.fromKubeconfig(kubeconfig(dir, tls.caBase64Pem())),
                new AuthProperties.AuthorizationWebhook("x", Duration.ofMinutes(5), Duration.ofSeconds(30)));
        RequestAttributes get = RequestAttributes.resource(UserInfo.authenticated("erin", "", List.of()), "get", "",
                "pods", "", "ns", "p");
        answer.set("not json at all");
        Decision garbage = z.authorize(get);
        assertThat(garbage.outcome()).isEqualTo(Decision.Outcome.NO_OPINION);
        assertThat(garbage.reason()).as("no reason for the client to see").isEmpty();
        assertThat(garbage.error()).as("the error, for access reviews and CEL's errored()").isNotEmpty();
        answer.set("status:503");
        Decision failed = z.authorize(get);
        assertThat(failed.outcome()).isEqualTo(Decision.Outcome.NO_OPINION);
        assertThat(failed.error()).isNotEmpty();
        answer.set("{\"status\":{\"allowed\":true,\"reason\":\"fine\"}}");
        assertThat(z.authorize(get)).isEqualTo(Decision.allow("fine"));
        answer.set("{\"status\":{\"allowed\":false}}");
        assertThat(z.authorize(get)).as("an allowing answer is kept").isEqualTo(Decision.allow("fine"));
    }

    @Test
    void aKubeconfigWithoutAServerStopsTheStart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("empty.kubeconfig");
        Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters: []\n");
        assertThatThrownBy(() -> WebhookClient.fromKubeconfig(file)).hasMessageContaining("names no cluster server");
    }
}

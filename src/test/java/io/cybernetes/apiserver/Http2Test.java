package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTPS port speaks HTTP/2 (ALPN h2) as kube-apiserver does, HTTP/1.1 still offered: a
 * watch and writes share one HTTP/2 connection, the watch seeing the writes; a stream reset
 * or a client gone with its watch open leaves every other stream as it was.
 */
class Http2Test extends ApiTestSupport {

    private HttpClient client(HttpClient.Version version) throws Exception {
        Path ca = endpoints.adminKubeconfig().getParent().resolve("pki/ca.crt");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().version(version).sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + endpoints.httpsPort() + path))
                .header("Authorization", "Bearer " + token()).timeout(Duration.ofSeconds(30));
    }

    /** A watch of the namespace's ConfigMaps on the client's connection. */
    private HttpResponse<InputStream> watchConfigMaps(HttpClient h2, String ns) throws Exception {
        return h2.send(request("/api/v1/namespaces/" + ns + "/configmaps?watch=true").timeout(Duration.ofMinutes(1))
                .build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    /** Creates a ConfigMap over the client's connection. */
    private HttpResponse<String> createConfigMap(HttpClient h2, String ns, String name) throws Exception {
        HttpResponse<String> created = h2.send(request("/api/v1/namespaces/" + ns + "/configmaps")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\"}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return created;
    }

    @Test
    void http2IsSpokenAndHttp11StillOffered() throws Exception {
        HttpResponse<String> h2 = client(HttpClient.Version.HTTP_2).send(request("/api/v1/namespaces").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(h2.statusCode()).isEqualTo(200);
        assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
        HttpResponse<String> h1 = client(HttpClient.Version.HTTP_1_1).send(request("/api/v1/namespaces").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        HttpResponse<String> missing = client(HttpClient.Version.HTTP_2).send(request("/api/v1/namespaces/nope-h2")
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("\"reason\":\"NotFound\"");
    }

    @Test
    void aWatchAndWritesShareOneConnection() throws Exception {
        String ns = "h2-watch";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        HttpClient h2 = client(HttpClient.Version.HTTP_2);
        HttpResponse<InputStream> watch = watchConfigMaps(h2, ns);
        assertThat(watch.version()).isEqualTo(HttpClient.Version.HTTP_2);
        CompletableFuture<String> seen = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(watch.body(), StandardCharsets.UTF_8))) {
                return r.readLine();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        for (int i = 0; i < 3; i++) {
            assertThat(createConfigMap(h2, ns, "cm-" + i).version()).isEqualTo(HttpClient.Version.HTTP_2);
        }
        assertThat(seen.get(20, TimeUnit.SECONDS)).contains("\"type\":\"ADDED\"").contains("\"name\":\"cm-0\"");
    }

    /**
     * kubectl rollout status watches its Deployment and exits with the watch open; each time,
     * Tomcat used to hand that stream's request objects to the next stream before it was done
     * with them, and the next request (on any connection) failed inside Tomcat: 500 with an
     * empty body, which kubectl reports as InternalError (about 1 in 6 rounds).
     */
    @Test
    void aWatchKubectlLeavesOpenSpoilsNoOtherRequest(@TempDir Path dir) {
        String ns = "h2-rollout";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post("/apis/apps/v1/namespaces/" + ns + "/deployments", "{\"apiVersion\":\"apps/v1\",\"kind\":"
                + "\"Deployment\",\"metadata\":{\"name\":\"zero\"},\"spec\":{\"replicas\":0,\"selector\":"
                + "{\"matchLabels\":{\"app\":\"zero\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"zero\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}").code()).isIn(201, 409);
        Kubectl kubectl = new Kubectl(endpoints.adminKubeconfig(), dir);
        for (int round = 1; round <= 40; round++) {
            Kubectl.Run rolled = kubectl.run("-n", ns, "rollout", "status", "deployment/zero", "--timeout=30s");
            assertThat(rolled.exit()).as(rolled.all()).isZero();
            Kubectl.Run listed = kubectl.run("-n", ns, "get", "deployments", "-o", "name");
            assertThat(listed.exit()).as("round " + round + ": " + listed.all()).isZero();
            assertThat(listed.out()).contains("deployment.apps/zero");
        }
    }

    /**
     * A client that resets one watch stream (an informer stopped, a {@code get -w} ended) leaves
     * the connection and its other streams as they were, as Go's server does: the watch beside
     * it sees every write after each reset.
     */
    @Test
    void aWatchResetLeavesTheConnectionsOtherStreams() throws Exception {
        String ns = "h2-reset";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        HttpClient h2 = client(HttpClient.Version.HTTP_2);
        try (BufferedReader kept = new BufferedReader(new InputStreamReader(watchConfigMaps(h2, ns).body(),
                StandardCharsets.UTF_8))) {
            for (int i = 0; i < 5; i++) {
                HttpResponse<InputStream> reset = watchConfigMaps(h2, ns);
                createConfigMap(h2, ns, "r-" + i);
                new BufferedReader(new InputStreamReader(reset.body(), StandardCharsets.UTF_8)).readLine();
                reset.body().close(); // the JDK client resets the stream (RST_STREAM CANCEL)
                assertThat(kept.readLine()).as("round " + i).contains("\"name\":\"r-" + i + "\"");
            }
        }
    }
}

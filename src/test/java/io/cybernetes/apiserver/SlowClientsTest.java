package io.cybernetes.apiserver;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.context.TestPropertySource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nine hundred clients that announce a request body and then send it a byte at a time
 * (with a token, without one, over HTTP and HTTPS) hold no thread and no in-flight
 * slot: everyone else's requests are served as usual meanwhile, a refused request is
 * answered before its body, and a body that never arrives ends in a 504 Status.
 */
@TestPropertySource(properties = {
        "cybernetes.apiserver.request-timeout=15s",
        "spring.datasource.url=jdbc:h2:mem:slow-clients;DB_CLOSE_DELAY=-1",
        "cybernetes.auth.data-dir=./target/test-data/slow-clients"})
@ExtendWith(OutputCaptureExtension.class)
class SlowClientsTest extends ApiTestSupport {

    static final String NS = "slow-bodies";
    static final int BODY = 1 << 20;

    private final List<Socket> sockets = new ArrayList<>();
    private final ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void closeAll() throws IOException {
        trickle.shutdownNow();
        for (Socket s : sockets) {
            s.close();
        }
    }

    private SSLContext clusterCa() throws Exception {
        Path ca = endpoints.adminKubeconfig().getParent().resolve("pki/ca.crt");
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(ca))));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** Opens a connection that sends a request's head announcing a 1 MiB body, and the body's first byte. */
    private Socket slowPost(String token, SSLContext tls) throws Exception {
        Socket s = tls == null ? new Socket("127.0.0.1", endpoints.httpPort())
                : tls.getSocketFactory().createSocket("127.0.0.1", endpoints.httpsPort());
        s.setSoTimeout(10_000);
        if (s instanceof SSLSocket ssl) {
            ssl.startHandshake(); // a server with no thread left to spare completes no handshake
        }
        sockets.add(s);
        String head = "POST /api/v1/namespaces/" + NS + "/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + BODY + "\r\n"
                + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n{";
        s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    private static String statusLine(Socket s) throws IOException {
        s.setSoTimeout(30_000);
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            line.append((char) c);
        }
        return line.toString().trim();
    }

    private static HttpResponse<String> send(HttpClient client, String url, String token, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token);
        if (body != null) {
            b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void slowRequestBodiesStarveNobody(CapturedOutput log) throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + NS + "/rolebindings",
                RbacMatrixTest.binding("RoleBinding", "team-b-edit", "edit", "team-b")).code()).isIn(201, 409);
        eventually(() -> assertThat(callAs("bob-token", "GET", "/api/v1/namespaces/" + NS + "/configmaps", null, null,
                "application/json").code()).isEqualTo(200));
        SSLContext tls = clusterCa();

        List<Socket> unauthenticated = new ArrayList<>();
        List<Socket> authorized = new ArrayList<>();
        // on each port more slow senders than the server has request threads, more in all than its in-flight limit
        for (int i = 0; i < 300; i++) {
            authorized.add(slowPost("bob-token", null));
            authorized.add(slowPost("bob-token", tls));
            if (i % 2 == 0) {
                unauthenticated.add(slowPost(null, null));
                unauthenticated.add(slowPost(null, tls));
            }
        }
        Socket refused = slowPost("alice-token", null);
        trickle.scheduleAtFixedRate(() -> {
            for (Socket s : authorized) {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(' ');
                    out.flush();
                } catch (IOException closed) {
                    // a connection the server ended
                }
            }
        }, 1, 1, TimeUnit.SECONDS);

        assertThat(statusLine(unauthenticated.get(0))).isEqualTo("HTTP/1.1 401 Unauthorized");
        assertThat(statusLine(unauthenticated.get(1))).isEqualTo("HTTP/1.1 401 Unauthorized");
        assertThat(statusLine(refused)).as("a refused request is answered before its body").isEqualTo("HTTP/1.1 403 Forbidden");

        // Served means answered within ten seconds (they take milliseconds): a starved server answers late or never.
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpClient https = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < 20; i++) {
            assertThat(send(http, "http://127.0.0.1:" + endpoints.httpPort() + "/api/v1/namespaces/" + NS
                    + "/configmaps", token(), null).statusCode()).isEqualTo(200);
            assertThat(send(https, "https://127.0.0.1:" + endpoints.httpsPort() + "/api/v1/namespaces", token(), null)
                    .statusCode()).isEqualTo(200);
            HttpResponse<String> bob = send(http, "http://127.0.0.1:" + endpoints.httpPort() + "/api/v1/namespaces/"
                    + NS + "/configmaps", "bob-token", "{\"metadata\":{\"generateName\":\"quick-\"}}");
            assertThat(bob.statusCode()).as("the slow bodies hold no in-flight slot: " + bob.body()).isEqualTo(201);
        }

        Socket slow = authorized.get(0);
        String timedOut = statusLine(slow);
        assertThat(timedOut).isEqualTo("HTTP/1.1 504 Gateway Timeout");
        String rest = new String(slow.getInputStream().readNBytes(2000), StandardCharsets.UTF_8);
        assertThat(rest).contains("\"reason\":\"Timeout\"", "Timeout: request did not complete within the allotted timeout");
        assertThat(log.getOut()).as("the log tells how much of which body came")
                .containsPattern("POST /api/v1/namespaces/" + NS + "/configmaps over HTTP/1.1: \\d+ bytes of the request body arrived within PT15S"
                        + " \\(" + BODY + " announced\\); answered 504");
    }

    @Test
    void aBodyOverTheLimitIsRefusedBeforeItIsRead() throws Exception {
        Socket s = new Socket("127.0.0.1", endpoints.httpPort());
        sockets.add(s);
        s.getOutputStream().write(("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nContent-Length: 104857600\r\nAuthorization: Bearer " + token()
                + "\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
        assertThat(statusLine(s)).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
    }

    @Test
    void aBodyThatArrivesInPiecesIsServedWholeAsOneThatCameWithItsHeaders() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        for (boolean inPieces : new boolean[] {true, false}) {
            String name = inPieces ? "in-pieces" : "at-once";
            byte[] body = ("{\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"k\":\"" + "v".repeat(5000)
                    + "\"}}").getBytes(StandardCharsets.UTF_8);
            Socket s = new Socket("127.0.0.1", endpoints.httpPort());
            sockets.add(s);
            OutputStream out = s.getOutputStream();
            out.write(("POST /api/v1/namespaces/" + NS + "/configmaps HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\nAuthorization: Bearer "
                    + token() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            if (inPieces) {
                out.write(body, 0, 100);
                out.flush();
                Thread.sleep(300); // the first piece is taken at once, the rest read as it comes
                out.write(body, 100, body.length - 100);
            } else {
                out.write(body);
            }
            out.flush();
            assertThat(statusLine(s)).as(name).isEqualTo("HTTP/1.1 201 Created");
            assertThat(get("/api/v1/namespaces/" + NS + "/configmaps/" + name).json().path("data").path("k")
                    .asString()).hasSize(5000);
        }
    }
}

package io.cybernetes.bench;

import com.sun.net.httpserver.HttpServer;
import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.KubeletApi;
import io.cybernetes.api.WebSocketConnection;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.apiserver.ApiServerEndpoints;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 18's streams ({@code -Pbench -Dbench.only=streams}), each through the API server
 * (authentication, RBAC, the proxy to the node) and straight to the node's kubelet endpoint
 * (its client certificate): log lines per second delivered to {@code bench.followers} (100)
 * concurrent followers of one pod's log; exec round trips ({@code echo hi}, one WebSocket
 * each, sequential) p50/p99; and port-forward throughput of one connection fetching
 * {@code bench.forwardMiB} (256) MiB from a process behind the pod.
 */
final class StreamsBenchmark {

    private static final String NS = "bench-streams";
    private final String adminToken;
    private final int https;
    private final SSLContext trustCa;
    private final SSLContext kubeletClient;
    private final HttpClient apiHttp;
    private final HttpClient nodeHttp;

    StreamsBenchmark(ConfigurableApplicationContext ctx, String adminToken, Path pki) throws Exception {
        this.adminToken = adminToken;
        this.https = ctx.getBean(ApiServerEndpoints.class).httpsPort();
        CertificateAuthority ca = CertificateAuthority.of(X509Certificates.readCertificate(pki.resolve("ca.crt")),
                X509Certificates.readPrivateKey(pki.resolve("ca.key")));
        KeyStore none = KeyStore.getInstance("PKCS12");
        none.load(null, null);
        this.trustCa = ca.tls(none);
        this.kubeletClient = ca.tls(ca.issue(KubeletApi.CLIENT_SUBJECT, X509Certificates.Purpose.CLIENT, List.of(),
                Duration.ofDays(1)));
        ExecutorService pool = Executors.newCachedThreadPool();
        this.apiHttp = HttpClient.newBuilder().sslContext(trustCa).version(HttpClient.Version.HTTP_1_1).executor(pool)
                .build();
        this.nodeHttp = HttpClient.newBuilder().sslContext(kubeletClient).version(HttpClient.Version.HTTP_1_1)
                .executor(pool).build();
    }

    private HttpResponse<String> api(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + https + path))
                .header("Authorization", "Bearer " + adminToken).header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return apiHttp.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    void run() throws Exception {
        api("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + NS + "\"}}");
        HttpServer backend = bigBackend();
        api("POST", "/api/v1/namespaces/" + NS + "/pods", "{\"metadata\":{\"name\":\"talker\",\"annotations\":{"
                + "\"cybernetes.io/log-script\":\"line {n} of the benchmark's chatty container\\nsleep 50us\\nrepeat\","
                + "\"port-forward.cybernetes.io/9000\":\"127.0.0.1:" + backend.getAddress().getPort() + "\"}},"
                + "\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}");
        JsonNode pod;
        do {
            Thread.sleep(200);
            pod = io.cybernetes.api.Json.MAPPER.readTree(api("GET", "/api/v1/namespaces/" + NS + "/pods/talker", null)
                    .body());
        } while (!"Running".equals(pod.path("status").path("phase").asString()));
        JsonNode node = io.cybernetes.api.Json.MAPPER.readTree(api("GET", "/api/v1/nodes/"
                + pod.path("spec").path("nodeName").asString(), null).body());
        String kubelet = "127.0.0.1:" + node.path("status").path("daemonEndpoints").path("kubeletEndpoint")
                .path("Port").asInt();
        String podPath = "/api/v1/namespaces/" + NS + "/pods/talker";
        int followers = Integer.getInteger("bench.followers", 100);
        System.out.printf(Locale.ROOT, "streams: one pod, its node's kubelet endpoint at %s%n", kubelet);

        double viaApi = follow(followers, URI.create("https://127.0.0.1:" + https + podPath
                + "/log?follow=true&sinceSeconds=1"), apiHttp, true);
        double direct = follow(followers, URI.create("https://" + kubelet + KubeletApi.CONTAINER_LOGS + NS
                + "/talker/c?follow=true&sinceSeconds=1"), nodeHttp, false);
        System.out.printf(Locale.ROOT, "logs -f, %d followers: %,.0f lines/s through the API server, %,.0f lines/s"
                + " from the node directly (%.2f)%n", followers, viaApi, direct, viaApi / direct);

        double[] apiExec = exec(URI.create("wss://127.0.0.1:" + https + podPath
                + "/exec?command=echo&command=hi&stdout=true"), trustCa, true);
        double[] nodeExec = exec(URI.create("wss://" + kubelet + KubeletApi.EXEC + NS
                + "/talker/c?command=echo&command=hi&output=1"), kubeletClient, false);
        System.out.printf(Locale.ROOT, "exec round trip (echo hi): p50 %.1f ms p99 %.1f ms through the API server,"
                + " p50 %.1f ms p99 %.1f ms from the node directly%n", apiExec[0], apiExec[1], nodeExec[0], nodeExec[1]);

        int mib = Integer.getInteger("bench.forwardMiB", 256);
        double apiMbs = forward(URI.create("wss://127.0.0.1:" + https + podPath + "/portforward?ports=9000"), trustCa,
                true, mib);
        double nodeMbs = forward(URI.create("wss://" + kubelet + KubeletApi.PORT_FORWARD + NS + "/talker?port=9000"),
                kubeletClient, false, mib);
        System.out.printf(Locale.ROOT, "port-forward, one connection, %d MiB: %.1f MB/s through the API server,"
                + " %.1f MB/s from the node directly (%.2f)%n", mib, apiMbs, nodeMbs, apiMbs / nodeMbs);
        backend.stop(0);
    }

    /** Lines per second all followers together receive over 10 s after a 2 s warm-up. */
    private double follow(int n, URI uri, HttpClient http, boolean bearer) throws Exception {
        AtomicLong lines = new AtomicLong();
        AtomicLong counting = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<?>> all = new ArrayList<>();
        List<InputStream> streams = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            all.add(pool.submit(() -> {
                HttpRequest.Builder b = HttpRequest.newBuilder(uri);
                if (bearer) {
                    b.header("Authorization", "Bearer " + adminToken);
                }
                InputStream in = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()).body();
                streams.add(in);
                byte[] buf = new byte[64 * 1024];
                int r;
                while ((r = in.read(buf)) >= 0) {
                    if (counting.get() == 1) {
                        long nl = 0;
                        for (int k = 0; k < r; k++) {
                            if (buf[k] == '\n') {
                                nl++;
                            }
                        }
                        lines.addAndGet(nl);
                    }
                }
                return null;
            }));
        }
        Thread.sleep(2000);
        counting.set(1);
        long start = System.nanoTime();
        Thread.sleep(10_000);
        counting.set(2);
        double seconds = (System.nanoTime() - start) / 1e9;
        for (InputStream in : streams) {
            try {
                in.close();
            } catch (Exception e) {
                // closing a stream still being read
            }
        }
        pool.shutdownNow();
        return lines.get() / seconds;
    }

    /** p50 and p99 in ms of 200 execs of {@code echo hi} (after 20 to warm up): handshake to the session's end. */
    private double[] exec(URI uri, SSLContext tls, boolean bearer) throws Exception {
        Map<String, String> headers = bearer ? Map.of("Authorization", "Bearer " + adminToken) : Map.of();
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < 220; i++) {
            long t0 = System.nanoTime();
            WebSocketConnection ws = WebSocketConnection.connect(tls, uri, List.of("v5.channel.k8s.io"), headers,
                    Duration.ofSeconds(30));
            StringBuilder out = new StringBuilder();
            WebSocketConnection.Message m;
            while ((m = ws.read()) != null) {
                if (m.data().length > 1 && m.data()[0] == 1) {
                    out.append(new String(m.data(), 1, m.data().length - 1, StandardCharsets.UTF_8));
                }
            }
            ws.close(1000, "");
            if (!out.toString().equals("hi\n")) {
                throw new IllegalStateException("exec printed " + out);
            }
            if (i >= 20) {
                ms.add((System.nanoTime() - t0) / 1e6);
            }
        }
        double[] sorted = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new double[] {sorted[sorted.length / 2], sorted[(int) (sorted.length * 0.99)]};
    }

    /** MB/s of one forwarded connection fetching {@code mib} MiB from the backend (the channel protocol). */
    private double forward(URI uri, SSLContext tls, boolean bearer, int mib) throws Exception {
        Map<String, String> headers = bearer ? Map.of("Authorization", "Bearer " + adminToken) : Map.of();
        WebSocketConnection ws = WebSocketConnection.connect(tls, uri, List.of("v4.channel.k8s.io"), headers,
                Duration.ofSeconds(30));
        byte[] get = ("GET /bytes/" + mib + " HTTP/1.1\r\nHost: backend\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        byte[] m = new byte[get.length + 1];
        System.arraycopy(get, 0, m, 1, get.length);
        long t0 = System.nanoTime();
        ws.sendBinary(m);
        long bytes = 0;
        long want = (long) mib << 20;
        WebSocketConnection.Message msg;
        while (bytes < want && (msg = ws.read()) != null) {
            if (msg.data().length > 3 && msg.data()[0] == 0) {
                bytes += msg.data().length - 1;
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        ws.close(1000, "");
        return bytes / seconds / 1e6;
    }

    /** A local HTTP server answering /bytes/N with N MiB. */
    private static HttpServer bigBackend() throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] chunk = new byte[1 << 20];
        Arrays.fill(chunk, (byte) 'x');
        s.createContext("/bytes/", ex -> {
            int n = Integer.parseInt(ex.getRequestURI().getPath().substring(7));
            ex.sendResponseHeaders(200, (long) n << 20);
            try (OutputStream out = ex.getResponseBody()) {
                for (int i = 0; i < n; i++) {
                    out.write(chunk);
                }
            }
        });
        s.setExecutor(Executors.newCachedThreadPool());
        s.start();
        return s;
    }
}

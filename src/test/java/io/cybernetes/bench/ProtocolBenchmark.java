package io.cybernetes.bench;

import io.cybernetes.apiserver.ApiServerEndpoints;
import org.springframework.context.ConfigurableApplicationContext;

import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;

/**
 * The same creates and watches over HTTP/2 and over HTTP/1.1 in one run ({@code
 * -Pbench -Dbench.only=http2}), both from the JDK's HttpClient so only the protocol
 * differs: 16 clients creating 1 KiB ConfigMaps (over HTTP/1.1 one connection each, over
 * HTTP/2 streams of one connection, as client-go shares one), then {@code bench.watchers}
 * (500) watches while 200 objects a second are written (over HTTP/2, {@code bench.h2Streams}
 * watches to a connection, 200 unless set: within the server's 250 streams, as Go's transport
 * opens another connection when one is full).
 */
final class ProtocolBenchmark {

    private static final int CLIENTS = 16;
    private static final int STREAMS_PER_CONNECTION = Integer.getInteger("bench.h2Streams", 200);
    private static final String PAYLOAD = "x".repeat(900);

    private final String base;
    private final String token;
    private final SSLContext ssl;

    ProtocolBenchmark(ConfigurableApplicationContext ctx, String adminToken, Path pki) throws Exception {
        this.base = "https://127.0.0.1:" + ctx.getBean(ApiServerEndpoints.class).httpsPort();
        this.token = adminToken;
        this.ssl = Benchmark.trustingClusterCa(pki);
    }

    private HttpClient client(HttpClient.Version version) {
        return HttpClient.newBuilder().sslContext(ssl).version(version).executor(Executors.newCachedThreadPool())
                .build();
    }

    void run() throws Exception {
        Duration run = Duration.ofSeconds(Long.getLong("bench.seconds", 10));
        int watchers = Integer.getInteger("bench.watchers", 500);
        int rate = Integer.getInteger("bench.rate", 200);
        HttpClient h1 = client(HttpClient.Version.HTTP_1_1);
        HttpClient h2 = client(HttpClient.Version.HTTP_2);
        HttpResponse<String> ns = send(h2, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"bench-h2\"}}");
        if (ns.version() != HttpClient.Version.HTTP_2) {
            throw new IllegalStateException("the server did not speak HTTP/2: " + ns.version());
        }
        String path = "/api/v1/namespaces/bench-h2/configmaps";
        Load.timed(CLIENTS, Duration.ofSeconds(3), i -> create(h1, path, "warm1-" + i));
        Load.timed(CLIENTS, Duration.ofSeconds(3), i -> create(h2, path, "warm2-" + i));
        Load.Result c1 = Load.timed(CLIENTS, run, i -> create(h1, path, "h1-" + i));
        Load.Result c2 = Load.timed(CLIENTS, run, i -> create(h2, path, "h2-" + i));
        WatchDelivery.Result w1 = watch(HttpClient.Version.HTTP_1_1, h1, watchers, rate, (int) run.toSeconds());
        WatchDelivery.Result w2 = watch(HttpClient.Version.HTTP_2, h2, watchers, rate, (int) run.toSeconds());
        WatchDelivery.Result w3 = watchOneReader(h2, watchers, rate, (int) run.toSeconds());
        System.out.println();
        System.out.printf(Locale.ROOT, "HTTP/2 against HTTP/1.1, JDK HttpClient, %d cores%n%n",
                Runtime.getRuntime().availableProcessors());
        System.out.println(Load.HEADER);
        System.out.println(Load.RULE);
        c1.print("API create, HTTP/1.1 (16 connections)");
        c2.print("API create, HTTP/2 (16 streams, one connection)");
        System.out.printf(Locale.ROOT, "%ncreates HTTP/2 / HTTP/1.1 = %.2f%n", c2.rate() / c1.rate());
        w1.print("watch delivery over HTTP/1.1 (a connection each)", watchers, rate, (int) run.toSeconds());
        w2.print("watch delivery over HTTP/2 (" + STREAMS_PER_CONNECTION + " streams a connection)", watchers, rate,
                (int) run.toSeconds());
        w3.print("watch delivery over HTTP/2 (" + STREAMS_PER_CONNECTION + " streams a connection, one reader thread"
                + " a connection as Go's transport)", watchers, rate, (int) run.toSeconds());
    }

    private WatchDelivery.Result watch(HttpClient.Version version, HttpClient writer, int watchers, int rate,
                                       int seconds) throws Exception {
        String ns = "bench-watch-" + (version == HttpClient.Version.HTTP_2 ? "h2" : "h1");
        send(writer, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}");
        String list = send(writer, "GET", "/api/v1/namespaces/" + ns + "/configmaps", null).body();
        String rv = io.cybernetes.api.Json.MAPPER.readTree(list).at("/metadata/resourceVersion").asString();
        List<HttpClient> connections = new ArrayList<>();
        return WatchDelivery.run(watchers, rate, seconds, n -> {
            HttpClient c;
            if (version == HttpClient.Version.HTTP_1_1) {
                c = writer;
            } else {
                if (n % STREAMS_PER_CONNECTION == 0) {
                    connections.add(client(version));
                }
                c = connections.get(connections.size() - 1);
            }
            HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/api/v1/namespaces/" + ns
                    + "/configmaps?watch=true&resourceVersion=" + rv)).header("Authorization", "Bearer " + token)
                    .header("Accept", "application/json").build();
            try {
                HttpResponse<InputStream> r = c.send(req, HttpResponse.BodyHandlers.ofInputStream());
                if (r.version() != version) {
                    throw new IllegalStateException("watch over " + r.version() + ", not " + version);
                }
                return r.body();
            } catch (InterruptedException e) {
                throw new java.io.InterruptedIOException();
            }
        }, WatchDelivery.sentField(), writes(writer, ns), false);
    }

    /**
     * The same watches over HTTP/2 read as client-go reads them ({@link H2Watches}): what the server's writing
     * costs, without the JDK HttpClient's frame handling.
     */
    private WatchDelivery.Result watchOneReader(HttpClient writer, int watchers, int rate, int seconds)
            throws Exception {
        String ns = "bench-watch-h2-raw";
        send(writer, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}");
        String list = send(writer, "GET", "/api/v1/namespaces/" + ns + "/configmaps", null).body();
        String rv = io.cybernetes.api.Json.MAPPER.readTree(list).at("/metadata/resourceVersion").asString();
        int port = URI.create(base).getPort();
        List<H2Watches> connections = new ArrayList<>();
        try {
            return WatchDelivery.run(watchers, rate, seconds, n -> {
                if (n % STREAMS_PER_CONNECTION == 0) {
                    connections.add(new H2Watches(ssl.getSocketFactory(), port));
                }
                return connections.get(connections.size() - 1).open("/api/v1/namespaces/" + ns
                        + "/configmaps?watch=true&resourceVersion=" + rv, token);
            }, WatchDelivery.sentField(), writes(writer, ns), false);
        } finally {
            for (H2Watches c : connections) {
                c.close();
            }
        }
    }

    /** The watched writes: ConfigMap n in {@code ns}, carrying its send time. */
    private WatchDelivery.Writer writes(HttpClient writer, String ns) {
        return (n, sent) -> {
            HttpResponse<String> r = send(writer, "POST", "/api/v1/namespaces/" + ns + "/configmaps",
                    "{\"metadata\":{\"name\":\"w" + n + "\"},\"data\":{\"sent\":\"" + sent + "\"}}");
            if (r.statusCode() != 201) {
                throw new IllegalStateException("write: " + r.statusCode() + " " + r.body());
            }
        };
    }

    private void create(HttpClient c, String path, String name) throws Exception {
        HttpResponse<String> r = send(c, "POST", path, "{\"metadata\":{\"name\":\"" + name + "\"},\"data\":"
                + "{\"payload\":\"" + PAYLOAD + "\"}}");
        if (r.statusCode() != 201) {
            throw new IllegalStateException("create: " + r.statusCode() + " " + r.body());
        }
    }

    private HttpResponse<String> send(HttpClient c, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}

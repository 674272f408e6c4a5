package io.cybernetes.store.internal;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The server while its PostgreSQL is out of reach (a proxy between them drops every
 * connection and refuses new ones): requests that need the database are refused with 503
 * and Retry-After after the connection timeout instead of hanging, /readyz names the failing
 * database check while /livez stays ok, reads the watch cache can serve are served, and
 * everything works again by itself once the database is back, nothing acknowledged lost.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseOutageTest {

    private ProxiedServer server;
    private final String ns = "outage-" + System.nanoTime();

    @BeforeAll
    void start() throws Exception {
        server = ProxiedServer.start("outage", Duration.ofSeconds(2));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<String> call(String method, String path, String body) throws Exception {
        return server.call(method, path, body);
    }

    private static String configMap(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"k\":\"v\"}}";
    }

    @Test
    void anOutageIsRefusedQuicklyAndHealsByItself() throws Exception {
        String cms = "/api/v1/namespaces/" + ns + "/configmaps";
        assertThat(call("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}").statusCode())
                .isEqualTo(201);
        HttpResponse<String> before = call("POST", cms, configMap("before"));
        assertThat(before.statusCode()).isEqualTo(201);
        assertThat(call("GET", "/readyz", null).body()).isEqualTo("ok");
        // a watch open across the outage, from the revision of the last write before it
        Matcher found = Pattern.compile("\"resourceVersion\":\"(\\d+)\"").matcher(before.body());
        assertThat(found.find()).isTrue();
        String rv = found.group(1);
        java.util.List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpRequest watch = HttpRequest.newBuilder(URI.create(server.base + cms + "?watch=true&resourceVersion=" + rv))
                .header("Authorization", "Bearer " + server.token).build();
        // read on a thread of its own: a response that has come already would run a plain thenAccept on this one
        var stream = server.http.sendAsync(watch, HttpResponse.BodyHandlers.ofLines())
                .thenAcceptAsync(r -> r.body().forEach(events::add), java.util.concurrent.Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "outage-watch");
                            t.setDaemon(true);
                            return t;
                        }));

        long cut = System.nanoTime();
        server.proxy.cut();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            HttpResponse<String> ready = call("GET", "/readyz", null);
            assertThat(ready.statusCode()).isEqualTo(500);
            assertThat(ready.body()).isEqualTo("[+]ping ok\n[+]log ok\n[-]database failed: reason withheld\n"
                    + "readyz check failed\n");
        });
        System.out.printf("/readyz not ready %d ms after the database went away%n", (System.nanoTime() - cut) / 1_000_000);
        HttpResponse<String> live = call("GET", "/livez?verbose", null);
        assertThat(live.statusCode()).as("restarting the server would not bring the database back").isEqualTo(200);
        assertThat(live.body()).isEqualTo("[+]ping ok\n[+]log ok\nlivez check passed\n");

        long start = System.nanoTime();
        HttpResponse<String> refused = call("POST", cms, configMap("during"));
        System.out.printf("a write refused after %d ms%n", (System.nanoTime() - start) / 1_000_000);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.body()).contains("\"reason\":\"ServiceUnavailable\"").contains("the database is unavailable")
                .doesNotContain("Exception");
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        HttpResponse<String> consistentRead = call("GET", cms + "/before", null);
        assertThat(consistentRead.statusCode()).as(consistentRead.body()).isEqualTo(503);
        HttpResponse<String> cachedList = call("GET", cms + "?resourceVersion=0", null);
        assertThat(cachedList.statusCode()).as("the watch cache serves it").isEqualTo(200);
        assertThat(cachedList.body()).contains("\"before\"").doesNotContain("\"during\"");

        server.proxy.restore();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(call("GET", "/readyz", null).body()).isEqualTo("ok"));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(call("POST", cms, configMap("after")).statusCode()).isIn(201, 409));
        assertThat(call("GET", cms + "/before", null).statusCode()).isEqualTo(200);
        assertThat(call("GET", cms + "/during", null).statusCode()).as("a refused write stored nothing").isEqualTo(404);
        // the watch stayed open and goes on where it was, in order, nothing refused in it
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(events).hasSize(1));
        assertThat(events.get(0)).startsWith("{\"type\":\"ADDED\"").contains("\"name\":\"after\"");
        assertThat(stream.isDone()).as("the watch is still open").isFalse();
        stream.cancel(true);
    }
}

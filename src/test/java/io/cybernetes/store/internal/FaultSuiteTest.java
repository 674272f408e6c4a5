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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Database faults under a steady load, the store as the judge: writers create objects and
 * increment a shared counter (retrying on conflict and on 503), watchers follow the
 * namespace (resuming from their last revision when a stream ends), while the database is
 * cut off for a while, or its connections are dropped mid-transaction. Afterwards: no
 * acknowledged write lost, no lost update, no watch event lost, duplicated or out of order.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultSuiteTest {

    private static final Pattern RV = Pattern.compile("\"resourceVersion\":\"(\\d+)\"");

    private ProxiedServer server;

    @BeforeAll
    void start() throws Exception {
        server = new ProxiedServer("faults", Duration.ofSeconds(1));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<String> call(String method, String path, String contentType, String body) throws Exception {
        return server.call(method, path, body);
    }

    private static long rv(String body) {
        Matcher m = RV.matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** What a run of load saw: acknowledged creates (name to revision) and increments of the counter. */
    private record Load(Map<String, Long> acknowledged, AtomicLong increments, AtomicLong ambiguous,
                        AtomicLong refused, AtomicBoolean stop, List<Thread> threads) {
    }

    private Load startLoad(String ns, String cms) {
        Load load = new Load(new ConcurrentHashMap<>(), new AtomicLong(), new AtomicLong(), new AtomicLong(),
                new AtomicBoolean(), new ArrayList<>());
        for (int w = 0; w < 3; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                for (int i = 0; !load.stop().get(); i++) {
                    String name = "w" + writer + "-" + i;
                    try {
                        HttpResponse<String> r = call("POST", cms, "application/json", "{\"metadata\":{\"name\":\""
                                + name + "\"},\"data\":{\"i\":\"" + i + "\"}}");
                        if (r.statusCode() == 201) {
                            load.acknowledged().put(name, rv(r.body()));
                        } else {
                            load.refused().incrementAndGet();
                            Thread.sleep(100);
                        }
                        increment(cms, load);
                    } catch (Exception e) {
                        load.refused().incrementAndGet();
                    }
                }
            });
            t.start();
            load.threads().add(t);
        }
        return load;
    }

    /** One increment of the shared counter, read-modify-write at the revision read, retried until it is stored. */
    private void increment(String cms, Load load) throws Exception {
        for (int attempt = 0; attempt < 200 && !load.stop().get(); attempt++) {
            HttpResponse<String> cur = call("GET", cms + "/counter", "application/json", null);
            if (cur.statusCode() != 200) {
                load.refused().incrementAndGet();
                Thread.sleep(100);
                continue;
            }
            Matcher v = Pattern.compile("\"n\":\"(\\d+)\"").matcher(cur.body());
            assertThat(v.find()).isTrue();
            long n = Long.parseLong(v.group(1));
            HttpResponse<String> put = call("PUT", cms + "/counter", "application/json", "{\"metadata\":{\"name\":"
                    + "\"counter\",\"resourceVersion\":\"" + rv(cur.body()) + "\"},\"data\":{\"n\":\"" + (n + 1) + "\"}}");
            if (put.statusCode() == 200) {
                load.increments().incrementAndGet();
                return;
            }
            if (put.statusCode() == 500) {
                // lost while committing: stored or not, nobody can say; another try would be another increment
                load.ambiguous().incrementAndGet();
                return;
            }
            if (put.statusCode() != 409) {
                load.refused().incrementAndGet();
                Thread.sleep(100);
            }
        }
    }

    /** A watcher of the namespace that resumes from its last revision whenever its stream ends. */
    private List<long[]> watch(String cms, long from, AtomicBoolean stop) {
        List<long[]> seen = new CopyOnWriteArrayList<>();
        Thread t = new Thread(() -> {
            long last = from;
            while (!stop.get()) {
                try {
                    HttpResponse<java.util.stream.Stream<String>> r = server.http.send(HttpRequest.newBuilder(
                                    URI.create(server.base + cms + "?watch=true&timeoutSeconds=5&resourceVersion=" + last))
                            .header("Authorization", "Bearer " + server.token).build(),
                            HttpResponse.BodyHandlers.ofLines());
                    if (r.statusCode() != 200) {
                        Thread.sleep(200);
                        continue;
                    }
                    for (String line : (Iterable<String>) r.body()::iterator) {
                        if (line.contains("\"type\":\"ERROR\"")) {
                            seen.add(new long[] {-1});
                            continue;
                        }
                        long rev = rv(line);
                        seen.add(new long[] {rev});
                        last = rev;
                    }
                } catch (Exception e) {
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException stopped) {
                        return;
                    }
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return seen;
    }

    private void judge(String scenario, String ns, String cms, Load load, List<List<long[]>> watchers,
                       long healedAt) throws Exception {
        long firstWrite = -1;
        await().atMost(Duration.ofSeconds(60)).until(() -> load.acknowledged().size() > 0
                && call("POST", cms, "application/json", "{\"metadata\":{\"generateName\":\"probe-\"}}").statusCode() == 201);
        firstWrite = (System.nanoTime() - healedAt) / 1_000_000;
        Thread.sleep(1000);
        load.stop().set(true);
        for (Thread t : load.threads()) {
            t.join(60_000);
        }
        long lost = 0;
        for (String name : load.acknowledged().keySet()) {
            if (call("GET", cms + "/" + name, "application/json", null).statusCode() != 200) {
                lost++;
            }
        }
        HttpResponse<String> counter = call("GET", cms + "/counter", "application/json", null);
        Matcher v = Pattern.compile("\"n\":\"(\\d+)\"").matcher(counter.body());
        assertThat(v.find()).isTrue();
        long maxAck = load.acknowledged().values().stream().mapToLong(Long::longValue).max().orElse(0);
        for (List<long[]> seen : watchers) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty() && seen.get(seen.size() - 1)[0] >= maxAck);
        }
        System.out.printf("%s: %d writes acknowledged, %d refused, %d increments (%d of unknown outcome); writes"
                + " succeed again %d ms after the database is back%n", scenario, load.acknowledged().size(),
                load.refused().get(), load.increments().get(), load.ambiguous().get(), firstWrite);
        assertThat(lost).as(scenario + ": acknowledged writes lost").isZero();
        assertThat(Long.parseLong(v.group(1))).as(scenario + ": lost updates (the counter has every acknowledged"
                + " increment, and at most the ones whose commit was lost on the way)")
                .isBetween(load.increments().get(), load.increments().get() + load.ambiguous().get());
        for (List<long[]> seen : watchers) {
            java.util.Set<Long> revisions = new java.util.HashSet<>();
            long previous = 0;
            for (long[] e : seen) {
                assertThat(e[0]).as(scenario + ": no ERROR event in a short outage").isNotEqualTo(-1);
                assertThat(e[0]).as(scenario + ": watch events in order, none twice").isGreaterThan(previous);
                previous = e[0];
                revisions.add(e[0]);
            }
            for (long ack : load.acknowledged().values()) {
                assertThat(revisions).as(scenario + ": the watch saw every acknowledged write").contains(ack);
            }
        }
    }

    private String namespace(String name) throws Exception {
        String ns = name + "-" + System.nanoTime();
        assertThat(call("POST", "/api/v1/namespaces", "application/json", "{\"metadata\":{\"name\":\"" + ns + "\"}}")
                .statusCode()).isEqualTo(201);
        String cms = "/api/v1/namespaces/" + ns + "/configmaps";
        assertThat(call("POST", cms, "application/json", "{\"metadata\":{\"name\":\"counter\"},\"data\":{\"n\":\"0\"}}")
                .statusCode()).isEqualTo(201);
        return ns;
    }

    @Test
    void theDatabaseCutOffForTwentySeconds() throws Exception {
        String ns = namespace("cutoff");
        String cms = "/api/v1/namespaces/" + ns + "/configmaps";
        long from = rv(call("GET", cms, "application/json", null).body());
        AtomicBoolean stopWatching = new AtomicBoolean();
        List<List<long[]>> watchers = List.of(watch(cms, from, stopWatching), watch(cms, from, stopWatching));
        Load load = startLoad(ns, cms);
        Thread.sleep(2000);
        server.proxy.cut();
        Thread.sleep(20_000);
        server.proxy.restore();
        judge("database cut off for 20 s", ns, cms, load, watchers, System.nanoTime());
        stopWatching.set(true);
    }

    @Test
    void connectionsDroppedMidTransaction() throws Exception {
        String ns = namespace("dropped");
        String cms = "/api/v1/namespaces/" + ns + "/configmaps";
        long from = rv(call("GET", cms, "application/json", null).body());
        AtomicBoolean stopWatching = new AtomicBoolean();
        List<List<long[]>> watchers = List.of(watch(cms, from, stopWatching));
        Load load = startLoad(ns, cms);
        for (int i = 0; i < 5; i++) {
            Thread.sleep(700);
            server.proxy.cut();
            server.proxy.restore();
        }
        judge("connections dropped 5 times", ns, cms, load, watchers, System.nanoTime());
        stopWatching.set(true);
    }
}

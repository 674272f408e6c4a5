package io.cybernetes.store.internal;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A steady load on a server during a fault, the store as the judge: writers create objects
 * and increment a shared counter (retrying on conflict and on 503), watchers follow the
 * namespace (resuming from their last revision when a stream ends). {@link #judge} stops
 * it and checks: no acknowledged write lost, no lost update, no watch event lost,
 * duplicated or out of order.
 */
final class FaultLoad {

    private static final Pattern RV = Pattern.compile("\"resourceVersion\":\"(\\d+)\"");
    private static final Pattern N = Pattern.compile("\"n\":\"(\\d+)\"");

    private final InProcessServer server;
    private final String cms;
    /** Acknowledged creates: name to revision. */
    final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    final AtomicLong increments = new AtomicLong();
    /** Increments whose commit was lost on the way: stored or not, nobody can say. */
    final AtomicLong ambiguous = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    /** How long each acknowledged create took, in microseconds. */
    final List<Long> createMicros = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean stopWatching = new AtomicBoolean();
    private final List<Thread> writers = new ArrayList<>();
    private final List<List<Long>> watched = new ArrayList<>();

    private FaultLoad(InProcessServer server, String cms) {
        this.server = server;
        this.cms = cms;
    }

    /** A namespace with the counter in it, {@code watchers} watchers following it from now, and {@code writers} writers. */
    static FaultLoad start(InProcessServer server, String name, int writers, int watchers) throws Exception {
        String ns = name + "-" + System.nanoTime();
        assertThat(server.call("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}")
                .statusCode()).isEqualTo(201);
        FaultLoad load = new FaultLoad(server, "/api/v1/namespaces/" + ns + "/configmaps");
        assertThat(server.call("POST", load.cms, "{\"metadata\":{\"name\":\"counter\"},\"data\":{\"n\":\"0\"}}")
                .statusCode()).isEqualTo(201);
        long from = rv(server.call("GET", load.cms, null).body());
        for (int i = 0; i < watchers; i++) {
            load.watched.add(load.watch(from));
        }
        for (int w = 0; w < writers; w++) {
            int writer = w;
            Thread t = new Thread(() -> load.write(writer), "fault-writer-" + w);
            t.start();
            load.writers.add(t);
        }
        return load;
    }

    static long rv(String body) {
        Matcher m = RV.matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private void write(int writer) {
        for (int i = 0; !stop.get(); i++) {
            String name = "w" + writer + "-" + i;
            try {
                long t0 = System.nanoTime();
                HttpResponse<String> r = server.call("POST", cms, "{\"metadata\":{\"name\":\"" + name
                        + "\"},\"data\":{\"i\":\"" + i + "\"}}");
                if (r.statusCode() == 201) {
                    createMicros.add((System.nanoTime() - t0) / 1000);
                    acknowledged.put(name, rv(r.body()));
                } else {
                    refused.incrementAndGet();
                    Thread.sleep(100);
                }
                increment();
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                refused.incrementAndGet();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException stopped) {
                    return;
                }
            }
        }
    }

    /** One increment of the shared counter, read-modify-write at the revision read, retried until it is stored. */
    private void increment() throws Exception {
        for (int attempt = 0; attempt < 200 && !stop.get(); attempt++) {
            HttpResponse<String> cur = server.call("GET", cms + "/counter", null);
            if (cur.statusCode() != 200) {
                refused.incrementAndGet();
                Thread.sleep(100);
                continue;
            }
            Matcher v = N.matcher(cur.body());
            assertThat(v.find()).isTrue();
            long n = Long.parseLong(v.group(1));
            HttpResponse<String> put;
            try {
                put = server.call("PUT", cms + "/counter", "{\"metadata\":{\"name\":\"counter\","
                        + "\"resourceVersion\":\"" + rv(cur.body()) + "\"},\"data\":{\"n\":\"" + (n + 1) + "\"}}");
            } catch (java.io.IOException e) {
                // no answer: stored or not, nobody can say
                ambiguous.incrementAndGet();
                return;
            }
            if (put.statusCode() == 200) {
                increments.incrementAndGet();
                return;
            }
            if (put.statusCode() == 500) {
                // lost while committing: another try would be another increment
                ambiguous.incrementAndGet();
                return;
            }
            if (put.statusCode() != 409) {
                refused.incrementAndGet();
                Thread.sleep(100);
            }
        }
    }

    /** A watcher of the namespace that resumes from its last revision whenever its stream ends; -1 stands for an ERROR. */
    private List<Long> watch(long from) {
        List<Long> seen = new CopyOnWriteArrayList<>();
        ResumingWatcher.start("fault-watcher", server.http, last -> HttpRequest.newBuilder(
                        URI.create(server.base + cms + "?watch=true&timeoutSeconds=5&resourceVersion=" + last))
                .header("Authorization", "Bearer " + server.token).build(), from, stopWatching::get, (line, last) -> {
                    if (line.contains("\"type\":\"ERROR\"")) {
                        seen.add(-1L);
                        return last;
                    }
                    seen.add(rv(line));
                    return rv(line);
                });
        return seen;
    }

    /** Milliseconds from {@code since} (a {@link System#nanoTime}) until a write succeeds. */
    long awaitWrites(long since) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(() -> server.call("POST", cms,
                "{\"metadata\":{\"generateName\":\"probe-\"}}").statusCode() == 201);
        return (System.nanoTime() - since) / 1_000_000;
    }

    /** Stops the load once writes succeed again, then checks what the store holds and what the watchers saw. */
    void judge(String scenario, long healedAt) throws Exception {
        judge(scenario, healedAt, Duration.ofSeconds(1));
    }

    /** As {@link #judge(String, long)}, the load going on for {@code after} once writes succeed again. */
    void judge(String scenario, long healedAt, Duration after) throws Exception {
        try {
            check(scenario, healedAt, after);
        } finally {
            stop.set(true);
            stopWatching.set(true);
        }
    }

    private void check(String scenario, long healedAt, Duration after) throws Exception {
        long firstWrite = awaitWrites(healedAt);
        Thread.sleep(after.toMillis());
        stop.set(true);
        for (Thread t : writers) {
            t.join(60_000);
        }
        long lost = 0;
        for (String name : acknowledged.keySet()) {
            if (server.call("GET", cms + "/" + name, null).statusCode() != 200) {
                lost++;
            }
        }
        Matcher v = N.matcher(server.call("GET", cms + "/counter", null).body());
        assertThat(v.find()).isTrue();
        long maxAck = acknowledged.values().stream().mapToLong(Long::longValue).max().orElse(0);
        for (List<Long> seen : watched) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty() && seen.get(seen.size() - 1) >= maxAck);
        }
        System.out.printf("%s: %d writes acknowledged, %d refused, %d increments (%d of unknown outcome); writes"
                + " succeed again %d ms after the fault ends%n", scenario, acknowledged.size(), refused.get(),
                increments.get(), ambiguous.get(), firstWrite);
        assertThat(acknowledged).as(scenario + ": writes acknowledged").isNotEmpty();
        assertThat(lost).as(scenario + ": acknowledged writes lost").isZero();
        assertThat(Long.parseLong(v.group(1))).as(scenario + ": lost updates (the counter has every acknowledged"
                + " increment, and at most the ones whose commit was lost on the way)")
                .isBetween(increments.get(), increments.get() + ambiguous.get());
        for (List<Long> seen : watched) {
            Set<Long> revisions = new HashSet<>();
            long previous = 0;
            for (long e : seen) {
                assertThat(e).as(scenario + ": no ERROR event").isNotEqualTo(-1);
                assertThat(e).as(scenario + ": watch events in order, none twice").isGreaterThan(previous);
                previous = e;
                revisions.add(e);
            }
            assertThat(revisions).as(scenario + ": the watch saw every acknowledged write")
                    .containsAll(acknowledged.values());
        }
    }
}

package io.cybernetes.store.internal;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two replicas in processes of their own on PostgreSQL; the one that leads the controllers
 * and the scheduler is killed with {@code kill -9} (its Leases are not released). The other
 * takes both over when the Leases run out, a Deployment scaled afterwards gets exactly the
 * pods it asks for, each bound once, and a watcher of the killed replica resumes on the other
 * from its last revision with every event in order.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
class ReplicaKillTest {

    /** The replicas' directories, kept after the run for their logs. */
    private final Path dir = Path.of("target/test-data/replica-kill-" + System.nanoTime()).toAbsolutePath();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private HttpResponse<String> call(String base, String token, String method, String path, String contentType,
                                      String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + token).header("Content-Type", contentType);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Short Leases; the controllers' of a name of this run's own. The scheduler's keeps its
     * name: RBAC lets system:kube-scheduler update only the Lease kube-scheduler, as in Kubernetes.
     */
    private static List<String> electionSettings(String run) {
        List<String> s = new ArrayList<>();
        s.add("--cybernetes.controllers.leader-election.name=controllers-" + run);
        for (String who : List.of("controllers", "scheduler")) {
            s.add("--cybernetes." + who + ".leader-election.lease-duration=4s");
            s.add("--cybernetes." + who + ".leader-election.renew-deadline=3s");
            s.add("--cybernetes." + who + ".leader-election.retry-period=500ms");
        }
        return s;
    }

    /** A pod's watch events: name, revision, node name (empty until bound). */
    private record Seen(String name, long revision, String node) {
    }

    @Test
    void killingTheLeadingReplicaMovesItsWorkWithoutDoingAnyTwice() throws Exception {
        String run = Long.toString(System.nanoTime());
        List<String> a0 = new ArrayList<>(electionSettings(run));
        a0.add("--cybernetes.nodes.count=0");
        List<String> b0 = new ArrayList<>(electionSettings(run));
        // nodes of this run's own zone, which the pods ask for (the shared database may hold nodes of earlier runs)
        b0.addAll(List.of("--cybernetes.nodes.count=3", "--cybernetes.nodes.name-prefix=rk" + run + "-",
                "--cybernetes.nodes.zones=rk-" + run, "--cybernetes.nodes.startup-delay=200ms"));
        try (ReplicaProcess a = ReplicaProcess.start(dir.resolve("a"), a0)) {
            String tokenA = a.awaitReady(http);
            a.awaitLog("leads kube-system/controllers-" + run, Duration.ofSeconds(30));
            a.awaitLog("leads kube-system/kube-scheduler", Duration.ofSeconds(30));
            try (ReplicaProcess b = ReplicaProcess.start(dir.resolve("b"), b0)) {
                String tokenB = b.awaitReady(http);
                String ns = "rk-" + run;
                String pods = "/api/v1/namespaces/" + ns + "/pods";
                assertThat(call(b.base(), tokenB, "POST", "/api/v1/namespaces", "application/json",
                        "{\"metadata\":{\"name\":\"" + ns + "\"}}").statusCode()).isEqualTo(201);
                assertThat(call(b.base(), tokenB, "POST", "/apis/apps/v1/namespaces/" + ns + "/deployments",
                        "application/json", "{\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":3,\"selector\":"
                                + "{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":"
                                + "\"web\"}},\"spec\":{\"nodeSelector\":{\"topology.kubernetes.io/zone\":\"rk-" + run + "\"},"
                                + "\"containers\":[{\"name\":\"web\",\"image\":\"nginx\"}]}}}}")
                        .statusCode()).isEqualTo(201);
                await().atMost(Duration.ofSeconds(60)).until(() -> running(b.base(), tokenB, pods) == 3);

                // a watcher on the replica about to die, that moves to the other when its stream breaks
                java.util.concurrent.atomic.AtomicReferenceArray<String> target =
                        new java.util.concurrent.atomic.AtomicReferenceArray<>(new String[] {a.base(), tokenA});
                long from = Long.parseLong(Json.text(Json.MAPPER.readTree(call(b.base(), tokenB, "GET", pods,
                        "application/json", null).body()), "metadata.resourceVersion"));
                List<Seen> seen = new CopyOnWriteArrayList<>();
                AtomicBoolean stop = new AtomicBoolean();
                Thread watcher = watch(target, pods, from, seen, stop);

                long killed = System.nanoTime();
                a.kill();
                target.set(1, tokenB);
                target.set(0, b.base());
                b.awaitLog("leads kube-system/controllers-" + run, Duration.ofSeconds(30));
                b.awaitLog("leads kube-system/kube-scheduler", Duration.ofSeconds(30));
                System.out.printf("the other replica leads %d ms after kill -9 of the leader (Leases of 4 s)%n",
                        (System.nanoTime() - killed) / 1_000_000);

                assertThat(call(b.base(), tokenB, "PATCH", "/apis/apps/v1/namespaces/" + ns + "/deployments/web/scale",
                        "application/merge-patch+json", "{\"spec\":{\"replicas\":5}}").statusCode()).isEqualTo(200);
                await().atMost(Duration.ofSeconds(60)).until(() -> running(b.base(), tokenB, pods) == 5);
                Thread.sleep(3000);
                JsonNode list = Json.MAPPER.readTree(call(b.base(), tokenB, "GET", pods, "application/json", null).body());
                assertThat(list.path("items").size()).as("exactly the pods asked for, none over-created").isEqualTo(5);
                JsonNode sets = Json.MAPPER.readTree(call(b.base(), tokenB, "GET", "/apis/apps/v1/namespaces/" + ns
                        + "/replicasets", "application/json", null).body());
                assertThat(sets.path("items").size()).as("one ReplicaSet").isEqualTo(1);

                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(seenUpTo(seen, list, from))
                        .as("the watcher saw every pod as listed; it saw " + seen).isTrue());
                stop.set(true);
                watcher.interrupt();
                long previous = 0;
                Map<String, Set<String>> nodesOf = new HashMap<>();
                for (Seen e : seen) {
                    assertThat(e.revision()).as("watch events in order, none twice").isGreaterThan(previous);
                    previous = e.revision();
                    if (!e.node().isEmpty()) {
                        nodesOf.computeIfAbsent(e.name(), k -> new HashSet<>()).add(e.node());
                    }
                }
                nodesOf.forEach((pod, nodes) -> assertThat(nodes).as(pod + " bound once").hasSize(1));
                assertThat(nodesOf.keySet()).as("the watcher saw the new pods bound").hasSizeGreaterThanOrEqualTo(2);
            }
        }
    }

    /** Whether the watcher has seen every pod of the list that changed since it started, at its listed revision. */
    private static boolean seenUpTo(List<Seen> seen, JsonNode list, long from) {
        for (JsonNode p : list.path("items")) {
            long rev = Long.parseLong(p.path("metadata").path("resourceVersion").asString());
            String name = p.path("metadata").path("name").asString();
            if (rev <= from) {
                continue;
            }
            boolean any = seen.stream().anyMatch(e -> e.name().equals(name) && e.revision() >= rev);
            if (!any) {
                return false;
            }
        }
        return true;
    }

    private int running(String base, String token, String pods) throws Exception {
        HttpResponse<String> r = call(base, token, "GET", pods, "application/json", null);
        if (r.statusCode() != 200) {
            return -1;
        }
        int n = 0;
        for (JsonNode p : Json.MAPPER.readTree(r.body()).path("items")) {
            if ("Running".equals(p.path("status").path("phase").asString())
                    && !p.path("metadata").has("deletionTimestamp")) {
                n++;
            }
        }
        return n;
    }

    private Thread watch(java.util.concurrent.atomic.AtomicReferenceArray<String> target, String pods, long from,
                         List<Seen> seen, AtomicBoolean stop) {
        return ResumingWatcher.start("replica-kill-watcher", http, last -> HttpRequest.newBuilder(URI.create(
                        target.get(0) + pods + "?watch=true&timeoutSeconds=10&resourceVersion=" + last))
                .header("Authorization", "Bearer " + target.get(1)).build(), from, stop::get, (line, last) -> {
                    JsonNode o = Json.MAPPER.readTree(line).path("object");
                    long rev = Long.parseLong(o.path("metadata").path("resourceVersion").asString("0"));
                    seen.add(new Seen(o.path("metadata").path("name").asString(), rev,
                            o.path("spec").path("nodeName").asString("")));
                    return rev;
                });
    }
}

package io.cybernetes.store.internal;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Workloads through an outage of the control plane's database longer than the nodes' grace
 * period (5 s here): the simulated nodes keep their pods Running while the API refuses
 * writes, and afterwards the node lifecycle controller, having heard from no node, taints
 * none for eviction and evicts nothing (every zone fully disrupted: the trouble was its own),
 * the nodes report Ready again (those the controller found silent and wrote Unknown too), and
 * the Deployment has the same pods as before, none created twice.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseOutageWorkloadsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private ProxiedServer server;

    @BeforeAll
    void start() throws Exception {
        server = ProxiedServer.start("outage-workloads", Duration.ofSeconds(1), Map.of(
                "cybernetes.controllers.enabled", "true",
                "cybernetes.scheduler.enabled", "true",
                "cybernetes.nodes.count", "3",
                "cybernetes.nodes.name-prefix", "outage-node-",
                "cybernetes.nodes.zones", "outage-zone-a,outage-zone-b",
                "cybernetes.nodes.heartbeat", "1s",
                "cybernetes.nodes.startup-delay", "100ms",
                "cybernetes.controllers.node-monitor-grace-period", "5s"));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private JsonNode get(String path) throws Exception {
        return JSON.readTree(server.call("GET", path, null).body());
    }

    /** The Deployment's pods: name to phase, those being deleted marked. */
    private Map<String, String> pods(String ns) throws Exception {
        Map<String, String> out = new java.util.TreeMap<>();
        for (JsonNode p : get("/api/v1/namespaces/" + ns + "/pods?resourceVersion=0&labelSelector=app%3Dsteady").path("items")) {
            out.put(p.at("/metadata/name").asString(), p.at("/status/phase").asString()
                    + (p.path("metadata").has("deletionTimestamp") ? " (deleted)" : ""));
        }
        return out;
    }

    /** What a failed wait reports: the pods with their nodes and conditions, the nodes, the namespace's events. */
    private String state(String ns) throws Exception {
        StringBuilder out = new StringBuilder();
        for (JsonNode p : get("/api/v1/namespaces/" + ns + "/pods").path("items")) {
            out.append("\npod ").append(p.at("/metadata/name").asString()).append(" on ")
                    .append(p.at("/spec/nodeName").asString("-")).append(": ").append(p.at("/status/phase")
                            .asString()).append(' ').append(p.at("/status/conditions"));
        }
        for (JsonNode n : get("/api/v1/nodes").path("items")) {
            out.append("\nnode ").append(n.at("/metadata/name").asString()).append(' ').append(n.at("/spec/taints"))
                    .append(' ').append(n.at("/status/conditions"));
        }
        for (JsonNode e : get("/api/v1/namespaces/" + ns + "/events").path("items")) {
            out.append("\nevent ").append(e.path("reason").asString()).append(": ").append(e.path("message").asString());
        }
        out.append("\nreplicasets ").append(get("/apis/apps/v1/namespaces/" + ns + "/replicasets").path("items").size());
        return out.toString();
    }

    /** The outage's nodes as the watch cache has them. */
    private List<JsonNode> outageNodes() throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode n : get("/api/v1/nodes?resourceVersion=0").path("items")) {
            if (n.at("/metadata/name").asString().startsWith("outage-node-")) {
                out.add(n);
            }
        }
        return out;
    }

    /** Every taint on the outage's nodes, as key:effect. */
    private Set<String> taints() throws Exception {
        Set<String> out = new TreeSet<>();
        for (JsonNode n : outageNodes()) {
            for (JsonNode t : n.at("/spec/taints")) {
                out.add(t.path("key").asString() + ":" + t.path("effect").asString());
            }
        }
        return out;
    }

    /** The statuses of the outage's nodes' Ready conditions. */
    private Set<String> readyConditions() throws Exception {
        Set<String> out = new TreeSet<>();
        for (JsonNode n : outageNodes()) {
            for (JsonNode c : n.at("/status/conditions")) {
                if ("Ready".equals(c.path("type").asString())) {
                    out.add(c.path("status").asString());
                }
            }
        }
        return out;
    }

    @Test
    void podsKeepRunningAndNothingIsEvictedAfterAnOutageLongerThanTheGracePeriod() throws Exception {
        String ns = "outage-" + System.nanoTime();
        assertThat(server.call("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}")
                .statusCode()).isEqualTo(201);
        // pods that would be evicted a second after an unreachable:NoExecute taint, on this test's nodes (the
        // database is shared: nodes other tests' servers left behind are there too, unreachable)
        assertThat(server.call("POST", "/apis/apps/v1/namespaces/" + ns + "/deployments", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"steady"},
                 "spec":{"replicas":3,"selector":{"matchLabels":{"app":"steady"}},
                  "template":{"metadata":{"labels":{"app":"steady"}},
                   "spec":{"tolerations":[{"key":"node.kubernetes.io/unreachable","operator":"Exists",
                                           "effect":"NoExecute","tolerationSeconds":1}],
                           "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
                             {"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone",
                              "operator":"In","values":["outage-zone-a","outage-zone-b"]}]}]}}},
                           "containers":[{"name":"c","image":"nginx"}]}}}}""").statusCode()).isEqualTo(201);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> pods(ns).size() == 3
                    && pods(ns).values().stream().allMatch("Running"::equals));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the Deployment's pods did not all run: " + state(ns), e);
        }
        Map<String, String> before = pods(ns);

        server.proxy.cut();
        Thread.sleep(12_000); // more than twice the grace period: no heartbeat reaches the store
        assertThat(pods(ns)).as("served from the watch cache while the database is away").isEqualTo(before);
        server.proxy.restore();

        // the nodes come back: not one NoExecute taint in the meantime, no pod evicted or replaced
        long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < until) {
            assertThat(taints()).as("no node tainted for eviction").noneMatch(t -> t.endsWith(":NoExecute"));
            Map<String, String> now = pods(ns);
            if (!now.isEmpty()) {
                assertThat(now).as("the same pods, still running").isEqualTo(before);
            }
            Thread.sleep(200);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> taints().isEmpty() && readyConditions().equals(Set.of("True")));
        assertThat(pods(ns)).isEqualTo(before);
    }
}

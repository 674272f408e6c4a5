package io.cybernetes.scheduler;

import io.cybernetes.api.Json;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application with its scheduler and three simulated nodes over two zones, as
 * {@code ./mvnw spring-boot:run} starts it: Deployments' pods are placed and run, a pod
 * that fits nowhere says why and is placed once a node it fits joins, and a topology
 * spread constraint spreads pods over the zones.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulingApiTest extends SimulatedClusterSupport {

    static final String NS = "scheduling";

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        await().atMost(Duration.ofSeconds(20)).until(() -> get("/api/v1/nodes").json().path("items").size() >= 3);
    }

    private JsonNode pods(String app) {
        return get("/api/v1/namespaces/" + NS + "/pods?labelSelector=app%3D" + app).json().path("items");
    }

    private boolean allRunning(String app, int count) {
        JsonNode items = pods(app);
        if (items.size() != count) {
            return false;
        }
        for (JsonNode p : items) {
            if (!"Running".equals(p.path("status").path("phase").asString())) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aDeploymentsPodsArePlacedOnTheNodesAndRun() {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
                 "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
                  "template":{"metadata":{"labels":{"app":"web"}},
                   "spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}}}""")
                .code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> allRunning("web", 3) && get(
                "/apis/apps/v1/namespaces/" + NS + "/deployments/web").json().path("status").path("availableReplicas")
                .asInt() == 3);
        for (JsonNode p : pods("web")) {
            assertThat(p.path("spec").path("nodeName").asString()).startsWith("node-");
            assertThat(p.path("status").path("podIP").asString()).startsWith("10.244.");
        }
        assertThat(get("/api/v1/namespaces/" + NS + "/events").json().path("items").toString())
                .contains("Successfully assigned " + NS + "/web-");
        JsonNode pod = pods("web").get(0);
        JsonNode why = get("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/pods/"
                + pod.path("metadata").path("name").asString() + "/scheduling").json();
        assertThat(why.path("status").path("scheduled").asBoolean()).isTrue();
        assertThat(why.path("status").path("node").asString()).isEqualTo(pod.path("spec").path("nodeName").asString());
        assertThat(why.path("status").path("scores").get(0).path("plugins").has("NodeResourcesFit")).isTrue();
        assertThat(why.path("status").path("scores").get(0).path("plugins").has("TaintToleration")).isTrue();
    }

    @Test
    void aPodThatFitsNowhereSaysWhyAndRunsWhenANodeItFitsJoins() {
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"huge","labels":{"app":"huge"}},
                 "spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"20"}}}]}}""")
                .code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> get("/api/v1/namespaces/" + NS + "/pods/huge").json()
                .path("status").path("conditions").toString().contains("Unschedulable"));
        JsonNode condition = get("/api/v1/namespaces/" + NS + "/pods/huge").json().path("status").path("conditions")
                .get(0);
        assertThat(condition.path("type").asString()).isEqualTo("PodScheduled");
        assertThat(condition.path("status").asString()).isEqualTo("False");
        assertThat(condition.path("message").asString()).startsWith("0/").contains(" Insufficient cpu.");
        assertThat(get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name=huge").json()
                .path("items").toString()).contains("FailedScheduling");
        // the explanation's verdicts are what the message counts
        JsonNode why = get("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/pods/huge/scheduling").json();
        assertThat(why.path("status").path("scheduled").asBoolean()).isFalse();
        assertThat(why.path("status").path("message").asString()).isEqualTo(condition.path("message").asString());
        int nodes = why.path("status").path("nodesConsidered").asInt();
        assertThat(why.path("status").path("filtered").size()).isEqualTo(nodes);
        assertThat(condition.path("message").asString()).isEqualTo("0/" + nodes + " nodes are available: " + nodes
                + " Insufficient cpu. preemption: 0/" + nodes + " nodes are available: " + nodes
                + " No preemption victims found for incoming pod.");
        for (JsonNode verdict : why.path("status").path("filtered")) {
            assertThat(verdict.path("plugin").asString()).isEqualTo("NodeResourcesFit");
            assertThat(verdict.path("reasons").get(0).asString()).isEqualTo("Insufficient cpu");
        }
        assertThat(callAs("bob-token", "GET", "/apis/status.cybernetes.io/v1/namespaces/" + NS
                + "/pods/huge/scheduling", null, null, "application/json").code()).isEqualTo(403);

        startNodes(node("big-node", "64", "zone-c", Map.of(), List.of()));
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(get("/api/v1/namespaces/" + NS
                + "/pods/huge").json().path("status").path("phase").asString()));
        assertThat(get("/api/v1/namespaces/" + NS + "/pods/huge").text("spec.nodeName")).isEqualTo("big-node");
    }

    @Test
    void aTopologySpreadConstraintSpreadsPodsOverTheZones() {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"spread"},
                 "spec":{"replicas":6,"selector":{"matchLabels":{"app":"spread"}},
                  "template":{"metadata":{"labels":{"app":"spread"}},
                   "spec":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",
                            "whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"spread"}},
                            "nodeAffinityPolicy":"Honor"}],
                           "nodeSelector":{"topology.kubernetes.io/region":"region-1"},
                           "containers":[{"name":"c","image":"nginx"}]}}}}""").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> allRunning("spread", 6));
        Map<String, Integer> perZone = new HashMap<>();
        for (JsonNode p : pods("spread")) {
            String node = p.path("spec").path("nodeName").asString();
            String zone = get("/api/v1/nodes/" + node).json().path("metadata").path("labels")
                    .path("topology.kubernetes.io/zone").asString();
            perZone.merge(zone, 1, Integer::sum);
        }
        assertThat(perZone.values().stream().mapToInt(Integer::intValue).max().orElse(0)
                - perZone.values().stream().mapToInt(Integer::intValue).min().orElse(0))
                .as("zones " + perZone).isLessThanOrEqualTo(1);
    }

    @Test
    void theSchedulersStatusCountsWhatItDidAndKeepsSamples() {
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"counted"},
                 "spec":{"containers":[{"name":"c","image":"nginx"}]}}""").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> get("/api/v1/namespaces/" + NS + "/pods/counted")
                .text("spec.nodeName") != null);
        JsonNode s = get("/apis/status.cybernetes.io/v1/schedulers/default-scheduler").json();
        assertThat(s.path("kind").asString()).isEqualTo("Scheduler");
        assertThat(s.path("status").path("leader").asBoolean()).isTrue();
        assertThat(s.path("status").path("bound").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(s.path("status").path("attempts").asLong()).isGreaterThanOrEqualTo(s.path("status").path("bound")
                .asLong());
        assertThat(s.path("status").path("queue").has("unschedulable")).isTrue();
        JsonNode list = get("/apis/status.cybernetes.io/v1/schedulers?samples=true").json();
        assertThat(list.path("items")).hasSize(1);
        assertThat(Json.strings(list.path("samples").path("names"))).containsExactly("bound", "attempts", "pending");
        assertThat(list.path("samples").path("periodSeconds").asLong()).isEqualTo(5);
        assertThat(list.path("samples").path("points").size()).isGreaterThanOrEqualTo(1);
        assertThat(get("/apis/status.cybernetes.io/v1/schedulers/other").code()).isEqualTo(404);
        assertThat(callAs("bob-token", "GET", "/apis/status.cybernetes.io/v1/schedulers", null, null,
                "application/json").code()).as("no view role anywhere").isEqualTo(403);
    }
}

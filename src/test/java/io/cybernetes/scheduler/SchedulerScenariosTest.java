package io.cybernetes.scheduler;

import io.cybernetes.apiserver.SimulatedClusterSupport;
import io.cybernetes.scheduler.interpodaffinity.InterPodAffinity;
import io.cybernetes.scheduler.nodeaffinity.NodeAffinity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scheduler on the running application, each scenario on simulated nodes of its own
 * (labelled {@code scenario=<name>}, and its pods select them): taints and tolerations,
 * node affinity, topology spread over three zones, pod anti-affinity, preemption, and no
 * node over-committed when many pods arrive at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulerScenariosTest extends SimulatedClusterSupport {

    static final String NS = "scenarios";

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private static Map<String, String> scenario(String name, String... more) {
        Map<String, String> labels = new HashMap<>();
        labels.put("scenario", name);
        for (int i = 0; i < more.length; i += 2) {
            labels.put(more[i], more[i + 1]);
        }
        return labels;
    }

    /** A pod in the scenario (it selects the scenario's nodes) with a cpu request and more spec fields. */
    private void pod(String scenario, String name, String cpu, String moreSpec) {
        String json = """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME","labels":{"app":"NAME"}},
                 "spec":{"nodeSelector":{"scenario":"SCENARIO"},MORE
                  "containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"CPU"}}}]}}"""
                .replace("NAME", name).replace("SCENARIO", scenario).replace("CPU", cpu)
                .replace("MORE", moreSpec.isEmpty() ? "" : moreSpec + ",");
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", json).code()).isEqualTo(201);
    }

    private JsonNode pod(String name) {
        return get("/api/v1/namespaces/" + NS + "/pods/" + name).json();
    }

    private String runsOn(String name) {
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(pod(name).path("status").path("phase")
                .asString()));
        return pod(name).path("spec").path("nodeName").asString();
    }

    private String unschedulableMessage(String name) {
        await().atMost(Duration.ofSeconds(30)).until(() -> pod(name).path("status").path("conditions").toString()
                .contains("Unschedulable"));
        for (JsonNode c : pod(name).path("status").path("conditions")) {
            if ("PodScheduled".equals(c.path("type").asString())) {
                return c.path("message").asString();
            }
        }
        throw new AssertionError("no PodScheduled condition");
    }

    private List<JsonNode> pods(String label) {
        List<JsonNode> out = new ArrayList<>();
        get("/api/v1/namespaces/" + NS + "/pods?labelSelector=" + label).json().path("items").forEach(out::add);
        return out;
    }

    @Test
    void taintsKeepPodsAwayUnlessTheyTolerateThem() {
        startNodes(node("taints-plain", "2", "zone-t", scenario("taints"), List.of()),
                node("taints-gpu", "16", "zone-t", scenario("taints"), List.of(new TaintBuilder()
                        .withKey("dedicated").withValue("gpu").withEffect("NoSchedule").build())));
        pod("taints", "taints-small", "1", "");
        assertThat(runsOn("taints-small")).isEqualTo("taints-plain");
        pod("taints", "taints-big", "4", "");
        assertThat(unschedulableMessage("taints-big")).contains("1 Insufficient cpu",
                "1 node(s) had untolerated taint {dedicated: gpu}");
        pod("taints", "taints-tolerant", "4", """
                "tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]""");
        assertThat(runsOn("taints-tolerant")).isEqualTo("taints-gpu");
    }

    @Test
    void nodeAffinityRequiredAndPreferred() {
        startNodes(node("affinity-ssd", "4", "zone-t", scenario("affinity", "disk", "ssd"), List.of()),
                node("affinity-hdd", "4", "zone-t", scenario("affinity", "disk", "hdd"), List.of()));
        pod("affinity", "affinity-required", "1", """
                "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
                  {"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}]}}}""");
        assertThat(runsOn("affinity-required")).isEqualTo("affinity-ssd");
        // the ssd node is busier now; the preference outweighs spreading
        pod("affinity", "affinity-preferred", "1", """
                "affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
                  {"weight":100,"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}}]}}""");
        assertThat(runsOn("affinity-preferred")).isEqualTo("affinity-ssd");
        pod("affinity", "affinity-impossible", "1", """
                "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
                  {"matchExpressions":[{"key":"disk","operator":"In","values":["nvme"]}]}]}}}""");
        String message = unschedulableMessage("affinity-impossible");
        int n = Integer.parseInt(message.substring(2, message.indexOf(' ')));
        assertThat(message).as("no node matches, and preemption cannot change that").isEqualTo("0/" + n
                + " nodes are available: " + n + " " + NodeAffinity.REASON + ". preemption: 0/" + n
                + " nodes are available: " + n + " Preemption is not helpful for scheduling.");
    }

    @Test
    void thirtyPodsSpreadOverThreeZonesTenEach() {
        startNodes(node("spread-1", "16", "spread-zone-1", scenario("spread"), List.of()),
                node("spread-2", "16", "spread-zone-2", scenario("spread"), List.of()),
                node("spread-3", "16", "spread-zone-3", scenario("spread"), List.of()));
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"spread30"},
                 "spec":{"replicas":30,"selector":{"matchLabels":{"app":"spread30"}},
                  "template":{"metadata":{"labels":{"app":"spread30"}},
                   "spec":{"nodeSelector":{"scenario":"spread"},
                    "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",
                      "whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"spread30"}}}],
                    "containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}}}""")
                .code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(60)).until(() -> pods("app%3Dspread30").stream().filter(p ->
                "Running".equals(p.path("status").path("phase").asString())).count() == 30);
        Map<String, Integer> perNode = new HashMap<>();
        for (JsonNode p : pods("app%3Dspread30")) {
            perNode.merge(p.path("spec").path("nodeName").asString(), 1, Integer::sum);
        }
        assertThat(perNode).isEqualTo(Map.of("spread-1", 10, "spread-2", 10, "spread-3", 10));
        assertThat(delete("/apis/apps/v1/namespaces/" + NS + "/deployments/spread30").code()).isIn(200, 202);
    }

    @Test
    void requiredAntiAffinityPutsOneReplicaPerNode() {
        startNodes(node("anti-1", "4", "zone-t", scenario("anti"), List.of()),
                node("anti-2", "4", "zone-t", scenario("anti"), List.of()),
                node("anti-3", "4", "zone-t", scenario("anti"), List.of()));
        String anti = """
                "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
                  {"labelSelector":{"matchLabels":{"tier":"anti"}},"topologyKey":"kubernetes.io/hostname"}]}}""";
        List<String> nodes = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            podWithTier("anti-" + i + "-pod", anti);
            nodes.add(runsOn("anti-" + i + "-pod"));
        }
        assertThat(nodes).containsExactlyInAnyOrder("anti-1", "anti-2", "anti-3");
        podWithTier("anti-4-pod", anti);
        assertThat(unschedulableMessage("anti-4-pod")).contains("3 " + InterPodAffinity.ANTI_AFFINITY);
    }

    private void podWithTier(String name, String spec) {
        String json = """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME","labels":{"tier":"anti"}},
                 "spec":{"nodeSelector":{"scenario":"anti"},SPEC,
                  "containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}"""
                .replace("NAME", name).replace("SPEC", spec);
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", json).code()).isEqualTo(201);
    }

    private void priorityClasses() {
        for (String[] pc : new String[][] {{"scenario-low", "100"}, {"scenario-mid", "500"},
                {"scenario-high", "1000"}, {"scenario-high-patient", "1000"}}) {
            String never = pc[0].endsWith("patient") ? ",\"preemptionPolicy\":\"Never\"" : "";
            assertThat(post("/apis/scheduling.k8s.io/v1/priorityclasses", "{\"apiVersion\":\"scheduling.k8s.io/v1\","
                    + "\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"" + pc[0] + "\"},\"value\":" + pc[1]
                    + never + "}").code()).isIn(201, 409);
        }
    }

    @Test
    void aPodOfHigherPriorityPreemptsTheLeastImportantPodItNeedsGone() {
        priorityClasses();
        startNodes(node("preempt-1", "4", "zone-t", scenario("preempt"), List.of()));
        pod("preempt", "preempt-large", "3", "\"priorityClassName\":\"scenario-low\"");
        pod("preempt", "preempt-small", "1", "\"priorityClassName\":\"scenario-mid\"");
        assertThat(runsOn("preempt-large")).isEqualTo("preempt-1");
        assertThat(runsOn("preempt-small")).isEqualTo("preempt-1");
        String uid = get("/api/v1/namespaces/" + NS + "/pods/preempt-large").text("metadata.uid");

        pod("preempt", "preempt-urgent", "3", "\"priorityClassName\":\"scenario-high\"");
        assertThat(runsOn("preempt-urgent")).isEqualTo("preempt-1");
        JsonNode urgent = pod("preempt-urgent");
        assertThat(urgent.path("spec").path("priority").asInt()).isEqualTo(1000);
        assertThat(urgent.path("status").path("nominatedNodeName").asString()).isEqualTo("preempt-1");
        JsonNode victim = get("/api/v1/namespaces/" + NS + "/pods/preempt-large").json();
        assertThat(victim.path("metadata").path("uid").asString().equals(uid)
                && !victim.path("metadata").has("deletionTimestamp")).as("the victim is gone or going").isFalse();
        assertThat(pod("preempt-small").path("status").path("phase").asString())
                .as("evicting the low pod was enough: the mid one stays").isEqualTo("Running");
        String events = get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name%3Dpreempt-large")
                .json().path("items").toString();
        assertThat(events).contains("\"reason\":\"Preempted\"")
                .contains("Preempted by pod " + urgent.path("metadata").path("uid").asString() + " on node preempt-1");
        assertThat(get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name%3Dpreempt-urgent")
                .json().path("items").toString()).contains("FailedScheduling", "Insufficient cpu");

        pod("preempt", "preempt-never", "3", "\"priorityClassName\":\"scenario-high-patient\"");
        assertThat(unschedulableMessage("preempt-never")).contains("preemption: not eligible due to"
                + " preemptionPolicy=Never.");
        assertThat(pod("preempt-small").path("status").path("phase").asString()).isEqualTo("Running");
    }

    @Test
    void preemptionSparesAPodItsDisruptionBudgetProtectsWhenAnotherNodeCanMakeRoom() {
        priorityClasses();
        startNodes(node("budget-1", "4", "zone-t", scenario("budget"), List.of()),
                node("budget-2", "4", "zone-t", scenario("budget"), List.of()));
        pod("budget", "budget-protected", "4", "\"priorityClassName\":\"scenario-low\"");
        pod("budget", "budget-plain", "4", "\"priorityClassName\":\"scenario-mid\"");
        String protectedNode = runsOn("budget-protected");
        String plainNode = runsOn("budget-plain");
        assertThat(protectedNode).isNotEqualTo(plainNode);
        assertThat(post("/apis/policy/v1/namespaces/" + NS + "/poddisruptionbudgets", """
                {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"budget-protected"},
                 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"budget-protected"}}}}""").code())
                .isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> get("/apis/policy/v1/namespaces/" + NS
                + "/poddisruptionbudgets/budget-protected").json().path("status").path("currentHealthy").asInt() == 1);

        // without the budget the low-priority pod would be the victim; with it, the mid one is
        pod("budget", "budget-urgent", "3", "\"priorityClassName\":\"scenario-high\"");
        assertThat(runsOn("budget-urgent")).isEqualTo(plainNode);
        assertThat(pod("budget-protected").path("status").path("phase").asString()).isEqualTo("Running");
        assertThat(pod("budget-protected").path("metadata").has("deletionTimestamp")).isFalse();
    }

    @Test
    void manyPodsAtOnceNeverOverCommitANode() throws Exception {
        List<String> names = new ArrayList<>();
        List<io.cybernetes.node.NodeAgent.Config> nodes = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            nodes.add(node("overcommit-" + i, "2", "zone-t", scenario("overcommit"), List.of()));
        }
        startNodes(nodes.toArray(io.cybernetes.node.NodeAgent.Config[]::new));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> created = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                String name = "overcommit-pod-" + i;
                names.add(name);
                created.add(pool.submit(() -> pod("overcommit", name, "500m", "")));
            }
            for (Future<?> f : created) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        // 5 nodes × 2 cpu hold 20 pods of 500m; the other 10 must wait
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            int bound = 0;
            int waiting = 0;
            for (JsonNode p : pods("app")) {
                if (!p.path("metadata").path("name").asString().startsWith("overcommit-pod-")) {
                    continue;
                }
                if (!p.path("spec").path("nodeName").asString().isEmpty()) {
                    bound++;
                } else if (p.path("status").path("conditions").toString().contains("Unschedulable")) {
                    waiting++;
                }
            }
            return bound == 20 && waiting == 10;
        });
        Map<String, Integer> milliCpu = new HashMap<>();
        for (JsonNode p : pods("app")) {
            String node = p.path("spec").path("nodeName").asString();
            if (p.path("metadata").path("name").asString().startsWith("overcommit-pod-") && !node.isEmpty()) {
                milliCpu.merge(node, 500, Integer::sum);
            }
        }
        assertThat(milliCpu).hasSize(5).allSatisfy((node, used) -> assertThat(used).as(node).isEqualTo(2000));
    }
}

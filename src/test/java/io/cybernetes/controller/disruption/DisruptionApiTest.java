package io.cybernetes.controller.disruption;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PodDisruptionBudgets kept by the disruption controller, and the eviction subresource that
 * respects them: allowed evictions delete the pod, a budget at its limit answers 429 in
 * Kubernetes' words, pods of no budget or that have finished go at once, two budgets over
 * one pod are refused, and budgets are validated.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DisruptionApiTest extends ApiTestSupport {

    static final String NS = "disruption-api";
    static final String PODS = "/api/v1/namespaces/" + NS + "/pods";
    static final String PDBS = "/apis/policy/v1/namespaces/" + NS + "/poddisruptionbudgets";

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private void pod(String name, String app, boolean ready) {
        Response r = post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\","
                + "\"labels\":{\"app\":\"" + app + "\"}},\"spec\":{\"nodeName\":\"disruption-node\",\"containers\":"
                + "[{\"name\":\"c\",\"image\":\"postgres\"}]}}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        Response s = patch(PODS + "/" + name + "/status", "application/merge-patch+json", "{\"status\":{\"phase\":"
                + "\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"" + (ready ? "True" : "False") + "\"}]}}");
        assertThat(s.code()).as(s.body()).isEqualTo(200);
    }

    private void budget(String name, String app, String rule) {
        Response r = post(PDBS, "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\""
                + name + "\"},\"spec\":{" + rule + ",\"selector\":{\"matchLabels\":{\"app\":\"" + app + "\"}}}}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
    }

    private Response evict(String pod, String deleteOptions) {
        return post(PODS + "/" + pod + "/eviction", "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":"
                + "{\"name\":\"" + pod + "\",\"namespace\":\"" + NS + "\"}" + (deleteOptions == null ? ""
                : ",\"deleteOptions\":" + deleteOptions) + "}");
    }

    private JsonNode status(String pdb) {
        return get(PDBS + "/" + pdb).json().path("status");
    }

    @Test
    void evictionsTakeWhatTheBudgetAllowsAndNoMore() {
        pod("db-1", "db", true);
        pod("db-2", "db", true);
        pod("db-3", "db", true);
        budget("db", "db", "\"minAvailable\":2");
        eventually(() -> {
            JsonNode s = status("db");
            assertThat(s.path("expectedPods").asInt()).isEqualTo(3);
            assertThat(s.path("desiredHealthy").asInt()).isEqualTo(2);
            assertThat(s.path("currentHealthy").asInt()).isEqualTo(3);
            assertThat(s.path("disruptionsAllowed").asInt()).isEqualTo(1);
            assertThat(s.path("conditions").path(0).path("reason").asString()).isEqualTo("SufficientPods");
        });
        Response first = evict("db-1", "{\"gracePeriodSeconds\":0}");
        assertThat(first.code()).as(first.body()).isEqualTo(201);
        assertThat(first.text("status")).isEqualTo("Success");
        assertThat(get(PODS + "/db-1").code()).isEqualTo(404);
        // the controller counts again: two healthy of the two it needs, no disruption left
        eventually(() -> {
            JsonNode s = status("db");
            assertThat(s.path("currentHealthy").asInt()).isEqualTo(2);
            assertThat(s.path("disruptionsAllowed").asInt()).isZero();
        });
        Response second = evict("db-2", null);
        assertThat(second.code()).isEqualTo(429);
        assertThat(second.text("reason")).isEqualTo("TooManyRequests");
        assertThat(second.text("message")).isEqualTo("Cannot evict pod as it would violate the pod's disruption budget.");
        assertThat(second.json().path("details").path("causes").path(0).path("reason").asString())
                .isEqualTo("DisruptionBudget");
        assertThat(second.json().path("details").path("causes").path(0).path("message").asString())
                .isEqualTo("The disruption budget db needs 2 healthy pods and has 2 currently");
        assertThat(get(PODS + "/db-2").json().path("metadata").has("deletionTimestamp")).isFalse();
        eventually(() -> {
            JsonNode s = status("db");
            assertThat(s.path("disruptionsAllowed").asInt()).isZero();
            assertThat(s.path("conditions").path(0).path("reason").asString()).isEqualTo("InsufficientPods");
        });
        // a pod that is not ready may go while the budget has its healthy pods
        pod("db-4", "db", false);
        Response unready = evict("db-4", "{\"gracePeriodSeconds\":0}");
        assertThat(unready.code()).as(unready.body()).isEqualTo(201);
    }

    @Test
    void percentagesAreOfTheControllersScaleAndAnEvictedPodIsMarkedAsKubernetesMarksIt() {
        // a percentage counts against the scale of the pods' controller, as Kubernetes counts it
        Response rs = post("/apis/apps/v1/namespaces/" + NS + "/replicasets", """
                {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"shares"},
                 "spec":{"replicas":4,"selector":{"matchLabels":{"app":"shares"}},
                  "template":{"metadata":{"labels":{"app":"shares"}},
                   "spec":{"nodeName":"disruption-node","containers":[{"name":"c","image":"postgres"}]}}}}""");
        assertThat(rs.code()).as(rs.body()).isEqualTo(201);
        List<String> pods = new ArrayList<>();
        eventually(() -> {
            pods.clear();
            get(PODS + "?labelSelector=app%3Dshares").json().path("items")
                    .forEach(p -> pods.add(p.path("metadata").path("name").asString()));
            assertThat(pods).hasSize(4);
        });
        for (String p : pods) {
            assertThat(patch(PODS + "/" + p + "/status", "application/merge-patch+json", "{\"status\":{\"phase\":"
                    + "\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}").code()).isEqualTo(200);
        }
        budget("shares", "shares", "\"minAvailable\":\"50%\"");
        eventually(() -> {
            JsonNode s = status("shares");
            assertThat(s.path("expectedPods").asInt()).isEqualTo(4);
            assertThat(s.path("desiredHealthy").asInt()).isEqualTo(2);
            assertThat(s.path("disruptionsAllowed").asInt()).isEqualTo(2);
        });
        // maxUnavailable 25% of 4 is one: three must stay healthy
        Response changed = patch(PDBS + "/shares", "application/merge-patch+json",
                "{\"spec\":{\"minAvailable\":null,\"maxUnavailable\":\"25%\"}}");
        assertThat(changed.code()).as(changed.body()).isEqualTo(200);
        eventually(() -> {
            JsonNode s = status("shares");
            assertThat(s.path("desiredHealthy").asInt()).isEqualTo(3);
            assertThat(s.path("disruptionsAllowed").asInt()).isEqualTo(1);
        });
        // evicted with its own grace period, the pod is terminating and says why
        Response evicted = evict(pods.get(0), null);
        assertThat(evicted.code()).as(evicted.body()).isEqualTo(201);
        JsonNode pod = get(PODS + "/" + pods.get(0)).json();
        assertThat(pod.path("metadata").has("deletionTimestamp")).isTrue();
        JsonNode target = null;
        for (JsonNode c : pod.path("status").path("conditions")) {
            if ("DisruptionTarget".equals(c.path("type").asString())) {
                target = c;
            }
        }
        assertThat(target).as(pod.path("status").toString()).isNotNull();
        assertThat(target.path("status").asString()).isEqualTo("True");
        assertThat(target.path("reason").asString()).isEqualTo("EvictionByEvictionAPI");
        assertThat(target.path("message").asString()).isEqualTo("Eviction API: evicting");
        assertThat(evict(pods.get(1), null).code()).isEqualTo(429);
        assertThat(delete("/apis/apps/v1/namespaces/" + NS + "/replicasets/shares").code()).isEqualTo(200);
    }

    @Test
    void anUnreadyPodGoesAtTheLimitOnlyUnderAlwaysAllow() {
        pod("sick-1", "sick", true);
        pod("sick-2", "sick", false);
        budget("sick", "sick", "\"minAvailable\":2");
        eventually(() -> {
            JsonNode s = status("sick");
            assertThat(s.path("currentHealthy").asInt()).isEqualTo(1);
            assertThat(s.path("disruptionsAllowed").asInt()).isZero();
        });
        // IfHealthyBudget: the budget lacks healthy pods, so not even an unready one may go
        assertThat(evict("sick-2", "{\"gracePeriodSeconds\":0}").code()).isEqualTo(429);
        Response always = patch(PDBS + "/sick", "application/merge-patch+json",
                "{\"spec\":{\"unhealthyPodEvictionPolicy\":\"AlwaysAllow\"}}");
        assertThat(always.code()).as(always.body()).isEqualTo(200);
        long generation = always.json().path("metadata").path("generation").asLong();
        eventually(() -> assertThat(status("sick").path("observedGeneration").asLong()).isEqualTo(generation));
        Response evicted = evict("sick-2", "{\"gracePeriodSeconds\":0}");
        assertThat(evicted.code()).as(evicted.body()).isEqualTo(201);
        assertThat(evict("sick-1", "{\"gracePeriodSeconds\":0}").code()).isEqualTo(429);
    }

    @Test
    void podsOfNoBudgetAndFinishedPodsGoAtOnceAndTwoBudgetsAreRefused() {
        pod("free", "free", true);
        assertThat(evict("free", "{\"gracePeriodSeconds\":0}").code()).isEqualTo(201);
        assertThat(get(PODS + "/free").code()).isEqualTo(404);
        pod("twice", "twice", true);
        budget("twice-a", "twice", "\"maxUnavailable\":1");
        budget("twice-b", "twice", "\"minAvailable\":0");
        Response both = evict("twice", null);
        assertThat(both.code()).isEqualTo(500);
        assertThat(both.text("message")).isEqualTo("Internal error occurred: This pod has more than one"
                + " PodDisruptionBudget, which the eviction subresource does not support.");
        pod("done", "guarded", true);
        budget("guarded", "guarded", "\"minAvailable\":5");
        assertThat(patch(PODS + "/done/status", "application/merge-patch+json", "{\"status\":{\"phase\":\"Succeeded\"}}")
                .code()).isEqualTo(200);
        assertThat(evict("done", "{\"gracePeriodSeconds\":0}").code()).isEqualTo(201);
        Response mismatch = post(PODS + "/twice/eviction", "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\","
                + "\"metadata\":{\"name\":\"other\"}}");
        assertThat(mismatch.code()).isEqualTo(400);
        assertThat(mismatch.text("message")).isEqualTo("name in URL does not match name in Eviction object");
    }

    @Test
    void budgetsAreValidatedAsKubernetesValidatesThem() {
        Response both = post(PDBS, "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":"
                + "{\"name\":\"both\"},\"spec\":{\"minAvailable\":1,\"maxUnavailable\":1}}");
        assertThat(both.code()).isEqualTo(422);
        assertThat(both.text("message")).contains("minAvailable and maxUnavailable cannot be both set");
        Response pct = post(PDBS, "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":"
                + "{\"name\":\"pct\"},\"spec\":{\"maxUnavailable\":\"150%\"}}");
        assertThat(pct.code()).isEqualTo(422);
        assertThat(pct.text("message")).contains("spec.maxUnavailable: Invalid value: \"150%\": must not be greater"
                + " than 100%");
        assertThat(get(PDBS + "/both").code()).isEqualTo(404);
        assertThat(get(PDBS + "/pct").code()).isEqualTo(404);
    }
}

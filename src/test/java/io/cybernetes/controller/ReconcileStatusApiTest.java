package io.cybernetes.controller;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconcile status under {@code /apis/status.cybernetes.io/v1}: in discovery and
 * Swagger, read by RBAC like any resource, and the controllers' meters in Prometheus form.
 */
class ReconcileStatusApiTest extends ApiTestSupport {

    static final String ROOT = "/apis/status.cybernetes.io/v1";

    @Test
    void everyControllerReportsAndTheManagerLeads() {
        JsonNode list = get(ROOT + "/controllers").json();
        assertThat(list.path("kind").asString()).isEqualTo("ControllerList");
        List<String> names = new ArrayList<>();
        for (JsonNode c : list.path("items")) {
            names.add(c.path("metadata").path("name").asString());
            assertThat(c.path("status").path("leader").asBoolean()).as("this replica leads").isTrue();
            assertThat(c.path("status").path("running").asBoolean()).isTrue();
            assertThat(c.path("status").path("workers").asInt()).isPositive();
        }
        assertThat(names).containsExactly("deployment", "replicaset", "replicationcontroller", "daemonset", "statefulset",
                "persistentvolume-binder", "volume-protection",
                "garbage-collector", "namespace",
                "node-lifecycle", "serviceaccount", "clusterrole-aggregation", "pod-garbage-collector", "endpoints",
                "endpointslice", "endpointslice-mirroring", "service-lb", "job", "cronjob",
                "disruption", "horizontal-pod-autoscaler", "ttl-after-finished", "csrsigning");
        eventually(() -> assertThat(get(ROOT + "/controllers/namespace").json().path("status").path("reconciles")
                .asLong()).isPositive());
        JsonNode one = get(ROOT + "/controllers/deployment").json();
        assertThat(one.path("kind").asString()).isEqualTo("Controller");
        assertThat(one.path("status").path("leaseHolder").asString()).isNotEmpty();
        assertThat(one.path("status").has("p99Millis")).isTrue();
        Response missing = get(ROOT + "/controllers/nope");
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.text("kind")).isEqualTo("Status");
        assertThat(post(ROOT + "/controllers", "{}").code()).isEqualTo(405);
        JsonNode withSamples = get(ROOT + "/controllers?samples=true").json();
        assertThat(withSamples.path("items").size()).isEqualTo(list.path("items").size());
        assertThat(withSamples.path("samples").path("names").toString()).isEqualTo("[\"reconciles\",\"queueDepth\"]");
        assertThat(withSamples.path("samples").path("points").size()).isGreaterThanOrEqualTo(1);
        assertThat(withSamples.path("samples").path("points").get(0).path("values").size()).isEqualTo(2);
    }

    @Test
    void theViewsAreInDiscoveryAndSwagger() {
        JsonNode resources = get(ROOT).json().path("resources");
        List<String> names = new ArrayList<>();
        resources.forEach(r -> names.add(r.path("name").asString()));
        assertThat(names).containsExactlyInAnyOrder("controllers", "deploymentreconciles", "replicasetreconciles",
                "replicationcontrollerreconciles", "jobreconciles", "cronjobreconciles", "servicereconciles",
                "poddisruptionbudgetreconciles", "daemonsetreconciles", "statefulsetreconciles", "horizontalpodautoscalerreconciles",
                "schedulers");
        assertThat(resources.get(0).path("verbs").toString()).isEqualTo("[\"get\",\"list\"]");
        assertThat(get("/apis").body()).contains("status.cybernetes.io");
        String docs = get("/v3/api-docs").body();
        assertThat(docs).contains(ROOT + "/controllers", ROOT + "/namespaces/{namespace}/deploymentreconciles/{name}",
                ROOT + "/namespaces/{namespace}/servicereconciles", ROOT + "/jobreconciles")
                .doesNotContain(ROOT + "/namespaces/{namespace}/{plural}");
        Response unknown = get(ROOT + "/namespaces/default/nopereconciles");
        assertThat(unknown.code()).isEqualTo(404);
        assertThat(unknown.text("message")).isEqualTo("the server could not find the requested resource");
        Response missing = get(ROOT + "/namespaces/default/jobreconciles/nope");
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.text("message")).isEqualTo("jobreconciles.status.cybernetes.io \"nope\" not found");
    }

    @Test
    void aTeamReadsTheStatusOfItsOwnNamespaceOnly() {
        assertThat(createNamespace("status-team-a").code()).isIn(201, 409);
        assertThat(createNamespace("status-other").code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/status-team-a/rolebindings", """
                {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"readers"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"kind":"User","name":"carol","apiGroup":"rbac.authorization.k8s.io"}]}""").code())
                .isIn(201, 409);
        assertThat(post("/apis/apps/v1/namespaces/status-team-a/deployments", """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
                 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
                  "template":{"metadata":{"labels":{"app":"web"}},
                   "spec":{"containers":[{"name":"c","image":"nginx"}]}}}}""").code()).isEqualTo(201);
        eventually(() -> {
            Response own = callAs("carol-token", "GET", ROOT + "/namespaces/status-team-a/deploymentreconciles/web",
                    null, null, "application/json");
            assertThat(own.code()).as(own.body()).isEqualTo(200);
            assertThat(own.text("status.desiredReplicas")).isEqualTo("2");
            assertThat(own.text("status.observed.updatedReplicas")).isEqualTo("2");
            assertThat(own.text("status.lastReconcile.controller")).isEqualTo("deployment");
        });
        Response other = callAs("carol-token", "GET", ROOT + "/namespaces/status-other/deploymentreconciles", null,
                null, "application/json");
        assertThat(other.code()).isEqualTo(403);
        assertThat(other.text("message")).contains("cannot list resource \"deploymentreconciles\" in API group"
                + " \"status.cybernetes.io\" in the namespace \"status-other\"");
        assertThat(callAs("carol-token", "GET", ROOT + "/controllers", null, null, "application/json").code())
                .isEqualTo(403);
        JsonNode table = ok(call("GET", ROOT + "/namespaces/status-team-a/replicasetreconciles", null, null,
                "application/json;as=Table;v=v1;g=meta.k8s.io", true));
        assertThat(table.path("kind").asString()).isEqualTo("Table");
        assertThat(table.path("rows").size()).isEqualTo(1);
    }

    private static JsonNode ok(Response r) {
        assertThat(r.code()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    @Test
    void controllerMetersArePublishedForPrometheus() {
        eventually(() -> {
            String metrics = call("GET", "/actuator/prometheus", null, null, "text/plain", true).body();
            assertThat(metrics).contains("cybernetes_controller_reconciles_total{controller=\"deployment\"}",
                    "cybernetes_controller_queue_depth{controller=\"replicaset\"}",
                    "cybernetes_controller_reconcile_p99_seconds{controller=\"namespace\"}",
                    "cybernetes_controller_leader{controller=\"garbage-collector\"} 1.0");
        });
    }
}

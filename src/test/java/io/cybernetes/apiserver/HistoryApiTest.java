package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An object's revision history from the store's log: every change with its revision and
 * the object after it, oldest first, across delete and re-create; given to whoever may
 * read the object, and a Status for everything else.
 */
class HistoryApiTest extends ApiTestSupport {

    static final String NS = "history";
    static final String HISTORY = "/apis/status.cybernetes.io/v1/objecthistories";

    private static String of(String apiVersion, String resource, String namespace, String name) {
        return HISTORY + "?apiVersion=" + apiVersion + "&resource=" + resource
                + (namespace == null ? "" : "&namespace=" + namespace) + "&name=" + name;
    }

    @Test
    void everyChangeOfAnObjectOldestFirstAcrossItsLifetimes() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        String base = "/api/v1/namespaces/" + NS + "/configmaps";
        assertThat(post(base, "{\"metadata\":{\"name\":\"settings\"},\"data\":{\"size\":\"1\"}}").code())
                .isEqualTo(201);
        patch(base + "/settings", "application/merge-patch+json", "{\"data\":{\"size\":\"2\"}}");
        patch(base + "/settings", "application/merge-patch+json", "{\"data\":{\"size\":\"3\",\"colour\":\"red\"}}");
        String firstUid = get(base + "/settings").text("metadata.uid");
        assertThat(delete(base + "/settings").code()).isEqualTo(200);
        assertThat(post(base, "{\"metadata\":{\"name\":\"settings\"},\"data\":{\"size\":\"9\"}}").code())
                .isEqualTo(201);

        Response r = get(of("v1", "configmaps", NS, "settings"));
        assertThat(r.code()).as(r.body()).isEqualTo(200);
        JsonNode h = r.json();
        assertThat(h.path("kind").asString()).isEqualTo("ObjectHistory");
        assertThat(h.path("target").path("kind").asString()).isEqualTo("ConfigMap");
        assertThat(h.path("complete").asBoolean()).isTrue();
        JsonNode items = h.path("items");
        assertThat(items).hasSize(5);
        assertThat(items.get(0).path("type").asString()).isEqualTo("ADDED");
        assertThat(items.get(1).path("type").asString()).isEqualTo("MODIFIED");
        assertThat(items.get(2).path("object").path("data").path("colour").asString()).isEqualTo("red");
        assertThat(items.get(3).path("type").asString()).isEqualTo("DELETED");
        assertThat(items.get(3).path("uid").asString()).isEqualTo(firstUid);
        assertThat(items.get(4).path("type").asString()).isEqualTo("ADDED");
        assertThat(items.get(4).path("uid").asString()).isNotEqualTo(firstUid);
        long previous = 0;
        for (JsonNode item : items) {
            long revision = item.path("revision").asLong();
            assertThat(revision).isGreaterThan(previous);
            assertThat(item.path("object").path("metadata").path("resourceVersion").asString())
                    .isEqualTo(Long.toString(revision));
            previous = revision;
        }
        assertThat(get(of("apps/v1", "deployments", NS, "nothing")).code()).isEqualTo(404);
    }

    @Test
    void onlyThoseWhoMayReadTheObjectSeeItsHistory() {
        String ns = "history-carol";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", """
                {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"readers"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"kind":"User","name":"carol","apiGroup":"rbac.authorization.k8s.io"}]}""").code())
                .isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + ns + "/configmaps", "{\"metadata\":{\"name\":\"c\"}}").code())
                .isIn(201, 409);
        eventually(() -> assertThat(callAs("carol-token", "GET", of("v1", "configmaps", ns, "c"), null, null,
                "application/json").code()).isEqualTo(200));

        Response bob = callAs("bob-token", "GET", of("v1", "configmaps", ns, "c"), null, null, "application/json");
        assertThat(bob.code()).isEqualTo(403);
        assertThat(bob.text("message")).isEqualTo("configmaps \"c\" is forbidden: User \"bob\" cannot get resource"
                + " \"configmaps\" in API group \"\" in the namespace \"" + ns + "\"");
        Response secret = callAs("carol-token", "GET", of("v1", "secrets", ns, "c"), null, null, "application/json");
        assertThat(secret.code()).as("view does not read secrets, nor their history").isEqualTo(403);
        assertThat(callAs(null, "GET", of("v1", "configmaps", ns, "c"), null, null, "application/json").code())
                .isEqualTo(401);
    }

    @Test
    void badQuestionsAreStatuses() {
        Response missing = get(HISTORY + "?apiVersion=v1&resource=configmaps");
        assertThat(missing.code()).isEqualTo(400);
        assertThat(missing.text("kind")).isEqualTo("Status");
        assertThat(missing.text("message")).contains("needs apiVersion, resource and name");
        Response noNamespace = get(of("v1", "configmaps", null, "c"));
        assertThat(noNamespace.code()).isEqualTo(400);
        assertThat(noNamespace.text("message")).isEqualTo("configmaps are namespaced: the history needs a namespace");
        Response unknown = get(of("v1", "gadgets", NS, "x"));
        assertThat(unknown.code()).isEqualTo(404);
        assertThat(unknown.text("message")).contains("gadgets");
        assertThat(get(of("v1", "nodes", null, "no-such-node")).code()).as("cluster-scoped: no namespace needed")
                .isEqualTo(404);
    }
}

package io.cybernetes.controller.garbagecollector;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cascading deletion in its three modes by the application's garbage collector: a ConfigMap
 * owning two others, and a Deployment with its ReplicaSet and pods.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GarbageCollectorApiTest extends ApiTestSupport {

    static final String NS = "gc";

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private String owner(String name) {
        Response r = post("/api/v1/namespaces/" + NS + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"" + name + "\"}}");
        assertThat(r.code()).isEqualTo(201);
        String uid = r.text("metadata.uid");
        for (String d : new String[] {name + "-a", name + "-b"}) {
            assertThat(post("/api/v1/namespaces/" + NS + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                    + "\"metadata\":{\"name\":\"" + d + "\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":"
                    + "\"ConfigMap\",\"name\":\"" + name + "\",\"uid\":\"" + uid + "\",\"blockOwnerDeletion\":true}]}}")
                    .code()).isEqualTo(201);
        }
        return uid;
    }

    private int code(String name) {
        return get("/api/v1/namespaces/" + NS + "/configmaps/" + name).code();
    }

    private Response deleteWith(String name, String policy) {
        return call("DELETE", "/api/v1/namespaces/" + NS + "/configmaps/" + name, "application/json",
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":\"" + policy + "\"}");
    }

    @Test
    void backgroundDeletionTakesTheDependentsAfterTheOwner() {
        owner("bg");
        assertThat(deleteWith("bg", "Background").code()).isEqualTo(200);
        assertThat(code("bg")).isEqualTo(404);
        await().atMost(Duration.ofSeconds(20)).until(() -> code("bg-a") == 404 && code("bg-b") == 404);
    }

    @Test
    void foregroundDeletionTakesTheDependentsFirstThenTheOwner() {
        owner("fg");
        Response r = deleteWith("fg", "Foreground");
        assertThat(r.code()).isEqualTo(202);
        assertThat(r.json().path("metadata").path("finalizers").toString()).contains("foregroundDeletion");
        await().atMost(Duration.ofSeconds(20)).until(() -> code("fg") == 404);
        assertThat(code("fg-a")).isEqualTo(404);
        assertThat(code("fg-b")).isEqualTo(404);
    }

    @Test
    void orphanDeletionLeavesTheDependentsWithoutTheirOwner() {
        owner("or");
        assertThat(deleteWith("or", "Orphan").code()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).until(() -> code("or") == 404);
        assertThat(code("or-a")).isEqualTo(200);
        assertThat(get("/api/v1/namespaces/" + NS + "/configmaps/or-a").json().path("metadata").path("ownerReferences")
                .size()).as("the owner is gone from the orphan's ownerReferences").isZero();
    }

    @Test
    void dependentsOfAnOwnerThatNeverExistedAreCollected() {
        assertThat(post("/api/v1/namespaces/" + NS + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"stray\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"name\":\"ghost\",\"uid\":\"00000000-0000-0000-0000-000000000000\"}]}}").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> code("stray") == 404);
    }

    private void deployment(String name) {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", ("{\"apiVersion\":\"apps/v1\","
                + "\"kind\":\"Deployment\",\"metadata\":{\"name\":\"NAME\"},\"spec\":{\"replicas\":2,"
                + "\"selector\":{\"matchLabels\":{\"app\":\"NAME\"}},\"template\":{\"metadata\":{\"labels\":"
                + "{\"app\":\"NAME\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}")
                .replace("NAME", name)).code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> count("pods", name) == 2 && count("replicasets", name) == 1);
    }

    private int count(String resource, String app) {
        String group = resource.equals("pods") ? "/api/v1" : "/apis/apps/v1";
        return get(group + "/namespaces/" + NS + "/" + resource + "?labelSelector=app%3D" + app).json().path("items")
                .size();
    }

    private Response deleteDeployment(String name, String policy) {
        return call("DELETE", "/apis/apps/v1/namespaces/" + NS + "/deployments/" + name, "application/json",
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":\"" + policy + "\"}");
    }

    @Test
    void aDeploymentDeletedInTheBackgroundTakesItsReplicaSetAndPods() {
        deployment("cascade-bg");
        assertThat(deleteDeployment("cascade-bg", "Background").code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> count("replicasets", "cascade-bg") == 0
                && count("pods", "cascade-bg") == 0);
    }

    @Test
    void aDeploymentDeletedInTheForegroundGoesLast() {
        deployment("cascade-fg");
        Response r = deleteDeployment("cascade-fg", "Foreground");
        assertThat(r.code()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).until(() ->
                get("/apis/apps/v1/namespaces/" + NS + "/deployments/cascade-fg").code() == 404);
        assertThat(count("replicasets", "cascade-fg")).isZero();
        assertThat(count("pods", "cascade-fg")).isZero();
    }

    @Test
    void anOrphanedDeploymentLeavesItsReplicaSetRunningItsPods() {
        deployment("cascade-or");
        assertThat(deleteDeployment("cascade-or", "Orphan").code()).isIn(200, 202);
        await().atMost(Duration.ofSeconds(20)).until(() ->
                get("/apis/apps/v1/namespaces/" + NS + "/deployments/cascade-or").code() == 404);
        var sets = get("/apis/apps/v1/namespaces/" + NS + "/replicasets?labelSelector=app%3Dcascade-or").json()
                .path("items");
        assertThat(sets.size()).isEqualTo(1);
        assertThat(sets.get(0).path("metadata").path("ownerReferences").size()).isZero();
        assertThat(count("pods", "cascade-or")).isEqualTo(2);
    }
}

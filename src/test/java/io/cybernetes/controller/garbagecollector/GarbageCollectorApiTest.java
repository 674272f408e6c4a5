package io.cybernetes.controller.garbagecollector;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.Controller;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Cascading deletion in its three modes, on the running server, with a ConfigMap owning two others. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GarbageCollectorApiTest extends ApiTestSupport {

    static final String NS = "gc";
    SharedInformerFactory informers;
    Controller controller;

    @BeforeAll
    void collector() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        GarbageCollector gc = new GarbageCollector(client, ResourceRegistry.builtIn());
        controller = new Controller(GarbageCollector.NAME, gc, 2);
        informers = new SharedInformerFactory(client, Duration.ofSeconds(30));
        for (Class<? extends HasMetadata> kind : gc.kinds()) {
            informers.informerFor(kind).addEventHandler(gc.handler(controller));
        }
        informers.start();
        assertThat(informers.waitForSync(Duration.ofSeconds(20))).isTrue();
        controller.start();
    }

    @AfterAll
    void stop() {
        controller.stop();
        informers.stop();
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
}

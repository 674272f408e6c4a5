package io.cybernetes.controller.namespace;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A deleted namespace is emptied by the application's namespace controller, then finalized, and goes away. */
class NamespaceControllerApiTest extends ApiTestSupport {

    @Test
    void aDeletedNamespaceLosesItsContentAndThenGoesAway() {
        String ns = "doomed-" + System.nanoTime();
        assertThat(createNamespace(ns).code()).isEqualTo(201);
        assertThat(post("/api/v1/namespaces/" + ns + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"c\"}}").code()).isEqualTo(201);
        assertThat(post("/api/v1/namespaces/" + ns + "/secrets", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\","
                + "\"metadata\":{\"name\":\"s\"}}").code()).isEqualTo(201);
        assertThat(post("/api/v1/namespaces/" + ns + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}").code())
                .isEqualTo(201);
        assertThat(post("/apis/apps/v1/namespaces/" + ns + "/deployments", "{\"apiVersion\":\"apps/v1\",\"kind\":"
                + "\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},"
                + "\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
                + "\"image\":\"nginx\"}]}}}}").code()).isEqualTo(201);
        assertThat(delete("/api/v1/namespaces/" + ns).code()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).until(() -> get("/api/v1/namespaces/" + ns).code() == 404);
        for (String path : new String[] {"/api/v1/namespaces/" + ns + "/configmaps",
                "/api/v1/namespaces/" + ns + "/pods", "/apis/apps/v1/namespaces/" + ns + "/deployments"}) {
            assertThat(get(path).json().path("items").size()).as(path).isZero();
        }
    }
}

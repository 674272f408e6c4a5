package io.cybernetes.controller.namespace;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.EventRecorder;
import io.fabric8.kubernetes.api.model.Namespace;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A deleted namespace is emptied, then finalized, and goes away. */
class NamespaceControllerApiTest extends ApiTestSupport {

    @Test
    void aDeletedNamespaceLosesItsContentAndThenGoesAway() throws Exception {
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

        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        SharedInformerFactory informers = new SharedInformerFactory(client, Duration.ofSeconds(30));
        var namespaces = informers.informerFor(Namespace.class);
        NamespaceController reconciler = new NamespaceController(client, namespaces.indexer(), ResourceRegistry.builtIn(),
                new EventRecorder(client, "namespace-controller"));
        Controller controller = new Controller(NamespaceController.NAME, reconciler, 1);
        namespaces.addEventHandler(reconciler.handler(controller));
        informers.start();
        controller.start();
        try {
            assertThat(delete("/api/v1/namespaces/" + ns).code()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(20)).until(() -> get("/api/v1/namespaces/" + ns).code() == 404);
            for (String path : new String[] {"/api/v1/namespaces/" + ns + "/configmaps",
                    "/api/v1/namespaces/" + ns + "/pods", "/apis/apps/v1/namespaces/" + ns + "/deployments"}) {
                assertThat(get(path).json().path("items").size()).as(path).isZero();
            }
            assertThat(controller.status().errors()).isZero();
        } finally {
            controller.stop();
            informers.stop();
        }
    }
}

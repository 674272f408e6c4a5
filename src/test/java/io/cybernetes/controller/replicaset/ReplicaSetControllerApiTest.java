package io.cybernetes.controller.replicaset;

import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.EventRecorder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ReplicaSet controller against the running server, through informers and the HTTP
 * client: it creates the pods, replaces one that is deleted, and scales down.
 */
class ReplicaSetControllerApiTest extends ApiTestSupport {

    static final String NS = "rs-controller";

    @Test
    void keepsTheWantedNumberOfPods() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        SharedInformerFactory informers = new SharedInformerFactory(client, Duration.ofSeconds(30));
        var sets = informers.informerFor(ReplicaSet.class);
        var pods = informers.informerFor(Pod.class);
        ReplicaSetController reconciler = new ReplicaSetController(client, sets.indexer(), pods.indexer(),
                new EventRecorder(client, "replicaset-controller"));
        Controller controller = new Controller(ReplicaSetController.NAME, reconciler, 2);
        sets.addEventHandler(reconciler.replicaSetHandler(controller));
        pods.addEventHandler(reconciler.podHandler(controller));
        informers.start();
        controller.start();
        try {
            assertThat(informers.waitForSync(Duration.ofSeconds(10))).isTrue();
            assertThat(post("/apis/apps/v1/namespaces/" + NS + "/replicasets", """
                    {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web"},
                     "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
                      "template":{"metadata":{"labels":{"app":"web"}},
                       "spec":{"containers":[{"name":"c","image":"nginx"}]}}}}""").code()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(20)).until(() -> podNames().size() == 3);
            await().atMost(Duration.ofSeconds(20)).until(() -> status("replicas") == 3);
            String victim = podNames().get(0);
            assertThat(delete("/api/v1/namespaces/" + NS + "/pods/" + victim).code()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> podNames().size() == 3 && !podNames().contains(victim));
            assertThat(patch("/apis/apps/v1/namespaces/" + NS + "/replicasets/web", "application/merge-patch+json",
                    "{\"spec\":{\"replicas\":1}}").code()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> podNames().size() == 1 && status("replicas") == 1);
            assertThat(status("observedGeneration")).isEqualTo(2);
            assertThat(controller.status().errors()).isZero();
            assertThat(get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name=web").json()
                    .path("items").toString()).contains("SuccessfulCreate", "SuccessfulDelete");
        } finally {
            controller.stop();
            informers.stop();
        }
    }

    private List<String> podNames() {
        var items = get("/api/v1/namespaces/" + NS + "/pods").json().path("items");
        List<String> names = new java.util.ArrayList<>();
        for (var p : items) {
            if (!p.path("metadata").has("deletionTimestamp")) {
                names.add(p.path("metadata").path("name").asString());
            }
        }
        return names;
    }

    private int status(String field) {
        return get("/apis/apps/v1/namespaces/" + NS + "/replicasets/web").json().path("status").path(field).asInt(-1);
    }
}

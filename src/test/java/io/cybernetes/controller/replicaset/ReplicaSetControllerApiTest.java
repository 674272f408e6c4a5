package io.cybernetes.controller.replicaset;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ReplicaSet controller of the running application's controller manager: it creates
 * the pods, replaces one that is deleted, scales down, and reports in the reconcile status.
 */
class ReplicaSetControllerApiTest extends ApiTestSupport {

    static final String NS = "rs-controller";

    @Test
    void keepsTheWantedNumberOfPods() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
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
        assertThat(get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name=web").json()
                .path("items").toString()).contains("SuccessfulCreate", "SuccessfulDelete");
        // the pods were made by the controller manager, under its own identity
        var pod = get("/api/v1/namespaces/" + NS + "/pods/" + podNames().get(0)).json();
        assertThat(pod.path("metadata").path("ownerReferences").get(0).path("kind").asString()).isEqualTo("ReplicaSet");
        var view = get("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/replicasetreconciles/web").json();
        assertThat(view.path("status").path("desiredReplicas").asInt()).isEqualTo(1);
        assertThat(view.path("status").path("generationLag").asInt()).isZero();
        assertThat(view.path("status").path("lastReconcile").path("result").asString()).isIn("Success", "RequeueAfter");
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

package io.cybernetes.controller.nodelifecycle;

import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClients;
import io.cybernetes.controller.FakeKubelet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application's node lifecycle controller (grace period 5 s in tests): a node whose
 * heartbeats stop becomes Ready Unknown with the unreachable taint, its pods are evicted
 * after their tolerationSeconds and their ReplicaSet replaces them on the node that is
 * left; when the heartbeats come back the taint goes.
 */
class NodeEvictionApiTest extends ApiTestSupport {

    static final String NS = "eviction";

    @Test
    void podsOfANodeThatStopsHeartbeatingAreEvictedAndReplacedElsewhere() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        // a zone of their own: nodes other tests left behind, silent now, are no part of it
        try (FakeKubelet kubelet = new FakeKubelet(ApiClients.http(URI.create(url("")), null, token()), NS,
                List.of("evict-a", "evict-b"), Duration.ofMillis(100), Duration.ofSeconds(1), 4,
                Map.of("topology.kubernetes.io/zone", "eviction-test"))) {
            assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", """
                    {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
                     "spec":{"replicas":4,"selector":{"matchLabels":{"app":"web"}},
                      "template":{"metadata":{"labels":{"app":"web"}},
                       "spec":{"tolerations":[{"key":"node.kubernetes.io/unreachable","operator":"Exists",
                                               "effect":"NoExecute","tolerationSeconds":1}],
                               "containers":[{"name":"c","image":"nginx"}]}}}}""").code()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(30)).until(() -> readyOn("evict-a") + readyOn("evict-b") == 4
                    && readyOn("evict-a") > 0);

            kubelet.silence("evict-a");
            await().atMost(Duration.ofSeconds(30)).until(() -> "Unknown".equals(ready("evict-a")));
            JsonNode node = get("/api/v1/nodes/evict-a").json();
            assertThat(node.path("spec").path("taints").toString())
                    .contains("node.kubernetes.io/unreachable", "NoExecute");
            // the evicted pods stay Terminating on the unreachable node; their replacements run on the other
            await().atMost(Duration.ofSeconds(30)).until(() -> readyOn("evict-b") == 4 && readyOn("evict-a") == 0);
            assertThat(podsOn("evict-a")).allMatch(p -> p.path("metadata").has("deletionTimestamp"));
            assertThat(get("/api/v1/namespaces/" + NS + "/events").json().path("items").toString())
                    .contains("TaintManagerEviction");

            kubelet.resume("evict-a");
            await().atMost(Duration.ofSeconds(30)).until(() -> !get("/api/v1/nodes/evict-a").json().path("spec")
                    .path("taints").toString().contains("unreachable") && podsOn("evict-a").isEmpty());
        }
    }

    private String ready(String node) {
        for (JsonNode c : get("/api/v1/nodes/" + node).json().path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asString())) {
                return c.path("status").asString();
            }
        }
        return null;
    }

    private List<JsonNode> podsOn(String node) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : get("/api/v1/namespaces/" + NS + "/pods?fieldSelector=spec.nodeName%3D" + node).json()
                .path("items")) {
            out.add(p);
        }
        return out;
    }

    private int readyOn(String node) {
        int n = 0;
        for (JsonNode p : podsOn(node)) {
            if (!p.path("metadata").has("deletionTimestamp") && p.path("status").path("phase").asString()
                    .equals("Running")) {
                n++;
            }
        }
        return n;
    }
}

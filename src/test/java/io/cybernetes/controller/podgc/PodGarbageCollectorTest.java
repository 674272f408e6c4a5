package io.cybernetes.controller.podgc;

import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.TestClock;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Pods of nodes that are gone are deleted at once; others are left alone. */
class PodGarbageCollectorTest extends ApiTestSupport {

    static Pod pod(String name, String node) {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata().withNewSpec()
                .withNodeName(node).endSpec().build();
    }

    @Test
    void onlyPodsOfMissingNodesAreCollected() {
        RecordingApiClient client = new RecordingApiClient();
        Indexer<Pod> pods = new Indexer<>();
        PodGarbageCollector.addIndexes(pods);
        Indexer<Node> nodes = new Indexer<>();
        nodes.put(new NodeBuilder().withNewMetadata().withName("alive").endMetadata().build());
        pods.put(pod("on-alive", "alive"));
        pods.put(pod("on-gone", "gone"));
        pods.put(pod("unbound", null));
        PodGarbageCollector gc = new PodGarbageCollector(client, pods, nodes, Duration.ZERO, Clock.systemUTC());
        for (String name : List.of("on-alive", "on-gone", "unbound", "missing")) {
            gc.reconcile(new Request("ns", name));
        }
        assertThat(client.actions).containsExactly("delete Pod on-gone grace 0");
        assertThat(pods.byIndex(PodGarbageCollector.NODE_NAME_INDEX, "gone")).hasSize(1);
    }

    @Test
    void aMissingNodeIsQuarantinedAndThenConfirmedWithTheServer() {
        RecordingApiClient client = new RecordingApiClient();
        Indexer<Pod> pods = new Indexer<>();
        PodGarbageCollector.addIndexes(pods);
        pods.put(pod("late", "registering"));
        pods.put(pod("stranded", "gone"));
        TestClock clock = new TestClock();
        PodGarbageCollector gc = new PodGarbageCollector(client, pods, new Indexer<>(), Duration.ofSeconds(40), clock);
        assertThat(gc.reconcile(new Request("ns", "late")).requeueAfter()).isEqualTo(Duration.ofSeconds(40));
        assertThat(gc.reconcile(new Request("ns", "stranded")).requeueAfter()).isEqualTo(Duration.ofSeconds(40));
        clock.advance(Duration.ofSeconds(41));
        // the cache still lacks it, but the server has it: the node was only registering
        client.put(new NodeBuilder().withNewMetadata().withName("registering").endMetadata().build());
        gc.reconcile(new Request("ns", "late"));
        gc.reconcile(new Request("ns", "stranded"));
        assertThat(client.actions).containsExactly("delete Pod stranded grace 0");
    }

    @Test
    void aDeletedNodesPodsGoWithItOnTheRunningServer() throws Exception {
        String ns = "podgc";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post("/api/v1/nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"doomed-node\"}}")
                .code()).isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + ns + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"stranded\"},\"spec\":{\"nodeName\":\"doomed-node\",\"containers\":[{\"name\":\"c\","
                + "\"image\":\"nginx\"}]}}").code()).isEqualTo(201);
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        SharedInformerFactory informers = new SharedInformerFactory(client, Duration.ofSeconds(30));
        var pods = informers.informerFor(Pod.class);
        PodGarbageCollector.addIndexes(pods.indexer());
        var nodes = informers.informerFor(Node.class);
        PodGarbageCollector gc = new PodGarbageCollector(client, pods.indexer(), nodes.indexer(), Duration.ZERO,
                Clock.systemUTC());
        Controller controller = new Controller(PodGarbageCollector.NAME, gc, 1);
        pods.addEventHandler(gc.podHandler(controller));
        nodes.addEventHandler(gc.nodeHandler(controller));
        informers.start();
        try {
            assertThat(informers.waitForSync(Duration.ofSeconds(10))).isTrue();
            controller.start();
            assertThat(get("/api/v1/namespaces/" + ns + "/pods/stranded").code()).isEqualTo(200);
            assertThat(delete("/api/v1/nodes/doomed-node").code()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    get("/api/v1/namespaces/" + ns + "/pods/stranded").code() == 404);
        } finally {
            controller.stop();
            informers.stop();
        }
    }
}

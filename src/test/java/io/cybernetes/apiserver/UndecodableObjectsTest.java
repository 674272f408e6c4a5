package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.store.Store;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An object already stored that the controllers' models cannot hold (written before the
 * API checked what it stores: replicas past an int32) is passed over by their informers:
 * the other objects are reconciled as ever, and nothing loops on it.
 */
class UndecodableObjectsTest extends ApiTestSupport {

    @Autowired
    Store store;

    private static String deployment(String name, String replicas) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"" + name + "\","
                + "\"namespace\":\"undecodable\",\"uid\":\"u-" + name + "\",\"generation\":1,"
                + "\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},\"spec\":{\"replicas\":" + replicas + ","
                + "\"selector\":{\"matchLabels\":{\"app\":\"" + name + "\"}},\"template\":{\"metadata\":{\"labels\":"
                + "{\"app\":\"" + name + "\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}";
    }

    @Test
    void aStoredObjectNoModelCanHoldStopsNoController() {
        assertThat(createNamespace("undecodable").code()).isIn(201, 409);
        var deployments = ResourceRegistry.builtIn().byPath("apps", "v1", "deployments").orElseThrow();
        store.create(deployments.key("undecodable", "huge"), (ObjectNode) Json.MAPPER.readTree(
                deployment("huge", "99999999999999999999")));
        Response fine = post("/apis/apps/v1/namespaces/undecodable/deployments", deployment("fine", "2")
                .replace(",\"uid\":\"u-fine\",\"generation\":1,\"creationTimestamp\":\"2026-01-01T00:00:00Z\"", ""));
        assertThat(fine.code()).as(fine.body()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> get("/apis/apps/v1/namespaces/undecodable/replicasets")
                .json().path("items").toString().contains("\"fine-"));
    }
}

package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * metadata.managedFields kept by every write as Kubernetes' field manager keeps them for
 * updates: the writer (fieldManager, else its User-Agent's product) owns what it added and
 * changed, others lose what it took over or removed, entries merge by manager, operation and
 * subresource, a manager left with nothing loses its entry, a no-op writes nothing.
 */
class ManagedFieldsApiTest extends ApiTestSupport {

    static final String CM = "/api/v1/namespaces/default/configmaps";

    /** Each entry as manager/operation[/subresource] = fieldsV1. */
    private static List<String> managed(JsonNode obj) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : obj.path("metadata").path("managedFields")) {
            assertThat(e.path("fieldsType").asString()).isEqualTo("FieldsV1");
            assertThat(e.path("time").asString()).isNotEmpty();
            out.add(e.path("manager").asString() + "/" + e.path("operation").asString()
                    + (e.has("subresource") ? "/" + e.path("subresource").asString() : "") + "/"
                    + e.path("apiVersion").asString() + " = " + e.path("fieldsV1"));
        }
        return out;
    }

    @Test
    void updatesRecordWhoOwnsWhichFields() {
        Response created = post(CM + "?fieldManager=alice", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                + "{\"name\":\"owned\",\"labels\":{\"app\":\"x\"}},\"data\":{\"a\":\"1\",\"b\":\"2\"}}");
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(managed(created.json())).containsExactly("alice/Update/v1 = {\"f:data\":{\".\":{},\"f:a\":{},"
                + "\"f:b\":{}},\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}}}");

        Response bob = patch(CM + "/owned?fieldManager=bob", "application/merge-patch+json",
                "{\"data\":{\"b\":\"3\",\"c\":\"4\"}}");
        assertThat(managed(bob.json())).containsExactly(
                "alice/Update/v1 = {\"f:data\":{\".\":{},\"f:a\":{}},\"f:metadata\":{\"f:labels\":{\".\":{},"
                        + "\"f:app\":{}}}}",
                "bob/Update/v1 = {\"f:data\":{\"f:b\":{},\"f:c\":{}}}");

        // a no-op writes nothing, managedFields included
        Response same = patch(CM + "/owned?fieldManager=carol", "application/merge-patch+json",
                "{\"data\":{\"c\":\"4\"}}");
        assertThat(same.text("metadata.resourceVersion")).isEqualTo(bob.text("metadata.resourceVersion"));
        assertThat(managed(same.json())).hasSize(2);

        // the product of the User-Agent names a manager that gives none; a field removed leaves its owners
        Response curl = callWithHeaders(token(), "PATCH", CM + "/owned", "application/merge-patch+json",
                "{\"data\":{\"b\":null,\"c\":null}}", "application/json", "User-Agent", "curl/8.5.0");
        assertThat(managed(curl.json())).containsExactly(
                "alice/Update/v1 = {\"f:data\":{\".\":{},\"f:a\":{}},\"f:metadata\":{\"f:labels\":{\".\":{},"
                        + "\"f:app\":{}}}}");
        // sent back changed (as an edit may), managedFields stay the server's
        JsonNode edited = get(CM + "/owned").json();
        ((tools.jackson.databind.node.ObjectNode) edited.path("metadata")).putArray("managedFields");
        ((tools.jackson.databind.node.ObjectNode) edited.path("data")).put("d", "5");
        Response put = call("PUT", CM + "/owned?fieldManager=dave", "application/json", Json.write(edited));
        assertThat(managed(put.json())).containsExactly(
                "alice/Update/v1 = {\"f:data\":{\".\":{},\"f:a\":{}},\"f:metadata\":{\"f:labels\":{\".\":{},"
                        + "\"f:app\":{}}}}",
                "dave/Update/v1 = {\"f:data\":{\"f:d\":{}}}");
    }

    @Test
    void listItemsAreKeyedAndSubresourcesRecordedApart() {
        Response d = post("/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create",
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"managed\"},\"spec\":"
                        + "{\"replicas\":0,\"selector\":{\"matchLabels\":{\"app\":\"m\"}},\"template\":{\"metadata\":"
                        + "{\"labels\":{\"app\":\"m\"}},\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx\","
                        + "\"ports\":[{\"containerPort\":80}],\"env\":[{\"name\":\"A\",\"value\":\"1\"}]}]}}}}");
        assertThat(d.code()).as(d.body()).isEqualTo(201);
        JsonNode fields = d.json().path("metadata").path("managedFields").get(0).path("fieldsV1");
        JsonNode container = fields.at("/f:spec/f:template/f:spec/f:containers/k:{\"name\":\"web\"}");
        assertThat(container.has(".")).isTrue();
        assertThat(container.has("f:image")).isTrue();
        assertThat(container.path("f:ports").has("k:{\"containerPort\":80,\"protocol\":\"TCP\"}")).isTrue();
        assertThat(container.path("f:env").path("k:{\"name\":\"A\"}").has("f:value")).isTrue();
        assertThat(fields.path("f:spec").has("f:replicas")).isTrue();
        assertThat(fields.has("f:status")).as("status is not the creator's").isFalse();

        Response status = patch("/apis/apps/v1/namespaces/default/deployments/managed/status?fieldManager=observer",
                "application/merge-patch+json", "{\"status\":{\"observedGeneration\":1}}");
        assertThat(status.code()).as(status.body()).isEqualTo(200);
        assertThat(managed(status.json())).anyMatch(e -> e.startsWith("observer/Update/status/apps/v1 = ")
                && e.contains("\"f:observedGeneration\":{}"));
    }

    @Test
    void aFieldManagerLongerThanKubernetesAllowsIsRefused() {
        Response r = post(CM + "?fieldManager=" + "m".repeat(129), "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"too-long-manager\"}}");
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.text("message")).isEqualTo("CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long:"
                + " may not be more than 128 bytes");
        assertThat(get(CM + "/too-long-manager").code()).isEqualTo(404);
    }
}

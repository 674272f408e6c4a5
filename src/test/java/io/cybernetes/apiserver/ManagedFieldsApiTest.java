package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

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

        // the Deployment controller's own writes are recorded under kube-controller-manager, as in Kubernetes
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(managed(get("/apis/apps/v1/namespaces/default/deployments/managed").json())).anyMatch(
                        e -> e.startsWith("kube-controller-manager/Update/status/apps/v1 = ")
                                && e.contains("\"f:observedGeneration\":{}")));

        // a value the controller never writes, so the write changes it whatever the controller did first
        Response status = patch("/apis/apps/v1/namespaces/default/deployments/managed/status?fieldManager=observer",
                "application/merge-patch+json", "{\"status\":{\"observedGeneration\":42}}");
        assertThat(status.code()).as(status.body()).isEqualTo(200);
        List<String> after = managed(status.json());
        assertThat(after).anyMatch(e -> e.startsWith("observer/Update/status/apps/v1 = ")
                && e.contains("\"f:observedGeneration\":{}"));
        assertThat(after).as("the field taken over leaves its earlier owner").noneMatch(e ->
                e.startsWith("kube-controller-manager/Update/status/") && e.contains("\"f:observedGeneration\""));
    }

    @Test
    void managedFieldsAClientChangesAreTakenAsSent() {
        assertThat(post(CM + "?fieldManager=kubectl-client-side-apply", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"migrated\"},\"data\":{\"a\":\"1\"}}").code()).isEqualTo(201);
        // as kubectl moves client-side apply's fields to server-side apply: the entry renamed and made Apply
        Response moved = patch(CM + "/migrated?fieldManager=kubectl", "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/metadata/managedFields/0/manager\",\"value\":\"kubectl\"},"
                        + "{\"op\":\"replace\",\"path\":\"/metadata/managedFields/0/operation\",\"value\":\"Apply\"}]");
        assertThat(moved.code()).as(moved.body()).isEqualTo(200);
        assertThat(managed(moved.json())).containsExactly("kubectl/Apply/v1 = {\"f:data\":{\".\":{},\"f:a\":{}}}");
        Response cleared = patch(CM + "/migrated", "application/merge-patch+json",
                "{\"metadata\":{\"managedFields\":[{}]}}");
        assertThat(cleared.json().path("metadata").has("managedFields")).isFalse();
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

    private Response apply(String path, String manager, String yaml) {
        return call("PATCH", path + "?fieldManager=" + manager, "application/apply-patch+yaml", yaml);
    }

    private static String cm(String name, String data) {
        return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" + (data == null ? ""
                : "data: " + data + "\n");
    }

    @Test
    void applyOwnsWhatItAppliesConflictsAndRemovesWhatItDrops() {
        Response created = apply(CM + "/applied", "alice", cm("applied", "{a: '1', x: '9', shared: s}"));
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(managed(created.json())).containsExactly(
                "alice/Apply/v1 = {\"f:data\":{\"f:a\":{},\"f:shared\":{},\"f:x\":{}}}");
        Response bob = apply(CM + "/applied", "bob", cm("applied", "{b: '2', shared: s}"));
        assertThat(bob.code()).as(bob.body()).isEqualTo(200);
        assertThat(bob.json().path("data").size()).isEqualTo(4);
        assertThat(managed(bob.json())).containsExactly(
                "alice/Apply/v1 = {\"f:data\":{\"f:a\":{},\"f:shared\":{},\"f:x\":{}}}",
                "bob/Apply/v1 = {\"f:data\":{\"f:b\":{},\"f:shared\":{}}}");

        Response conflict = apply(CM + "/applied", "bob", cm("applied", "{a: changed, b: '2', shared: s}"));
        assertThat(conflict.code()).isEqualTo(409);
        assertThat(conflict.text("reason")).isEqualTo("Conflict");
        assertThat(conflict.text("message")).isEqualTo("Apply failed with 1 conflict: conflict with \"alice\" using"
                + " v1: .data.a");
        JsonNode cause = conflict.json().path("details").path("causes").get(0);
        assertThat(cause.path("reason").asString()).isEqualTo("FieldManagerConflict");
        assertThat(cause.path("field").asString()).isEqualTo(".data.a");
        assertThat(get(CM + "/applied").text("data.a")).isEqualTo("1");

        Response forced = call("PATCH", CM + "/applied?fieldManager=bob&force=true", "application/apply-patch+yaml",
                cm("applied", "{a: changed, b: '2', shared: s}"));
        assertThat(forced.code()).as(forced.body()).isEqualTo(200);
        assertThat(forced.text("data.a")).isEqualTo("changed");
        assertThat(managed(forced.json())).containsExactly(
                "alice/Apply/v1 = {\"f:data\":{\"f:shared\":{},\"f:x\":{}}}",
                "bob/Apply/v1 = {\"f:data\":{\"f:a\":{},\"f:b\":{},\"f:shared\":{}}}");

        // alice drops x (hers alone: removed) and shared (bob's too: kept)
        Response dropped = apply(CM + "/applied", "alice", cm("applied", null));
        assertThat(dropped.code()).as(dropped.body()).isEqualTo(200);
        assertThat(dropped.json().path("data").has("x")).isFalse();
        assertThat(dropped.text("data.shared")).isEqualTo("s");
        assertThat(managed(dropped.json())).containsExactly(
                "bob/Apply/v1 = {\"f:data\":{\"f:a\":{},\"f:b\":{},\"f:shared\":{}}}");

        Response noManager = call("PATCH", CM + "/applied", "application/apply-patch+yaml", cm("applied", "{}"));
        assertThat(noManager.code()).isEqualTo(422);
        assertThat(noManager.text("message")).isEqualTo("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager:"
                + " Required value: is required for apply patch");
    }

    @Test
    void applyMergesKeyedListsItemByItem() {
        String base = "/apis/apps/v1/namespaces/default/deployments";
        String deployment = """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: applied}
                spec:
                  replicas: 0
                  selector: {matchLabels: {app: applied}}
                  template:
                    metadata: {labels: {app: applied}}
                    spec:
                      containers:
                      - name: %s
                        image: %s
                """;
        assertThat(apply(base + "/applied", "alice", deployment.formatted("web", "nginx:1")).code()).isEqualTo(201);
        Response side = apply(base + "/applied", "bob", """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: applied}
                spec:
                  template:
                    spec:
                      containers:
                      - name: side
                        image: busybox
                """);
        assertThat(side.code()).as(side.body()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        side.json().at("/spec/template/spec/containers").forEach(c -> names.add(c.path("name").asString()));
        assertThat(names).containsExactly("web", "side");
        Response upgraded = apply(base + "/applied", "alice", deployment.formatted("web", "nginx:2"));
        assertThat(upgraded.code()).as(upgraded.body()).isEqualTo(200);
        assertThat(upgraded.json().at("/spec/template/spec/containers").size()).isEqualTo(2);
        assertThat(upgraded.json().at("/spec/template/spec/containers/0/image").asString()).isEqualTo("nginx:2");
    }

    static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

    @Test
    void scaleAndStatusWritesAreRecordedByTheirSubresource() {
        assertThat(apply(DEPLOYMENTS + "/scaled", "deployer", """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: scaled}
                spec:
                  replicas: 0
                  selector: {matchLabels: {app: scaled}}
                  template:
                    metadata: {labels: {app: scaled}}
                    spec:
                      containers: [{name: web, image: nginx}]
                """).code()).isEqualTo(201);
        // kubectl scale: a merge patch of the Scale, recorded as an update of the scale subresource
        Response scaled = patch(DEPLOYMENTS + "/scaled/scale?fieldManager=kubectl-scale",
                "application/merge-patch+json", "{\"spec\":{\"replicas\":0}}");
        assertThat(scaled.code()).as(scaled.body()).isEqualTo(200);
        Response hpa = call("PUT", DEPLOYMENTS + "/scaled/scale?fieldManager=hpa", "application/json",
                "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"scaled\"},"
                        + "\"spec\":{\"replicas\":1}}");
        assertThat(hpa.code()).as(hpa.body()).isEqualTo(200);
        List<String> entries = managed(get(DEPLOYMENTS + "/scaled").json());
        assertThat(entries).contains("hpa/Update/scale/apps/v1 = {\"f:spec\":{\"f:replicas\":{}}}");
        assertThat(entries).noneMatch(e -> e.startsWith("deployer/") && e.contains("f:replicas"));

        // the deployer's configuration still says 0: a conflict with the autoscaler, as in Kubernetes
        Response reapplied = apply(DEPLOYMENTS + "/scaled", "deployer", """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: scaled}
                spec:
                  replicas: 0
                """);
        assertThat(reapplied.code()).isEqualTo(409);
        assertThat(reapplied.text("message")).isEqualTo("Apply failed with 1 conflict: conflict with \"hpa\" using"
                + " apps/v1: .spec.replicas");

        // apply of a Scale: the replicas at the kind's path, owned in an Apply entry of subresource scale
        String scale = "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: scaled}\nspec: {replicas: 2}\n";
        assertThat(apply(DEPLOYMENTS + "/scaled/scale", "scaler", scale).code()).isEqualTo(409);
        Response forced = call("PATCH", DEPLOYMENTS + "/scaled/scale?fieldManager=scaler&force=true",
                "application/apply-patch+yaml", scale);
        assertThat(forced.code()).as(forced.body()).isEqualTo(200);
        assertThat(forced.text("kind")).isEqualTo("Scale");
        assertThat(forced.json().at("/spec/replicas").asInt()).isEqualTo(2);
        entries = managed(get(DEPLOYMENTS + "/scaled").json());
        assertThat(entries).contains("scaler/Apply/scale/apps/v1 = {\"f:spec\":{\"f:replicas\":{}}}");
        assertThat(entries).noneMatch(e -> e.startsWith("hpa/"));
        assertThat(apply(DEPLOYMENTS + "/scaled/scale", "scaler",
                "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: scaled}\nspec: {replicas: -1}\n").code())
                .isEqualTo(422);

        // apply through /status owns status fields only: what it says of the spec is not applied
        Response status = call("PATCH", DEPLOYMENTS + "/scaled/status?fieldManager=reporter&force=true",
                "application/apply-patch+yaml", """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: scaled}
                spec: {replicas: 7}
                status: {observedGeneration: 99}
                """);
        assertThat(status.code()).as(status.body()).isEqualTo(200);
        assertThat(status.json().at("/spec/replicas").asInt()).isEqualTo(2);
        assertThat(status.json().at("/status/observedGeneration").asInt()).isEqualTo(99);
        assertThat(managed(status.json())).contains(
                "reporter/Apply/status/apps/v1 = {\"f:status\":{\"f:observedGeneration\":{}}}");
    }

    @Test
    void kubectlTakesOverWhatItsClientSideApplyStillHolds() {
        String last = "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\",\"b\":\"2\"},\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"annotations\":{},\"name\":\"upgraded\",\"namespace\":\"default\"}}\n";
        ObjectNode cm = Json.object();
        cm.put("apiVersion", "v1");
        cm.put("kind", "ConfigMap");
        cm.putObject("metadata").put("name", "upgraded").putObject("annotations")
                .put("kubectl.kubernetes.io/last-applied-configuration", last);
        cm.putObject("data").put("a", "1").put("b", "2");
        assertThat(post(CM + "?fieldManager=kubectl-client-side-apply", Json.write(cm)).code()).isEqualTo(201);
        // someone edits b: it is no longer as the last client-side apply left it
        assertThat(patch(CM + "/upgraded?fieldManager=kubectl-edit", "application/merge-patch+json",
                "{\"data\":{\"b\":\"edited\"}}").code()).isEqualTo(200);

        String applied = cm("upgraded", "{a: '10', b: '20'}");
        Response conflict = apply(CM + "/upgraded", "kubectl", applied);
        assertThat(conflict.code()).isEqualTo(409);
        assertThat(conflict.text("message")).as("a, as last applied, is no conflict")
                .isEqualTo("Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.b");

        Response ok = apply(CM + "/upgraded", "kubectl", cm("upgraded", "{a: '10'}"));
        assertThat(ok.code()).as(ok.body()).isEqualTo(200);
        assertThat(ok.text("data.a")).isEqualTo("10");
        assertThat(managed(ok.json())).contains("kubectl/Apply/v1 = {\"f:data\":{\"f:a\":{}}}");
        assertThat(ok.json().path("metadata").path("annotations")
                .path("kubectl.kubernetes.io/last-applied-configuration").asString()).as("follows the apply")
                .isEqualTo("{\"apiVersion\":\"v1\",\"data\":{\"a\":\"10\"},\"kind\":\"ConfigMap\","
                        + "\"metadata\":{\"name\":\"upgraded\"}}\n");
        // another manager has no such pass
        assertThat(apply(CM + "/upgraded", "argocd", cm("upgraded", "{b: x}")).code()).isEqualTo(409);
    }

    @Test
    void applyIsAWriteLikeAnyOther() {
        // dryRun=All: the answer an apply would give, nothing stored
        Response dry = call("PATCH", CM + "/dry-applied?fieldManager=alice&dryRun=All", "application/apply-patch+yaml",
                cm("dry-applied", "{a: '1'}"));
        assertThat(dry.code()).as(dry.body()).isEqualTo(201);
        assertThat(managed(dry.json())).containsExactly("alice/Apply/v1 = {\"f:data\":{\"f:a\":{}}}");
        assertThat(get(CM + "/dry-applied").code()).isEqualTo(404);

        // fieldValidation=Strict refuses unknown and repeated fields of the applied configuration
        Response unknown = call("PATCH", CM + "/strict-applied?fieldManager=alice&fieldValidation=Strict",
                "application/apply-patch+yaml", cm("strict-applied", "{a: '1'}") + "extra: field\n");
        assertThat(unknown.code()).as(unknown.body()).isEqualTo(400);
        assertThat(unknown.text("message")).contains("unknown field \"extra\"");
        Response repeated = call("PATCH", CM + "/strict-applied?fieldManager=alice&fieldValidation=Strict",
                "application/apply-patch+yaml", cm("strict-applied", "{a: '1', a: '2'}"));
        assertThat(repeated.code()).as(repeated.body()).isEqualTo(400);
        assertThat(repeated.text("message")).isEqualTo("error strict decoding YAML: error converting YAML to JSON:"
                + " yaml: unmarshal errors:\n  line 5: key \"a\" already set in map");
        Response warned = call("PATCH", CM + "/strict-applied?fieldManager=alice&fieldValidation=Warn&dryRun=All",
                "application/apply-patch+yaml", cm("strict-applied", "{a: '1', a: '2'}"));
        assertThat(warned.code()).as(warned.body()).isEqualTo(201);
        assertThat(warned.headers().firstValue("Warning").orElse("")).contains("key \\\"a\\\" already set in map");
        assertThat(get(CM + "/strict-applied").code()).isEqualTo(404);

        // apply is the patch verb: a viewer may not
        String ns = "ssa-rbac";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings",
                RbacEscalationTest.roleBinding("victor-view", "ClusterRole", "view", "victor")).code()).isIn(201, 409);
        Response viewer = callAs("victor-token", "PATCH", "/api/v1/namespaces/" + ns + "/configmaps/viewed?fieldManager=victor",
                "application/apply-patch+yaml", cm("viewed", "{a: '1'}"), "application/json");
        assertThat(viewer.code()).as(viewer.body()).isEqualTo(403);
        assertThat(viewer.text("message")).isEqualTo("configmaps \"viewed\" is forbidden: User \"victor\" cannot patch"
                + " resource \"configmaps\" in API group \"\" in the namespace \"ssa-rbac\"");
    }
}

package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of server-side apply scenarios every client runs (the API itself, kubectl,
 * fabric8): each step one apply by a manager, its outcome (applied, or the conflict the
 * client shows), and then the object and its managedFields as the API serves them. A
 * subclass says how its client applies; each client works in a namespace of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ApplyScenariosSupport extends ApiTestSupport {

    /** What the client made of one apply: null when it applied, else the error it reported. */
    protected abstract String apply(String namespace, Target target, String yaml, String manager, boolean force);

    /**
     * Makes the object as client-side {@code kubectl apply} 1.32 does (the configuration kept
     * in the last-applied annotation, manager kubectl-client-side-apply), over the API.
     */
    protected void applyClientSide(String namespace, Target target, String yaml) {
        ObjectNode config = Json.parseObject(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8), true);
        ObjectNode meta = Json.child(config, "metadata");
        meta.put("namespace", namespace);
        ObjectNode obj = config.deepCopy();
        Json.child(Json.child(obj, "metadata"), "annotations").put(
                "kubectl.kubernetes.io/last-applied-configuration", Json.write(config) + "\n");
        Response r = post(target.collection().replace("{ns}", namespace) + "?fieldManager=kubectl-client-side-apply",
                Json.write(obj));
        assertThat(r.code()).as(r.body()).isEqualTo(201);
    }

    /** The namespace this client's scenarios run in. */
    protected abstract String namespace();

    /** Where a scenario applies: the collection's path in a namespace, an object's name, a subresource or none. */
    record Target(String collection, String name, String subresource) {
        String path(String namespace) {
            return collection.replace("{ns}", namespace) + "/" + name;
        }

        /** Where the apply goes: the object, or its subresource. */
        String applyPath(String namespace) {
            return path(namespace) + (subresource == null ? "" : "/" + subresource);
        }

        String kind() {
            return collection.endsWith("/configmaps") ? "configmaps" : collection.endsWith("/deployments")
                    ? "deployments" : "widgets.ssa.example.com";
        }
    }

    /** One apply and what must hold after it. */
    record Step(String manager, boolean force, boolean clientSide, String subresource, String yaml,
                String conflict, Map<String, String> values, List<String> managed, List<String> owns) {

        Step expectValues(Map<String, String> v) {
            return new Step(manager, force, clientSide, subresource, yaml, conflict, v, managed, owns);
        }

        /** The object's managedFields, exactly: {@code manager/Operation[/subresource] = fieldsV1}. */
        Step expectManaged(String... entries) {
            return new Step(manager, force, clientSide, subresource, yaml, conflict, values, List.of(entries), owns);
        }

        /** Paths in managedFields that must be there: {@code manager/Operation[/subresource] /f:spec/...}. */
        Step expectOwns(String... paths) {
            return new Step(manager, force, clientSide, subresource, yaml, conflict, values, managed, List.of(paths));
        }

        /** The apply fails for the conflict (the message the server words). */
        Step expectConflict(String message) {
            return new Step(manager, force, clientSide, subresource, yaml, message, values, managed, owns);
        }

        Step through(String sub) {
            return new Step(manager, force, clientSide, sub, yaml, conflict, values, managed, owns);
        }
    }

    record Scenario(String name, String collection, String object, List<Step> steps) {
    }

    static Step apply(String manager, String yaml) {
        return new Step(manager, false, false, null, yaml, null, Map.of(), null, List.of());
    }

    static Step force(String manager, String yaml) {
        return new Step(manager, true, false, null, yaml, null, Map.of(), null, List.of());
    }

    static Step clientSide(String yaml) {
        return new Step(null, false, true, null, yaml, null, Map.of(), null, List.of());
    }

    static final String CM = "/api/v1/namespaces/{ns}/configmaps";
    static final String DEPLOY = "/apis/apps/v1/namespaces/{ns}/deployments";
    static final String WIDGETS = "/apis/ssa.example.com/v1/namespaces/{ns}/widgets";

    static String cm(String name, String data) {
        return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
                + (data == null ? "" : "data: " + data + "\n");
    }

    static String deployment(String name, String containers) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: %s
                spec:
                  replicas: 0
                  selector:
                    matchLabels: {app: %s}
                  template:
                    metadata:
                      labels: {app: %s}
                    spec:
                      containers:
                %s""".formatted(name, name, name, containers.indent(6));
    }

    /** A Deployment configuration that names only containers (as a second manager applies). */
    static String containersOnly(String name, String containers) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: %s
                spec:
                  template:
                    spec:
                      containers:
                %s""".formatted(name, containers.indent(6));
    }

    static String widget(String name, String spec) {
        return "apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n" + spec;
    }

    static final String CONTAINERS = "/f:spec/f:template/f:spec/f:containers";

    /** The scenarios, in the order the issue lists them. */
    static List<Scenario> scenarios() {
        List<Scenario> all = new ArrayList<>();
        all.add(new Scenario("apply creates the object", CM, "created", List.of(
                apply("alice", cm("created", "{a: '1'}"))
                        .expectValues(Map.of("/data/a", "\"1\""))
                        .expectManaged("alice/Apply = {\"f:data\":{\"f:a\":{}}}"))));
        all.add(new Scenario("two managers own different fields", CM, "two", List.of(
                apply("alice", cm("two", "{a: '1'}")),
                apply("bob", cm("two", "{b: '2'}"))
                        .expectValues(Map.of("/data/a", "\"1\"", "/data/b", "\"2\""))
                        .expectManaged("alice/Apply = {\"f:data\":{\"f:a\":{}}}",
                                "bob/Apply = {\"f:data\":{\"f:b\":{}}}"))));
        all.add(new Scenario("a conflict names the other manager and changes nothing", CM, "conflict", List.of(
                apply("alice", cm("conflict", "{a: '1'}")),
                apply("bob", cm("conflict", "{a: '2'}"))
                        .expectConflict("Apply failed with 1 conflict: conflict with \"alice\" using v1: .data.a")
                        .expectValues(Map.of("/data/a", "\"1\""))
                        .expectManaged("alice/Apply = {\"f:data\":{\"f:a\":{}}}"))));
        all.add(new Scenario("force takes the field over", CM, "forced", List.of(
                apply("alice", cm("forced", "{a: '1', keep: k}")),
                force("bob", cm("forced", "{a: '2'}"))
                        .expectValues(Map.of("/data/a", "\"2\"", "/data/keep", "\"k\""))
                        .expectManaged("alice/Apply = {\"f:data\":{\"f:keep\":{}}}",
                                "bob/Apply = {\"f:data\":{\"f:a\":{}}}"))));
        all.add(new Scenario("a field dropped by its only owner goes, by a co-owner stays", CM, "dropped", List.of(
                apply("alice", cm("dropped", "{mine: m, shared: s}")),
                apply("bob", cm("dropped", "{shared: s}"))
                        .expectManaged("alice/Apply = {\"f:data\":{\"f:mine\":{},\"f:shared\":{}}}",
                                "bob/Apply = {\"f:data\":{\"f:shared\":{}}}"),
                apply("alice", cm("dropped", null))
                        .expectValues(Map.of("/data/mine", "", "/data/shared", "\"s\""))
                        .expectManaged("bob/Apply = {\"f:data\":{\"f:shared\":{}}}"))));
        all.add(new Scenario("containers, env and ports merge by their keys", DEPLOY, "keyed", List.of(
                apply("alice", deployment("keyed", """
                        - name: web
                          image: nginx:1
                          env: [{name: A, value: '1'}]
                          ports: [{containerPort: 80}]""")),
                apply("bob", containersOnly("keyed", """
                        - name: web
                          env: [{name: B, value: '2'}]
                          ports: [{containerPort: 443}]
                        - name: side
                          image: busybox"""))
                        .expectValues(Map.of("/spec/template/spec/containers/0/name", "\"web\"",
                                "/spec/template/spec/containers/0/image", "\"nginx:1\"",
                                "/spec/template/spec/containers/0/env/1/name", "\"B\"",
                                "/spec/template/spec/containers/0/ports/1/containerPort", "443",
                                "/spec/template/spec/containers/1/name", "\"side\""))
                        .expectOwns("bob/Apply " + CONTAINERS + "/k:{\"name\":\"side\"}/f:image",
                                "bob/Apply " + CONTAINERS + "/k:{\"name\":\"web\"}/f:env/k:{\"name\":\"B\"}/f:value",
                                "bob/Apply " + CONTAINERS + "/k:{\"name\":\"web\"}/f:ports/"
                                        + "k:{\"containerPort\":443,\"protocol\":\"TCP\"}/f:containerPort",
                                "alice/Apply " + CONTAINERS + "/k:{\"name\":\"web\"}/f:image"),
                apply("alice", deployment("keyed", """
                        - name: web
                          image: nginx:2
                          env: [{name: A, value: '1'}]
                          ports: [{containerPort: 80}]"""))
                        .expectValues(Map.of("/spec/template/spec/containers/0/image", "\"nginx:2\"",
                                "/spec/template/spec/containers/0/env/1/name", "\"B\"",
                                "/spec/template/spec/containers/1/name", "\"side\"")))));
        all.add(new Scenario("atomic lists are replaced whole", DEPLOY, "atomic", List.of(
                apply("alice", deployment("atomic", "- {name: web, image: nginx, args: [a, b]}")),
                apply("alice", deployment("atomic", "- {name: web, image: nginx, args: [c]}"))
                        .expectValues(Map.of("/spec/template/spec/containers/0/args/0", "\"c\"",
                                "/spec/template/spec/containers/0/args/1", ""))
                        .expectOwns("alice/Apply " + CONTAINERS + "/k:{\"name\":\"web\"}/f:args"),
                apply("bob", containersOnly("atomic", "- {name: web, args: [d]}"))
                        .expectConflict("Apply failed with 1 conflict: conflict with \"alice\" using apps/v1:"
                                + " .spec.template.spec.containers[name=\"web\"].args"))));
        all.add(new Scenario("client-side apply moves to server-side apply", CM, "migrated", List.of(
                clientSide(cm("migrated", "{a: '1', b: '2'}")),
                apply("kubectl", cm("migrated", "{a: '10', b: '2'}"))
                        .expectValues(Map.of("/data/a", "\"10\"", "/data/b", "\"2\""))
                        .expectOwns("kubectl/Apply /f:data/f:a", "kubectl/Apply /f:data/f:b"))));
        all.add(new Scenario("a custom resource merges by its list types", WIDGETS, "listed", List.of(
                apply("alice", widget("listed", "spec:\n  ports: [{name: http, port: 80}]\n  tags: [red]\n")),
                apply("bob", widget("listed", "spec:\n  ports: [{name: https, port: 443}]\n  tags: [blue]\n"))
                        .expectValues(Map.of("/spec/ports/0/name", "\"http\"", "/spec/ports/1/port", "443",
                                "/spec/tags/0", "\"red\"", "/spec/tags/1", "\"blue\""))
                        .expectManaged("alice/Apply = {\"f:spec\":{\"f:ports\":{\"k:{\\\"name\\\":\\\"http\\\"}\":"
                                        + "{\".\":{},\"f:name\":{},\"f:port\":{}}},\"f:tags\":{\"v:\\\"red\\\"\":{}}}}",
                                "bob/Apply = {\"f:spec\":{\"f:ports\":{\"k:{\\\"name\\\":\\\"https\\\"}\":"
                                        + "{\".\":{},\"f:name\":{},\"f:port\":{}}},\"f:tags\":{\"v:\\\"blue\\\"\":{}}}}"),
                apply("bob", widget("listed", "spec:\n  ports: [{name: http, port: 8080}]\n"))
                        .expectConflict("Apply failed with 1 conflict: conflict with \"alice\" using"
                                + " ssa.example.com/v1: .spec.ports[name=\"http\"].port"))));
        all.add(new Scenario("apply through /status owns status fields only", WIDGETS, "reported", List.of(
                apply("alice", widget("reported", "spec:\n  tags: [red]\n")),
                apply("reporter", widget("reported", "spec:\n  tags: [blue]\nstatus:\n  phase: Ready\n"))
                        .through("status")
                        .expectValues(Map.of("/status/phase", "\"Ready\"", "/spec/tags/0", "\"red\"",
                                "/spec/tags/1", ""))
                        .expectManaged("alice/Apply = {\"f:spec\":{\"f:tags\":{\"v:\\\"red\\\"\":{}}}}",
                                "reporter/Apply/status = {\"f:status\":{\"f:phase\":{}}}"))));
        return all;
    }

    static final String WIDGET_CRD = """
            {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
             "metadata":{"name":"widgets.ssa.example.com"},
             "spec":{"group":"ssa.example.com","scope":"Namespaced",
              "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
              "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
               "schema":{"openAPIV3Schema":{"type":"object","properties":{
                "spec":{"type":"object","properties":{
                 "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                  "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},
                   "port":{"type":"integer"}}}},
                 "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}},
                "status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}}""";

    @BeforeAll
    void widgetsAndNamespace() {
        Response crd = post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", WIDGET_CRD);
        assertThat(crd.code()).as(crd.body()).isIn(201, 409);
        eventually(() -> assertThat(get(WIDGETS.replace("{ns}", "default")).code()).isEqualTo(200));
        assertThat(createNamespace(namespace()).code()).isIn(201, 409);
    }

    @TestFactory
    Stream<DynamicTest> applyScenarios() {
        return scenarios().stream().map(s -> DynamicTest.dynamicTest(s.name(), () -> run(s)));
    }

    private void run(Scenario s) {
        String ns = namespace();
        for (int i = 0; i < s.steps().size(); i++) {
            Step step = s.steps().get(i);
            Target target = new Target(s.collection(), s.object(), step.subresource());
            String at = s.name() + ", step " + (i + 1) + " (" + (step.clientSide() ? "client-side apply"
                    : step.manager()) + ")";
            if (step.clientSide()) {
                applyClientSide(ns, target, step.yaml());
                continue;
            }
            String error = apply(ns, target, step.yaml(), step.manager(), step.force());
            if (step.conflict() == null) {
                assertThat(error).as(at + ": applied").isNull();
            } else {
                assertThat(error).as(at + ": refused for the conflict").isNotNull().contains(step.conflict());
            }
            Response live = get(target.path(ns));
            assertThat(live.code()).as(at + ": " + live.body()).isEqualTo(200);
            JsonNode obj = live.json();
            step.values().forEach((pointer, want) -> {
                JsonNode v = obj.at(pointer);
                if (want.isEmpty()) {
                    assertThat(v.isMissingNode()).as(at + ": " + pointer + " is gone, in " + obj).isTrue();
                } else {
                    assertThat(Json.write(v)).as(at + ": " + pointer + " in " + obj).isEqualTo(want);
                }
            });
            List<String> entries = new ArrayList<>();
            for (JsonNode e : obj.path("metadata").path("managedFields")) {
                entries.add(entryName(e) + " = " + e.path("fieldsV1"));
            }
            if (step.managed() != null) {
                assertThat(entries).as(at + ": managedFields").containsExactlyInAnyOrderElementsOf(step.managed());
            }
            for (String owned : step.owns()) {
                String who = owned.substring(0, owned.indexOf(' '));
                String path = owned.substring(owned.indexOf(' ') + 1);
                JsonNode entry = null;
                for (JsonNode e : obj.path("metadata").path("managedFields")) {
                    if (entryName(e).equals(who)) {
                        entry = e;
                    }
                }
                assertThat(entry).as(at + ": an entry of " + who + " in " + entries).isNotNull();
                assertThat(entry.path("fieldsV1").at(path).isMissingNode())
                        .as(at + ": " + who + " owns " + path + " in " + entry.path("fieldsV1")).isFalse();
            }
        }
    }

    private static String entryName(JsonNode e) {
        return e.path("manager").asString() + "/" + e.path("operation").asString()
                + (e.has("subresource") ? "/" + e.path("subresource").asString() : "");
    }
}

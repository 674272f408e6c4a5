package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CustomResourceDefinitions over HTTP: a CRD is validated, accepted and established,
 * then its kind is served at its paths, in discovery and in OpenAPI, with its schema's
 * pruning, defaulting and validation, its status and scale subresources and its printer
 * columns; a deleted CRD takes its instances with it. Each test has a group of its own
 * (the server is shared by the test classes).
 */
class CustomResourceApiTest extends ApiTestSupport {

    static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

    /** A namespaced kind Widget (plural widgets, short name wd) of the group, with status and scale. */
    static String widgetCrd(String group) {
        return """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata:
                  name: widgets.%s
                spec:
                  group: %s
                  scope: Namespaced
                  names:
                    plural: widgets
                    singular: widget
                    kind: Widget
                    shortNames: [wd]
                    categories: [toys]
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    subresources:
                      status: {}
                      scale:
                        specReplicasPath: .spec.replicas
                        statusReplicasPath: .status.replicas
                        labelSelectorPath: .status.selector
                    additionalPrinterColumns:
                    - name: Color
                      type: string
                      jsonPath: .spec.color
                    - name: Replicas
                      type: integer
                      jsonPath: .spec.replicas
                    - name: Ready
                      type: string
                      priority: 1
                      jsonPath: .status.conditions[?(@.type=="Ready")].status
                    schema:
                      openAPIV3Schema:
                        type: object
                        properties:
                          spec:
                            type: object
                            required: [color]
                            properties:
                              color:
                                type: string
                                enum: [red, green, blue]
                              size:
                                type: string
                                default: medium
                                pattern: '^(small|medium|large)$'
                              replicas:
                                type: integer
                                minimum: 0
                                maximum: 10
                                default: 1
                              tags:
                                type: array
                                maxItems: 3
                                x-kubernetes-list-type: set
                                items:
                                  type: string
                                  maxLength: 5
                              labels:
                                type: object
                                additionalProperties:
                                  type: string
                              anything:
                                type: object
                                x-kubernetes-preserve-unknown-fields: true
                          status:
                            type: object
                            properties:
                              replicas:
                                type: integer
                              selector:
                                type: string
                              conditions:
                                type: array
                                items:
                                  type: object
                                  properties:
                                    type: {type: string}
                                    status: {type: string}
                """.formatted(group, group);
    }

    private Response postYaml(String path, String yaml) {
        return call("POST", path, "application/yaml", yaml);
    }

    /** Creates the CRD and waits until its kind is served. */
    private void establish(String group) {
        Response created = postYaml(CRDS, widgetCrd(group));
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        eventually(() -> assertThat(get("/apis/" + group + "/v1/namespaces/default/widgets").code()).isEqualTo(200));
    }

    private static String widget(String group, String name, String spec) {
        return "{\"apiVersion\":\"" + group + "/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":" + spec + "}";
    }

    @Test
    void anEstablishedCrdServesItsKindWithDefaultsAndPruning() {
        String group = "served.example.com";
        establish(group);
        JsonNode crd = get(CRDS + "/widgets." + group).json();
        assertThat(conditions(crd)).contains("NamesAccepted=True/NoConflicts", "Established=True/InitialNamesAccepted");
        assertThat(Json.text(crd, "status.acceptedNames.kind")).isEqualTo("Widget");
        assertThat(Json.strings(crd.path("status").get("storedVersions"))).containsExactly("v1");

        String base = "/apis/" + group + "/v1/namespaces/default/widgets";
        Response created = post(base, widget(group, "w1", "{\"color\":\"red\",\"mystery\":1,"
                + "\"anything\":{\"kept\":true}}"));
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(created.text("spec.size")).isEqualTo("medium");
        assertThat(created.text("spec.replicas")).isEqualTo("1");
        assertThat(created.json().path("spec").has("mystery")).isFalse();
        assertThat(created.text("spec.anything.kept")).isEqualTo("true");
        assertThat(created.text("metadata.generation")).isEqualTo("1");
        assertThat(created.text("apiVersion")).isEqualTo(group + "/v1");

        Response got = get(base + "/w1");
        assertThat(got.text("spec.color")).isEqualTo("red");
        Response list = get(base + "?labelSelector=missing%3Dlabel");
        assertThat(list.text("kind")).isEqualTo("WidgetList");
        assertThat(list.json().path("items")).isEmpty();
        assertThat(get("/apis/" + group + "/v1/widgets?fieldSelector=metadata.name%3Dw1").json().path("items"))
                .hasSize(1);

        Response strict = post(base + "?fieldValidation=Strict", widget(group, "w2", "{\"color\":\"red\",\"bogus\":1}"));
        assertThat(strict.code()).isEqualTo(400);
        assertThat(strict.text("message")).isEqualTo("Widget in version \"v1\" cannot be handled as a Widget: strict"
                + " decoding error: unknown field \"spec.bogus\"");
        Response warned = post(base + "?fieldValidation=Warn", widget(group, "w2", "{\"color\":\"red\",\"bogus\":1}"));
        assertThat(warned.code()).isEqualTo(201);
        assertThat(warned.headers().allValues("Warning")).anyMatch(w -> w.contains("unknown field \\\"spec.bogus\\\"")
                || w.contains("unknown field \"spec.bogus\""));

        Response merged = patch(base + "/w1", "application/merge-patch+json", "{\"spec\":{\"color\":\"blue\"}}");
        assertThat(merged.code()).as(merged.body()).isEqualTo(200);
        assertThat(merged.text("metadata.generation")).isEqualTo("2");
        Response jsonPatch = patch(base + "/w1", "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/spec/size\",\"value\":\"large\"}]");
        assertThat(jsonPatch.text("spec.size")).isEqualTo("large");
        Response strategic = patch(base + "/w1", "application/strategic-merge-patch+json", "{\"spec\":{}}");
        assertThat(strategic.code()).isEqualTo(415);
        assertThat(strategic.text("message")).isEqualTo("the body of the request was in an unknown format - accepted"
                + " media types include: application/json-patch+json, application/merge-patch+json,"
                + " application/apply-patch+yaml");

        assertThat(delete(base + "/w2").code()).isEqualTo(200);
        assertThat(call("DELETE", base, null, null).code()).isEqualTo(200);
        assertThat(get(base).json().path("items")).isEmpty();
    }

    @Test
    void instancesAreValidatedAsKubernetesWordsIt() {
        String group = "checked.example.com";
        establish(group);
        String base = "/apis/" + group + "/v1/namespaces/default/widgets";
        Response bad = post(base, widget(group, "bad", "{\"color\":\"pink\",\"size\":\"huge\",\"replicas\":11,"
                + "\"tags\":[\"a\",\"a\",\"toolong\",\"b\"],\"labels\":{\"x\":5}}"));
        assertThat(bad.code()).as(bad.body()).isEqualTo(422);
        assertThat(causes(bad)).contains(
                "spec.color: Unsupported value: \"pink\": supported values: \"red\", \"green\", \"blue\"",
                "spec.size: Invalid value: \"huge\": spec.size in body should match '^(small|medium|large)$'",
                "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
                "spec.tags: Too many: 4: must have at most 3 items",
                "spec.tags[1]: Duplicate value: \"a\"",
                "spec.tags[2]: Too long: may not be more than 5 bytes",
                "spec.labels[x]: Invalid value: \"integer\": spec.labels[x] in body must be of type string: \"integer\"");
        assertThat(bad.text("message")).startsWith("Widget." + group + " \"bad\" is invalid: [");
        Response missing = post(base, widget(group, "nocolor", "{}"));
        assertThat(missing.code()).isEqualTo(422);
        assertThat(causes(missing)).containsExactly("spec.color: Required value");
        Response wrongType = post(base, widget(group, "wrongtype", "{\"color\":\"red\",\"replicas\":\"three\"}"));
        assertThat(causes(wrongType)).containsExactly("spec.replicas: Invalid value: \"string\": spec.replicas in"
                + " body must be of type integer: \"string\"");
        Response wrongVersion = post(base, "{\"apiVersion\":\"" + group + "/v2\",\"kind\":\"Widget\","
                + "\"metadata\":{\"name\":\"v2\"},\"spec\":{\"color\":\"red\"}}");
        assertThat(wrongVersion.code()).isEqualTo(400);
        assertThat(wrongVersion.text("message")).isEqualTo("the API version in the data (" + group + "/v2) does not"
                + " match the expected API version (" + group + "/v1)");
        assertThat(get(base).json().path("items")).isEmpty();
    }

    @Test
    void statusAndScaleSubresourcesAndPrinterColumns() {
        String group = "subresources.example.com";
        establish(group);
        String base = "/apis/" + group + "/v1/namespaces/default/widgets";
        Response created = post(base, "{\"apiVersion\":\"" + group + "/v1\",\"kind\":\"Widget\",\"metadata\":"
                + "{\"name\":\"s1\"},\"spec\":{\"color\":\"green\",\"replicas\":2},\"status\":{\"replicas\":7}}");
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(created.json().path("status").has("replicas")).as("status is reset on create").isFalse();

        Response status = patch(base + "/s1/status", "application/merge-patch+json",
                "{\"spec\":{\"color\":\"red\"},\"status\":{\"replicas\":2,\"selector\":\"app=s1\","
                        + "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
        assertThat(status.code()).as(status.body()).isEqualTo(200);
        assertThat(status.text("status.replicas")).isEqualTo("2");
        assertThat(status.text("spec.color")).as("a status write leaves spec alone").isEqualTo("green");
        assertThat(status.text("metadata.generation")).isEqualTo("1");
        Response spec = patch(base + "/s1", "application/merge-patch+json", "{\"status\":{\"replicas\":9}}");
        assertThat(spec.text("status.replicas")).as("a spec write leaves status alone").isEqualTo("2");

        Response scale = get(base + "/s1/scale");
        assertThat(scale.code()).as(scale.body()).isEqualTo(200);
        assertThat(scale.text("kind")).isEqualTo("Scale");
        assertThat(scale.text("spec.replicas")).isEqualTo("2");
        assertThat(scale.text("status.replicas")).isEqualTo("2");
        assertThat(scale.text("status.selector")).isEqualTo("app=s1");
        Response scaled = patch(base + "/s1/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":5}}");
        assertThat(scaled.code()).as(scaled.body()).isEqualTo(200);
        assertThat(get(base + "/s1").text("spec.replicas")).isEqualTo("5");

        Response table = call("GET", base, null, null, "application/json;as=Table;v=v1;g=meta.k8s.io", true);
        assertThat(table.code()).as(table.body()).isEqualTo(200);
        List<String> columns = new ArrayList<>();
        table.json().path("columnDefinitions").forEach(c -> columns.add(c.path("name").asString() + ":"
                + c.path("type").asString() + ":" + c.path("priority").asInt()));
        assertThat(columns).containsExactly("Name:string:0", "Color:string:0", "Replicas:integer:0", "Ready:string:1");
        JsonNode cells = table.json().path("rows").get(0).path("cells");
        assertThat(cells.get(0).asString()).isEqualTo("s1");
        assertThat(cells.get(1).asString()).isEqualTo("green");
        assertThat(cells.get(2).asInt()).isEqualTo(5);
        assertThat(cells.get(3).asString()).isEqualTo("True");
    }

    @Test
    void discoveryAndOpenApiShowTheKind() {
        String group = "discovered.example.com";
        establish(group);
        JsonNode resources = get("/apis/" + group + "/v1").json().path("resources");
        List<String> names = new ArrayList<>();
        resources.forEach(r -> names.add(r.path("name").asString()));
        assertThat(names).containsExactly("widgets", "widgets/scale", "widgets/status");
        JsonNode widgets = resources.get(0);
        assertThat(widgets.path("kind").asString()).isEqualTo("Widget");
        assertThat(widgets.path("namespaced").asBoolean()).isTrue();
        assertThat(Json.strings(widgets.get("shortNames"))).containsExactly("wd");
        assertThat(Json.strings(widgets.get("categories"))).containsExactly("toys");
        assertThat(Json.strings(widgets.get("verbs"))).contains("watch", "deletecollection", "patch");
        assertThat(get("/apis").body()).contains(group);

        eventually(() -> assertThat(get("/openapi/v3").json().path("paths").has("apis/" + group + "/v1")).isTrue());
        JsonNode doc = get("/openapi/v3/apis/" + group + "/v1").json();
        JsonNode schema = doc.path("components").path("schemas").path("com.example.discovered.v1.Widget");
        assertThat(schema.path("properties").path("spec").path("properties").has("color")).isTrue();
        assertThat(schema.path("properties").path("metadata").path("allOf").get(0).path("$ref").asString())
                .isEqualTo("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        assertThat(schema.path("x-kubernetes-group-version-kind").get(0).path("kind").asString()).isEqualTo("Widget");
    }

    @Test
    void invalidDefinitionsAreRefusedAndNothingIsStored() {
        Response twoStorage = postYaml(CRDS, """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: things.invalid.example.com}
                spec:
                  group: invalid.example.com
                  scope: Namespaced
                  names: {plural: things, kind: Thing}
                  versions:
                  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
                  - {name: v2, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
                """);
        assertThat(twoStorage.code()).as(twoStorage.body()).isEqualTo(422);
        assertThat(twoStorage.text("message")).contains("must have exactly one version marked as storage version");

        Response notStructural = postYaml(CRDS, """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: things.invalid.example.com}
                spec:
                  group: invalid.example.com
                  scope: Namespaced
                  names: {plural: things, kind: Thing}
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema:
                      openAPIV3Schema:
                        type: object
                        properties:
                          spec: {properties: {a: {type: string}}}
                """);
        assertThat(notStructural.code()).isEqualTo(422);
        assertThat(causes(notStructural)).contains("spec.validation.openAPIV3Schema.properties[spec].type: Required"
                + " value: must not be empty for specified object fields");

        Response badNames = postYaml(CRDS, """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: wrong.invalid.example.com}
                spec:
                  group: invalid.example.com
                  scope: Everywhere
                  names: {plural: Things, kind: Thing}
                  versions:
                  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
                """);
        assertThat(badNames.code()).isEqualTo(422);
        assertThat(causes(badNames)).contains(
                "metadata.name: Invalid value: \"wrong.invalid.example.com\": must be spec.names.plural+\".\"+spec.group",
                "spec.scope: Unsupported value: \"Everywhere\": supported values: \"Cluster\", \"Namespaced\"");
        assertThat(causes(badNames)).anyMatch(c -> c.startsWith("spec.names.plural: Invalid value: \"Things\": a"
                + " DNS-1035 label"));
        assertThat(get(CRDS + "/things.invalid.example.com").code()).isEqualTo(404);
    }

    @Test
    void aKindTakenByAnotherDefinitionIsNotAccepted() {
        String group = "conflict.example.com";
        establish(group);
        Response second = postYaml(CRDS, """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: gadgets.conflict.example.com}
                spec:
                  group: conflict.example.com
                  scope: Namespaced
                  names: {plural: gadgets, kind: Widget, listKind: GadgetList}
                  versions:
                  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
                """);
        assertThat(second.code()).as(second.body()).isEqualTo(201);
        eventually(() -> assertThat(conditions(get(CRDS + "/gadgets." + group).json()))
                .contains("NamesAccepted=False/KindConflict"));
        assertThat(get(CRDS + "/gadgets." + group).body()).contains("\\\"Widget\\\" is already in use");
        assertThat(get("/apis/" + group + "/v1/namespaces/default/gadgets").code()).isEqualTo(404);
    }

    @Test
    void deletingTheDefinitionDeletesEveryInstanceFirst() {
        String group = "deleted.example.com";
        establish(group);
        String base = "/apis/" + group + "/v1/namespaces/default/widgets";
        for (int i = 0; i < 3; i++) {
            assertThat(post(base, widget(group, "d" + i, "{\"color\":\"red\"}")).code()).isEqualTo(201);
        }
        // one instance holds on with a finalizer of its own: the CRD stays terminating until it is let go
        assertThat(patch(base + "/d0", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":"
                + "[\"example.com/hold\"]}}").code()).isEqualTo(200);
        Response deleted = delete(CRDS + "/widgets." + group);
        assertThat(deleted.code()).as(deleted.body()).isIn(200, 202);
        assertThat(Json.strings(deleted.json().path("metadata").get("finalizers")))
                .contains("customresourcecleanup.apiextensions.k8s.io");
        assertThat(conditions(deleted.json())).contains("Terminating=True/InstanceDeletionPending");
        eventually(() -> assertThat(get(base).json().path("items")).hasSize(1));
        assertThat(conditions(get(CRDS + "/widgets." + group).json())).contains(
                "Terminating=True/InstanceDeletionInProgress");
        Response refused = post(base, widget(group, "late", "{\"color\":\"red\"}"));
        assertThat(refused.code()).isEqualTo(405);
        assertThat(refused.text("message")).isEqualTo("create not allowed while custom resource definition is"
                + " terminating");
        assertThat(patch(base + "/d0", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}")
                .code()).isEqualTo(200);
        eventually(() -> assertThat(get(CRDS + "/widgets." + group).code()).isEqualTo(404));
        eventually(() -> assertThat(get(base).code()).isEqualTo(404));
        // a CRD of the same name starts empty
        establish(group);
        assertThat(get(base).json().path("items")).isEmpty();
    }

    @Test
    void theGarbageCollectorAndTheNamespaceControllerReachCustomResources() {
        String group = "collected.example.com";
        establish(group);
        assertThat(createNamespace("crd-collected").code()).isEqualTo(201);
        String base = "/apis/" + group + "/v1/namespaces/crd-collected/widgets";
        Response owner = post(base, widget(group, "owner", "{\"color\":\"red\"}"));
        assertThat(owner.code()).as(owner.body()).isEqualTo(201);
        String ownerRef = "[{\"apiVersion\":\"" + group + "/v1\",\"kind\":\"Widget\",\"name\":\"owner\","
                + "\"uid\":\"" + owner.text("metadata.uid") + "\"}]";
        assertThat(post("/api/v1/namespaces/crd-collected/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"owned\",\"ownerReferences\":" + ownerRef + "}}").code())
                .isEqualTo(201);
        Response cm = post("/api/v1/namespaces/crd-collected/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"cm-owner\"}}");
        assertThat(post(base, "{\"apiVersion\":\"" + group + "/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":"
                + "\"dependent\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":"
                + "\"cm-owner\",\"uid\":\"" + cm.text("metadata.uid") + "\"}]},\"spec\":{\"color\":\"red\"}}").code())
                .isEqualTo(201);

        assertThat(delete(base + "/owner").code()).isEqualTo(200);
        eventually(() -> assertThat(get("/api/v1/namespaces/crd-collected/configmaps/owned").code()).isEqualTo(404));
        assertThat(delete("/api/v1/namespaces/crd-collected/configmaps/cm-owner").code()).isEqualTo(200);
        eventually(() -> assertThat(get(base + "/dependent").code()).isEqualTo(404));

        assertThat(post(base, widget(group, "left", "{\"color\":\"red\"}")).code()).isEqualTo(201);
        assertThat(delete("/api/v1/namespaces/crd-collected").code()).isIn(200, 202);
        eventually(() -> assertThat(get("/api/v1/namespaces/crd-collected").code()).isEqualTo(404));
        assertThat(get("/apis/" + group + "/v1/widgets").json().path("items")).isEmpty();
    }

    static final String RULES_CRD = """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata: {name: limits.rules.example.com}
            spec:
              group: rules.example.com
              scope: Namespaced
              names: {plural: limits, kind: Limit}
              versions:
              - name: v1
                served: true
                storage: true
                schema:
                  openAPIV3Schema:
                    type: object
                    properties:
                      spec:
                        type: object
                        x-kubernetes-validations:
                        - rule: self.min <= self.max
                          message: min must not exceed max
                        - rule: "!has(self.owner) || self.owner.startsWith('team-')"
                          messageExpression: "'owner ' + self.owner + ' is not a team'"
                        - rule: self.max <= 100
                          fieldPath: .max
                          reason: FieldValueForbidden
                          message: at most 100
                        properties:
                          min: {type: integer}
                          max: {type: integer}
                          owner: {type: string}
                          zone:
                            type: string
                            x-kubernetes-validations:
                            - rule: self == oldSelf
                              message: zone is immutable
                          values:
                            type: array
                            items: {type: integer}
                            x-kubernetes-validations:
                            - rule: self.all(x, self.all(y, self.all(z, x + y + z >= 0)))
            """;

    @Test
    void celRulesValidateWithTheirMessagesAndABudget() {
        Response crd = postYaml(CRDS, RULES_CRD);
        assertThat(crd.code()).as(crd.body()).isEqualTo(201);
        String base = "/apis/rules.example.com/v1/namespaces/default/limits";
        eventually(() -> assertThat(get(base).code()).isEqualTo(200));
        String limit = "{\"apiVersion\":\"rules.example.com/v1\",\"kind\":\"Limit\",\"metadata\":{\"name\":\"%s\"},"
                + "\"spec\":%s}";
        Response bad = post(base, limit.formatted("bad", "{\"min\":5,\"max\":200,\"owner\":\"alice\"}"));
        assertThat(bad.code()).as(bad.body()).isEqualTo(422);
        assertThat(causes(bad)).containsExactlyInAnyOrder(
                "spec: Invalid value: \"object\": owner alice is not a team",
                "spec.max: Forbidden: at most 100");
        Response inverted = post(base, limit.formatted("inverted", "{\"min\":5,\"max\":1}"));
        assertThat(causes(inverted)).containsExactly("spec: Invalid value: \"object\": min must not exceed max");
        Response ok = post(base, limit.formatted("ok", "{\"min\":1,\"max\":5,\"owner\":\"team-a\",\"zone\":\"a\"}"));
        assertThat(ok.code()).as(ok.body()).isEqualTo(201);
        Response moved = patch(base + "/ok", "application/merge-patch+json", "{\"spec\":{\"zone\":\"b\"}}");
        assertThat(moved.code()).isEqualTo(422);
        assertThat(causes(moved)).containsExactly("spec.zone: Invalid value: \"string\": zone is immutable");
        assertThat(patch(base + "/ok", "application/merge-patch+json", "{\"spec\":{\"max\":6}}").code())
                .isEqualTo(200);

        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            many.append(i == 0 ? "" : ",").append(i);
        }
        Response costly = post(base, limit.formatted("costly", "{\"min\":1,\"max\":2,\"values\":[" + many + "]}"));
        assertThat(costly.code()).as(costly.body()).isEqualTo(422);
        assertThat(costly.text("message")).contains("running out of cost budget");
        assertThat(get(base + "/costly").code()).isEqualTo(404);

        Response uncompilable = postYaml(CRDS, RULES_CRD.replace("limits.rules", "broken.rules")
                .replace("plural: limits, kind: Limit", "plural: broken, kind: Broken")
                .replace("rule: self.min <= self.max", "rule: self.min <=="));
        assertThat(uncompilable.code()).isEqualTo(422);
        assertThat(uncompilable.text("message")).contains("x-kubernetes-validations[0].rule: Invalid value:"
                + " apiextensions.ValidationRule{Rule:\"self.min <==\"", "compilation failed");
    }

    /** A kind served at v1 (stored) and v2; v1's spec.size is v2's spec.length. */
    static String twoVersions(String group, String conversion) {
        return """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: boxes.%1$s}
                spec:
                  group: %1$s
                  scope: Namespaced
                  names: {plural: boxes, kind: Box}
                  conversion: %2$s
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema:
                      openAPIV3Schema:
                        type: object
                        properties:
                          spec: {type: object, properties: {size: {type: integer}}}
                  - name: v2
                    served: true
                    storage: false
                    schema:
                      openAPIV3Schema:
                        type: object
                        properties:
                          spec: {type: object, properties: {length: {type: integer}, size: {type: integer}}}
                """.formatted(group, conversion);
    }

    @Test
    void severalVersionsWithNoneConversionAreStoredAtTheStorageVersion() throws Exception {
        String group = "versions.example.com";
        assertThat(postYaml(CRDS, twoVersions(group, "{strategy: None}")).code()).isEqualTo(201);
        String v1 = "/apis/" + group + "/v1/namespaces/default/boxes";
        String v2 = "/apis/" + group + "/v2/namespaces/default/boxes";
        eventually(() -> assertThat(get(v2).code()).isEqualTo(200));
        assertThat(post(v1, "{\"apiVersion\":\"" + group + "/v1\",\"kind\":\"Box\",\"metadata\":{\"name\":\"one\"},"
                + "\"spec\":{\"size\":1}}").code()).isEqualTo(201);
        Response created = post(v2, "{\"apiVersion\":\"" + group + "/v2\",\"kind\":\"Box\",\"metadata\":"
                + "{\"name\":\"two\"},\"spec\":{\"size\":2}}");
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(created.text("apiVersion")).isEqualTo(group + "/v2");
        assertThat(get(v1 + "/two").text("apiVersion")).isEqualTo(group + "/v1");
        assertThat(get(v2 + "/one").text("apiVersion")).isEqualTo(group + "/v2");
        List<String> versions = new ArrayList<>();
        get(v2).json().path("items").forEach(i -> versions.add(i.path("apiVersion").asString()));
        assertThat(versions).containsOnly(group + "/v2").hasSize(2);
        Response patched = patch(v2 + "/one", "application/merge-patch+json", "{\"spec\":{\"size\":3}}");
        assertThat(patched.text("apiVersion")).isEqualTo(group + "/v2");
        assertThat(get(v1 + "/one").text("spec.size")).isEqualTo("3");
        try (WatchStream w = new WatchStream(HTTP, url(v2 + "?watch=true&resourceVersion=" + patched.text(
                "metadata.resourceVersion")), token(), null)) {
            patch(v1 + "/one", "application/merge-patch+json", "{\"spec\":{\"size\":4}}");
            JsonNode event = w.next(10_000);
            assertThat(event.path("type").asString()).isEqualTo("MODIFIED");
            assertThat(event.path("object").path("apiVersion").asString()).isEqualTo(group + "/v2");
        }
    }

    @Test
    void aConversionWebhookConvertsBetweenVersionsAndItsFailuresAreTold() throws Exception {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        java.util.concurrent.atomic.AtomicBoolean garbage = new java.util.concurrent.atomic.AtomicBoolean();
        server.createContext("/convert", exchange -> {
            JsonNode review = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
            String desired = review.path("request").path("desiredAPIVersion").asString();
            tools.jackson.databind.node.ObjectNode answer = Json.object();
            answer.put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "ConversionReview");
            tools.jackson.databind.node.ObjectNode response = answer.putObject("response");
            response.put("uid", review.path("request").path("uid").asString());
            tools.jackson.databind.node.ArrayNode converted = response.putArray("convertedObjects");
            for (JsonNode o : review.path("request").path("objects")) {
                tools.jackson.databind.node.ObjectNode c = (tools.jackson.databind.node.ObjectNode) o.deepCopy();
                tools.jackson.databind.node.ObjectNode spec = Json.child(c, "spec");
                if (desired.endsWith("/v2") && spec.has("size")) {
                    spec.set("length", spec.remove("size"));
                } else if (desired.endsWith("/v1") && spec.has("length")) {
                    spec.set("size", spec.remove("length"));
                }
                c.put("apiVersion", desired);
                converted.add(c);
            }
            response.putObject("result").put("status", "Success");
            byte[] body = garbage.get() ? "not a review".getBytes() : Json.MAPPER.writeValueAsBytes(answer);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String group = "webhooked.example.com";
            String conversion = "{strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: "
                    + "'http://127.0.0.1:" + server.getAddress().getPort() + "/convert'}}}";
            assertThat(postYaml(CRDS, twoVersions(group, conversion)).code()).isEqualTo(201);
            String v1 = "/apis/" + group + "/v1/namespaces/default/boxes";
            String v2 = "/apis/" + group + "/v2/namespaces/default/boxes";
            eventually(() -> assertThat(get(v2).code()).isEqualTo(200));
            Response created = post(v2, "{\"apiVersion\":\"" + group + "/v2\",\"kind\":\"Box\",\"metadata\":"
                    + "{\"name\":\"b\"},\"spec\":{\"length\":7}}");
            assertThat(created.code()).as(created.body()).isEqualTo(201);
            assertThat(created.text("spec.length")).isEqualTo("7");
            assertThat(get(v1 + "/b").text("spec.size")).isEqualTo("7");
            assertThat(get(v2 + "/b").text("spec.length")).isEqualTo("7");

            garbage.set(true);
            Response broken = get(v2 + "/b");
            assertThat(broken.code()).isEqualTo(500);
            assertThat(broken.text("message")).startsWith("Internal error occurred: conversion webhook for " + group
                    + "/v1, Kind=Box failed: ");
            String rv = get(v1 + "/b").text("metadata.resourceVersion");
            try (WatchStream w = new WatchStream(HTTP, url(v2 + "?watch=true&resourceVersion=" + rv), token(), null)) {
                assertThat(patch(v1 + "/b", "application/merge-patch+json", "{\"spec\":{\"size\":8}}").code())
                        .isEqualTo(200);
                JsonNode event = w.next(10_000);
                assertThat(event.path("type").asString()).isEqualTo("ERROR");
                assertThat(event.path("object").path("code").asInt()).isEqualTo(500);
            }
            garbage.set(false);
            server.stop(0);
            Response down = post(v2, "{\"apiVersion\":\"" + group + "/v2\",\"kind\":\"Box\",\"metadata\":"
                    + "{\"name\":\"c\"},\"spec\":{\"length\":1}}");
            assertThat(down.code()).isEqualTo(500);
            assertThat(down.text("message")).contains("conversion webhook for " + group + "/v2, Kind=Box failed:",
                    "connect: connection refused");
            assertThat(get(v1 + "/c").code()).isEqualTo(404);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void rbacAndQuotaApplyToCustomResourcesAsToBuiltIns() {
        String group = "guarded.example.com";
        establish(group);
        assertThat(createNamespace("crd-guarded").code()).isEqualTo(201);
        String base = "/apis/" + group + "/v1/namespaces/crd-guarded/widgets";
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/crd-guarded/roles", "{\"apiVersion\":"
                + "\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\",\"metadata\":{\"name\":\"widget-reader\"},"
                + "\"rules\":[{\"apiGroups\":[\"" + group + "\"],\"resources\":[\"widgets\"],\"verbs\":[\"get\","
                + "\"list\"]}]}").code()).isEqualTo(201);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/crd-guarded/rolebindings", "{\"apiVersion\":"
                + "\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"carol-reads\"},"
                + "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":"
                + "\"widget-reader\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"carol\"}]}").code()).isEqualTo(201);
        assertThat(post("/api/v1/namespaces/crd-guarded/resourcequotas", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ResourceQuota\",\"metadata\":{\"name\":\"widgets\"},\"spec\":{\"hard\":{\"count/widgets."
                + group + "\":\"1\"}}}").code()).isEqualTo(201);
        assertThat(post(base, widget(group, "first", "{\"color\":\"red\"}")).code()).isEqualTo(201);
        Response second = post(base, widget(group, "second", "{\"color\":\"red\"}"));
        assertThat(second.code()).as(second.body()).isEqualTo(403);
        assertThat(second.text("message")).contains("exceeded quota: widgets", "count/widgets." + group);

        eventually(() -> assertThat(callAs("carol-token", "GET", base + "/first", null, null, "application/json")
                .code()).isEqualTo(200));
        Response denied = callAs("carol-token", "DELETE", base + "/first", null, null, "application/json");
        assertThat(denied.code()).isEqualTo(403);
        assertThat(denied.text("message")).isEqualTo("widgets." + group + " \"first\" is forbidden: User \"carol\""
                + " cannot delete resource \"widgets\" in API group \"" + group + "\" in the namespace \"crd-guarded\"");
    }

    @Test
    void aDefaultAddedToTheSchemaShowsOnObjectsStoredBefore() {
        String crd = """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: notes.defaults.example.com}
                spec:
                  group: defaults.example.com
                  scope: Namespaced
                  names: {plural: notes, kind: Note}
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema:
                      openAPIV3Schema:
                        type: object
                        properties:
                          spec:
                            type: object
                            properties:
                              text: {type: string}
                """;
        assertThat(postYaml(CRDS, crd).code()).isEqualTo(201);
        String base = "/apis/defaults.example.com/v1/namespaces/default/notes";
        eventually(() -> assertThat(get(base).code()).isEqualTo(200));
        assertThat(post(base, "{\"apiVersion\":\"defaults.example.com/v1\",\"kind\":\"Note\",\"metadata\":"
                + "{\"name\":\"old\"},\"spec\":{\"text\":\"hi\"}}").code()).isEqualTo(201);
        Response updated = call("PUT", CRDS + "/notes.defaults.example.com", "application/yaml",
                crd.replace("text: {type: string}", "text: {type: string}\n" + " ".repeat(14)
                        + "priority: {type: integer, default: 3}").replace("metadata: {name: notes.defaults.example.com}",
                        "metadata: {name: notes.defaults.example.com, resourceVersion: '"
                                + get(CRDS + "/notes.defaults.example.com").text("metadata.resourceVersion") + "'}"));
        assertThat(updated.code()).as(updated.body()).isEqualTo(200);
        eventually(() -> assertThat(get(base + "/old").text("spec.priority")).isEqualTo("3"));
        assertThat(get(base).json().path("items").get(0).path("spec").path("priority").asInt()).isEqualTo(3);
    }

    @Test
    void aDefinitionCannotTakeOverABuiltInResource() {
        String clusterRoles = """
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata:
                  name: clusterroles.rbac.authorization.k8s.io
                  %s
                spec:
                  group: rbac.authorization.k8s.io
                  scope: Cluster
                  names: {plural: clusterroles, kind: ClusterRole}
                  versions:
                  - name: v2
                    served: true
                    storage: true
                    schema:
                      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
                """;
        Response unapproved = postYaml(CRDS, clusterRoles.formatted(""));
        assertThat(unapproved.code()).isEqualTo(422);
        assertThat(causes(unapproved)).containsExactly("metadata.annotations[api-approved.kubernetes.io]: Required"
                + " value: protected groups must have approval annotation \"api-approved.kubernetes.io\", see"
                + " https://github.com/kubernetes/enhancements/pull/1111");
        Response approved = postYaml(CRDS, clusterRoles.formatted("annotations: {api-approved.kubernetes.io:"
                + " 'https://example.com/approval'}"));
        assertThat(approved.code()).as(approved.body()).isEqualTo(201);
        eventually(() -> assertThat(conditions(get(CRDS + "/clusterroles.rbac.authorization.k8s.io").json()))
                .contains("Established=True/InitialNamesAccepted"));
        // its objects would be the built-in ClusterRoles: the version is not served, the built-in keeps them
        assertThat(get("/apis/rbac.authorization.k8s.io/v2/clusterroles").code()).isEqualTo(404);
        assertThat(get("/apis/rbac.authorization.k8s.io/v1/clusterroles/admin").code()).isEqualTo(200);
        assertThat(delete(CRDS + "/clusterroles.rbac.authorization.k8s.io").code()).isIn(200, 202);
        eventually(() -> assertThat(get(CRDS + "/clusterroles.rbac.authorization.k8s.io").code()).isEqualTo(404));
        assertThat(get("/apis/rbac.authorization.k8s.io/v1/clusterroles/admin").code()).isEqualTo(200);
    }

    private static List<String> conditions(JsonNode crd) {
        List<String> out = new ArrayList<>();
        crd.path("status").path("conditions").forEach(c -> out.add(c.path("type").asString() + "="
                + c.path("status").asString() + "/" + c.path("reason").asString()));
        return out;
    }

    private static List<String> causes(Response r) {
        List<String> out = new ArrayList<>();
        r.json().path("details").path("causes").forEach(c -> out.add(c.path("field").asString() + ": "
                + c.path("message").asString()));
        return out;
    }
}

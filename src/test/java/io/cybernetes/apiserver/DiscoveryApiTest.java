package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Version, health, discovery (legacy and aggregated), the Kubernetes OpenAPI and Swagger UI. */
class DiscoveryApiTest extends ApiTestSupport {

    @Test
    void versionAndHealthAreOpen() {
        Response v = call("GET", "/version", null, null, null, false);
        assertThat(v.code()).isEqualTo(200);
        assertThat(v.text("major")).isEqualTo("1");
        assertThat(v.text("minor")).isEqualTo("32");
        for (String path : List.of("/healthz", "/livez", "/readyz")) {
            Response h = call("GET", path, null, null, null, false);
            assertThat(h.code()).isEqualTo(200);
            assertThat(h.body()).isEqualTo("ok");
            assertThat(call("GET", path + "?verbose", null, null, null, false).body()).contains("[+]", "check passed");
        }
        assertThat(call("GET", "/readyz?verbose", null, null, null, false).body())
                .isEqualTo("[+]ping ok\n[+]log ok\n[+]database ok\nreadyz check passed\n");
        assertThat(call("GET", "/livez?verbose", null, null, null, false).body())
                .as("liveness does not hang on the database").isEqualTo("[+]ping ok\n[+]log ok\nlivez check passed\n");
    }

    @Test
    void legacyDiscoveryDescribesEveryResource() {
        assertThat(get("/api").json().at("/versions/0").asString()).isEqualTo("v1");
        List<String> groups = new ArrayList<>();
        get("/apis").json().get("groups").forEach(g -> groups.add(g.get("name").asString()));
        assertThat(groups).contains("apps", "coordination.k8s.io");
        JsonNode core = get("/api/v1").json();
        assertThat(core.get("groupVersion").asString()).isEqualTo("v1");
        JsonNode pods = find(core.get("resources"), "name", "pods");
        assertThat(pods.get("kind").asString()).isEqualTo("Pod");
        assertThat(pods.get("namespaced").asBoolean()).isTrue();
        assertThat(pods.get("shortNames").get(0).asString()).isEqualTo("po");
        assertThat(pods.get("categories").get(0).asString()).isEqualTo("all");
        assertThat(pods.get("singularName").asString()).isEqualTo("pod");
        assertThat(find(core.get("resources"), "name", "namespaces").get("namespaced").asBoolean()).isFalse();
        assertThat(find(core.get("resources"), "name", "pods/binding").get("kind").asString()).isEqualTo("Binding");
        JsonNode apps = get("/apis/apps/v1").json();
        JsonNode scale = find(apps.get("resources"), "name", "deployments/scale");
        assertThat(scale.get("group").asString()).isEqualTo("autoscaling");
        assertThat(scale.get("kind").asString()).isEqualTo("Scale");
        assertThat(get("/apis/apps").json().at("/preferredVersion/groupVersion").asString()).isEqualTo("apps/v1");
        assertThat(get("/apis/nope/v1").code()).isEqualTo(404);
    }

    @Test
    void aggregatedDiscoveryWhenAskedForIt() {
        String accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
        Response api = call("GET", "/apis", null, null, accept, true);
        assertThat(api.headers().firstValue("Content-Type")).get().asString().contains("as=APIGroupDiscoveryList");
        JsonNode apps = find(api.json().get("items"), "/metadata/name", "apps");
        JsonNode deploy = find(apps.at("/versions/0/resources"), "resource", "deployments");
        assertThat(deploy.get("scope").asString()).isEqualTo("Namespaced");
        assertThat(deploy.at("/responseKind/kind").asString()).isEqualTo("Deployment");
        assertThat(find(deploy.get("subresources"), "subresource", "scale").at("/responseKind/group").asString())
                .isEqualTo("autoscaling");
        JsonNode core = call("GET", "/api", null, null, accept, true).json();
        assertThat(core.at("/items/0/metadata/name").asString()).isEmpty();
        assertThat(find(core.at("/items/0/versions/0/resources"), "resource", "nodes").get("scope").asString())
                .isEqualTo("Cluster");
    }

    @Test
    void pathsWithATrailingSlashAreServedAsWithout() {
        for (String path : List.of("/version", "/api", "/apis", "/apis/apps", "/api/v1", "/api/v1/namespaces")) {
            Response with = get(path + "/");
            assertThat(with.code()).as(path + "/").isEqualTo(200);
            assertThat(with.json().path("kind").asString()).isEqualTo(get(path).json().path("kind").asString());
        }
        assertThat(get("/version/").text("minor")).isEqualTo("32");
    }

    @Test
    void kubernetesOpenApiV3TellsKubectlThatTheServerValidatesFields() {
        JsonNode index = get("/openapi/v3").json();
        String appsUrl = index.at("/paths/apis~1apps~1v1/serverRelativeURL").asString();
        assertThat(appsUrl).startsWith("/openapi/v3/apis/apps/v1?hash=");
        JsonNode doc = get(appsUrl).json();
        JsonNode patchOp = doc.at("/paths/~1apis~1apps~1v1~1namespaces~1{namespace}~1deployments~1{name}/patch");
        assertThat(find(patchOp.get("parameters"), "name", "fieldValidation")).isNotNull();
        assertThat(patchOp.at("/x-kubernetes-group-version-kind/kind").asString()).isEqualTo("Deployment");
        String ref = patchOp.at("/responses/200/content/application~1json/schema/$ref").asString();
        JsonNode schema = doc.at("/components/schemas/" + ref.substring(ref.lastIndexOf('/') + 1));
        assertThat(schema.at("/description").asString()).startsWith("Keeps a number of identical pods running");
        assertThat(schema.at("/properties/spec/description").asString()).isEqualTo("The desired pods and how to roll out"
                + " changes.");
        String specRef = schema.at("/properties/spec/allOf/0/$ref").asString();
        JsonNode spec = doc.at("/components/schemas/" + specRef.substring(specRef.lastIndexOf('/') + 1));
        assertThat(spec.at("/required").toString()).isEqualTo("[\"selector\",\"template\"]");
        assertThat(spec.at("/properties/replicas/minimum").asInt(-1)).isZero();
        assertThat(get(index.at("/paths/api~1v1/serverRelativeURL").asString()).code()).isEqualTo(200);
    }

    @Test
    void swaggerUiDocumentsTheResourceEndpointsWithABearerToken() {
        assertThat(call("GET", "/v3/api-docs", null, null, "application/json", false).code())
                .as("the document is for authenticated users, as /openapi is").isEqualTo(401);
        assertThat(callAs("alice-token", "GET", "/v3/api-docs", null, null, "application/json").code())
                .as("any authenticated user, RBAC aside").isEqualTo(200);
        assertThat(call("GET", "/v3/api-docs/swagger-config", null, null, "application/json", false).code())
                .isEqualTo(200);
        Response docs = call("GET", "/v3/api-docs", null, null, "application/json", true);
        assertThat(docs.code()).isEqualTo(200);
        JsonNode paths = docs.json().get("paths");
        assertThat(paths.has("/apis/apps/v1/namespaces/{namespace}/deployments/{name}")).isTrue();
        assertThat(paths.has("/api/v1/namespaces/{namespace}/pods")).isTrue();
        assertThat(docs.json().at("/components/securitySchemes/bearer/scheme").asString()).isEqualTo("bearer");
        assertThat(call("GET", "/swagger-ui/index.html", null, null, "text/html", false).code()).isEqualTo(200);
    }

    @Test
    void openApiV2IsServedAsJsonWithKubernetesNamesAndExtensions() {
        Response r = call("GET", "/openapi/v2", null, null, "application/json", true);
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.headers().firstValue("ETag")).isPresent();
        JsonNode doc = r.json();
        assertThat(doc.path("swagger").asString()).isEqualTo("2.0");
        assertThat(doc.at("/info/version").asString()).isEqualTo("v1.32.0");
        JsonNode deployment = doc.at("/definitions/io.k8s.api.apps.v1.Deployment");
        assertThat(deployment.at("/x-kubernetes-group-version-kind/0/kind").asString()).isEqualTo("Deployment");
        assertThat(deployment.at("/properties/metadata/$ref").asString())
                .isEqualTo("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        assertThat(deployment.at("/properties/spec/$ref").asString())
                .isEqualTo("#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
        assertThat(doc.at("/definitions/io.k8s.api.core.v1.PodSpec/properties/containers/items/$ref").asString())
                .isEqualTo("#/definitions/io.k8s.api.core.v1.Container");
        assertThat(doc.has("definitions")).isTrue();
        // built-in kinds under Kubernetes' names; the custom resources of other tests' CRDs under their groups'
        doc.get("definitions").properties().forEach(d -> assertThat(d.getKey()).matches("(io\\.k8s|com\\.example)\\..*"));
        JsonNode item = doc.at("/paths/~1apis~1apps~1v1~1namespaces~1{namespace}~1deployments~1{name}");
        JsonNode patch = item.get("patch");
        assertThat(patch.path("x-kubernetes-action").asString()).isEqualTo("patch");
        assertThat(find(patch.get("parameters"), "name", "fieldValidation").path("in").asString()).isEqualTo("query");
        assertThat(find(patch.get("parameters"), "name", "body").at("/schema/$ref").asString())
                .isEqualTo("#/definitions/io.k8s.api.apps.v1.Deployment");
        assertThat(find(item.get("parameters"), "name", "namespace").path("required").asBoolean()).isTrue();
        // every reference resolves, as kubectl's reader insists
        for (String ref : refs(doc, new java.util.ArrayList<>())) {
            assertThat(doc.get("definitions").has(ref.substring("#/definitions/".length()))).as(ref).isTrue();
        }
        String etag = r.headers().firstValue("ETag").orElseThrow();
        assertThat(callWithHeaders(token(), "GET", "/openapi/v2", null, null, "application/json",
                "If-None-Match", etag).code()).isEqualTo(304);
    }

    private static List<String> refs(JsonNode n, List<String> out) {
        if (n.isObject()) {
            n.properties().forEach(e -> {
                // (JSONSchemaProps has a property of that name: a schema, not a reference)
                if (e.getKey().equals("$ref") && e.getValue().isString()) {
                    out.add(e.getValue().asString());
                } else {
                    refs(e.getValue(), out);
                }
            });
        } else if (n.isArray()) {
            n.forEach(c -> refs(c, out));
        }
        return out;
    }

    @Test
    void openApiV2IsServedInGnosticsProtobufFormWhenAskedFor() throws Exception {
        java.net.http.HttpResponse<byte[]> r = HTTP.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(url("/openapi/v2")))
                .header("Authorization", "Bearer " + token())
                .header("Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf").build(),
                java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElseThrow())
                .isEqualTo("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
        com.google.protobuf.UnknownFieldSet doc = com.google.protobuf.UnknownFieldSet.parseFrom(r.body());
        // Document: swagger = 1, definitions = 9 (a list of NamedSchema: name 1, value 2)
        assertThat(doc.getField(1).getLengthDelimitedList().get(0).toStringUtf8()).isEqualTo("2.0");
        com.google.protobuf.UnknownFieldSet definitions = com.google.protobuf.UnknownFieldSet.parseFrom(
                doc.getField(9).getLengthDelimitedList().get(0));
        com.google.protobuf.UnknownFieldSet deployment = null;
        for (com.google.protobuf.ByteString named : definitions.getField(1).getLengthDelimitedList()) {
            com.google.protobuf.UnknownFieldSet pair = com.google.protobuf.UnknownFieldSet.parseFrom(named);
            if (pair.getField(1).getLengthDelimitedList().get(0).toStringUtf8().equals("io.k8s.api.apps.v1.Deployment")) {
                deployment = com.google.protobuf.UnknownFieldSet.parseFrom(pair.getField(2).getLengthDelimitedList().get(0));
            }
        }
        assertThat(deployment).as("the Deployment definition").isNotNull();
        // Schema: type = 22 (TypeItem, value 1), vendor_extension = 31 (NamedAny: name 1, value 2 = Any with yaml 2)
        assertThat(com.google.protobuf.UnknownFieldSet.parseFrom(deployment.getField(22).getLengthDelimitedList().get(0))
                .getField(1).getLengthDelimitedList().get(0).toStringUtf8()).isEqualTo("object");
        com.google.protobuf.UnknownFieldSet gvk = com.google.protobuf.UnknownFieldSet.parseFrom(
                deployment.getField(31).getLengthDelimitedList().get(0));
        assertThat(gvk.getField(1).getLengthDelimitedList().get(0).toStringUtf8())
                .isEqualTo("x-kubernetes-group-version-kind");
        String yaml = com.google.protobuf.UnknownFieldSet.parseFrom(gvk.getField(2).getLengthDelimitedList().get(0))
                .getField(2).getLengthDelimitedList().get(0).toStringUtf8();
        assertThat(Json.MAPPER.readTree(yaml).at("/0/kind").asString()).isEqualTo("Deployment");
    }

    @Test
    void openApiV2NegotiatesItsFormByTheAcceptHeader() {
        String pb = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
        java.util.function.Function<String, Response> v2 = accept -> callWithHeaders(token(), "GET", "/openapi/v2",
                null, null, accept);
        assertThat(v2.apply(pb + ";q=0, application/json").body()).startsWith("{");
        assertThat(v2.apply("application/json, " + pb + ";q=0.5").body()).startsWith("{");
        assertThat(v2.apply(pb + ", application/json;q=0.9").headers().firstValue("Content-Type").orElseThrow())
                .isEqualTo("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
        assertThat(v2.apply("*/*").body()).startsWith("{");
        Response refused = v2.apply("text/html");
        assertThat(refused.code()).isEqualTo(406);
        assertThat(refused.json().path("reason").asString()).isEqualTo("NotAcceptable");
    }

    static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode n : array) {
            String v = field.startsWith("/") ? n.at(field).asString() : n.path(field).asString();
            if (value.equals(v)) {
                return n;
            }
        }
        throw new AssertionError(field + "=" + value + " not found in " + array);
    }
}

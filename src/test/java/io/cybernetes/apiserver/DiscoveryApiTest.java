package io.cybernetes.apiserver;

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
        assertThat(get("/openapi/v2").code()).isEqualTo(404);
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

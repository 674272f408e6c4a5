package io.cybernetes.apiserver;

import com.sun.net.httpserver.HttpServer;
import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server with a token webhook and the Webhook authorization mode (Node,RBAC,Webhook), each
 * answered by a small server of the test's own: who a token is, what they may do, the
 * answers cached, and a webhook that is down allows nothing.
 */
class AuthWebhooksTest extends ApiTestSupport {

    static final List<JsonNode> REVIEWS = new CopyOnWriteArrayList<>();
    static final AtomicBoolean AUTHZ_DOWN = new AtomicBoolean();
    static final HttpServer WEBHOOKS = start();

    private static HttpServer start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/authenticate", exchange -> answer(exchange, review -> {
                boolean dave = "dave-external-token".equals(review.path("spec").path("token").asString());
                ObjectNode status = Json.object();
                status.put("authenticated", dave);
                if (dave) {
                    ObjectNode user = status.putObject("user");
                    user.put("username", "dave");
                    user.put("uid", "ext-42");
                    user.putArray("groups").add("external-readers");
                }
                return status;
            }));
            server.createContext("/authorize", exchange -> {
                if (AUTHZ_DOWN.get()) {
                    exchange.sendResponseHeaders(500, -1);
                    exchange.close();
                    return;
                }
                answer(exchange, review -> {
                    JsonNode spec = review.path("spec");
                    JsonNode r = spec.path("resourceAttributes");
                    boolean reader = spec.path("groups").toString().contains("external-readers");
                    ObjectNode status = Json.object();
                    if (reader && "webhook-sel".equals(r.path("namespace").asString())) {
                        // pods of node-1 only: the webhook judges by the list's field selector
                        boolean ofNode1 = r.path("fieldSelector").path("requirements").toString().equals(
                                "[{\"key\":\"spec.nodeName\",\"operator\":\"In\",\"values\":[\"node-1\"]}]");
                        status.put("allowed", ofNode1);
                        return status;
                    }
                    if (reader && "webhook-ns".equals(r.path("namespace").asString())
                            && List.of("get", "list", "watch").contains(r.path("verb").asString())) {
                        status.put("allowed", true);
                    } else if (reader) {
                        status.put("allowed", false);
                        status.put("denied", true);
                        status.put("reason", "external readers only read webhook-ns");
                    } else {
                        status.put("allowed", false);
                    }
                    return status;
                });
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange,
                               java.util.function.Function<JsonNode, ObjectNode> status) throws IOException {
        JsonNode review = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
        REVIEWS.add(review);
        ObjectNode out = (ObjectNode) review.deepCopy();
        out.set("status", status.apply(review));
        byte[] body = Json.MAPPER.writeValueAsBytes(out);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private static String kubeconfig(String name, String path) {
        try {
            Path dir = Path.of("target/test-data/auth-webhooks");
            Files.createDirectories(dir);
            Path file = dir.resolve(name + ".kubeconfig");
            Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters:\n- name: hook\n  cluster:\n"
                    + "    server: http://127.0.0.1:" + WEBHOOKS.getAddress().getPort() + path + "\n"
                    + "users:\n- name: apiserver\n  user:\n    token: webhook-secret\n"
                    + "contexts:\n- name: hook\n  context: {cluster: hook, user: apiserver}\ncurrent-context: hook\n",
                    StandardCharsets.UTF_8);
            return file.toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void webhooks(DynamicPropertyRegistry registry) {
        registry.add("cybernetes.auth.authentication-token-webhook.config-file", () -> kubeconfig("authn", "/authenticate"));
        registry.add("cybernetes.auth.authorization-mode", () -> "Node,RBAC,Webhook");
        registry.add("cybernetes.auth.authorization-webhook.config-file", () -> kubeconfig("authz", "/authorize"));
        registry.add("cybernetes.auth.authorization-webhook.cache-unauthorized-ttl", () -> "0s");
        registry.add("spring.datasource.url", () -> "jdbc:h2:mem:authwebhooks;DB_CLOSE_DELAY=-1");
        // a data directory of its own: the shared one's kubeconfig must keep naming the shared server
        registry.add("cybernetes.auth.data-dir", () -> "./target/test-data/authwebhooks");
    }

    @Test
    void aTokenTheWebhookVouchesForActsAsItsUserWithWhatTheAuthorizationWebhookAllows() {
        assertThat(createNamespace("webhook-ns").code()).isIn(201, 409);
        Response whoami = callAs("dave-external-token", "POST",
                "/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
                "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}", "application/json");
        assertThat(whoami.code()).isEqualTo(201);
        assertThat(whoami.text("status.userInfo.username")).isEqualTo("dave");
        assertThat(whoami.json().path("status").path("userInfo").path("groups").toString())
                .contains("external-readers", "system:authenticated");
        JsonNode tokenReview = REVIEWS.stream().filter(r -> "TokenReview".equals(r.path("kind").asString()))
                .findFirst().orElseThrow();
        assertThat(tokenReview.path("apiVersion").asString()).isEqualTo("authentication.k8s.io/v1");

        String cms = "/api/v1/namespaces/webhook-ns/configmaps";
        assertThat(callAs("dave-external-token", "GET", cms, null, null, "application/json").code())
                .as("the authorization webhook allows reading webhook-ns").isEqualTo(200);
        JsonNode sar = REVIEWS.stream().filter(r -> "SubjectAccessReview".equals(r.path("kind").asString())
                && "list".equals(r.path("spec").path("resourceAttributes").path("verb").asString())).findFirst()
                .orElseThrow();
        assertThat(sar.path("spec").path("user").asString()).isEqualTo("dave");
        assertThat(sar.path("spec").path("resourceAttributes").path("resource").asString()).isEqualTo("configmaps");
        long asked = REVIEWS.size();
        assertThat(callAs("dave-external-token", "GET", cms, null, null, "application/json").code()).isEqualTo(200);
        assertThat(REVIEWS).as("both answers came from the caches").hasSize((int) asked);

        Response denied = callAs("dave-external-token", "POST", cms, "application/json",
                "{\"metadata\":{\"name\":\"x\"}}", "application/json");
        assertThat(denied.code()).isEqualTo(403);
        assertThat(denied.text("message")).isEqualTo("configmaps is forbidden: User \"dave\" cannot create resource"
                + " \"configmaps\" in API group \"\" in the namespace \"webhook-ns\": external readers only read webhook-ns");
        assertThat(callAs("unknown-token", "GET", cms, null, null, "application/json").code())
                .as("a token the webhook does not vouch for").isEqualTo(401);
        assertThat(callAs("bob-token", "GET", cms, null, null, "application/json").code())
                .as("neither RBAC nor the webhook allows bob").isEqualTo(403);

        AUTHZ_DOWN.set(true);
        try {
            Response down = callAs("dave-external-token", "GET", "/api/v1/namespaces/webhook-ns/secrets", null, null,
                    "application/json");
            assertThat(down.code()).as("a webhook that fails allows nothing").isEqualTo(403);
            assertThat(down.text("message")).as("the cause stays in the server's log").doesNotContain("127.0.0.1");
            assertThat(get(cms).code()).as("the admin is not asked about").isEqualTo(200);
            Response review = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", """
                    {"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"dave",
                     "resourceAttributes":{"namespace":"webhook-ns","verb":"list","resource":"secrets"}}}""");
            assertThat(review.json().path("status").path("allowed").asBoolean(true)).isFalse();
            assertThat(review.text("status.evaluationError")).as("an access review says the webhook failed")
                    .isNotEmpty();
        } finally {
            AUTHZ_DOWN.set(false);
        }
    }

    @Test
    void theAuthorizationWebhookJudgesAListByItsSelectors() {
        assertThat(createNamespace("webhook-sel").code()).isIn(201, 409);
        String pods = "/api/v1/namespaces/webhook-sel/pods";
        Response ofNode1 = callAs("dave-external-token", "GET", pods + "?fieldSelector=spec.nodeName%3D%3Dnode-1"
                + "&labelSelector=app%3Dweb,tier%20in%20(a,b),!canary", null, null, "application/json");
        assertThat(ofNode1.code()).as(ofNode1.body()).isEqualTo(200);
        JsonNode asked = REVIEWS.stream().filter(r -> "webhook-sel".equals(r.path("spec").path("resourceAttributes")
                .path("namespace").asString())).findFirst().orElseThrow().path("spec").path("resourceAttributes");
        assertThat(asked.path("fieldSelector").toString()).as("requirements, never the raw selector").isEqualTo(
                "{\"requirements\":[{\"key\":\"spec.nodeName\",\"operator\":\"In\",\"values\":[\"node-1\"]}]}");
        assertThat(asked.path("labelSelector").path("requirements").toString()).isEqualTo("[{\"key\":\"app\","
                + "\"operator\":\"In\",\"values\":[\"web\"]},{\"key\":\"tier\",\"operator\":\"In\",\"values\":"
                + "[\"a\",\"b\"]},{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}]");
        assertThat(callAs("dave-external-token", "GET", pods, null, null, "application/json").code())
                .as("all the namespace's pods").isEqualTo(403);
        assertThat(callAs("dave-external-token", "GET", pods + "?fieldSelector=spec.nodeName%3Dnode-2", null, null,
                "application/json").code()).as("another node's").isEqualTo(403);
        assertThat(callAs("dave-external-token", "GET", pods + "?fieldSelector=spec.nodeName%3Dnode-1&watch=true"
                + "&timeoutSeconds=1", null, null, "application/json").code()).as("a watch of them").isEqualTo(200);

        // a SubjectAccessReview asks the same with a raw selector or requirements
        String review = "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"spec\":"
                + "{\"user\":\"dave\",\"groups\":[\"external-readers\"],\"resourceAttributes\":{\"namespace\":"
                + "\"webhook-sel\",\"verb\":\"list\",\"resource\":\"pods\",\"fieldSelector\":%s}}}";
        Response raw = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review.formatted(
                "{\"rawSelector\":\"spec.nodeName=node-1\"}"));
        assertThat(raw.code()).as(raw.body()).isEqualTo(201);
        assertThat(raw.json().path("status").path("allowed").asBoolean()).isTrue();
        assertThat(raw.json().path("spec").path("resourceAttributes").path("fieldSelector").path("rawSelector")
                .asString()).isEqualTo("spec.nodeName=node-1");
        Response required = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review.formatted(
                "{\"requirements\":[{\"key\":\"spec.nodeName\",\"operator\":\"In\",\"values\":[\"node-1\"]}]}"));
        assertThat(required.json().path("status").path("allowed").asBoolean()).isTrue();
        Response unusable = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review.formatted(
                "{\"requirements\":[{\"key\":\"spec.nodeName\",\"operator\":\"Exists\"}]}"));
        assertThat(unusable.code()).isEqualTo(201);
        assertThat(unusable.json().path("status").path("allowed").asBoolean()).as("asked without it").isFalse();
        assertThat(unusable.text("status.evaluationError"))
                .isEqualTo("spec.resourceAttributes.fieldSelector ignored due to parse error");
        Response partly = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review.formatted(
                "{\"requirements\":[{\"key\":\"spec.nodeName\",\"operator\":\"In\",\"values\":[\"node-1\"]},"
                        + "{\"key\":\"status.phase\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}"));
        assertThat(partly.json().path("status").path("allowed").asBoolean()).isTrue();
        assertThat(partly.text("status.evaluationError"))
                .isEqualTo("spec.resourceAttributes.fieldSelector partially ignored due to parse error");

        Response both = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review.formatted(
                "{\"rawSelector\":\"a=b\",\"requirements\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"b\"]}]}"));
        assertThat(both.code()).isEqualTo(422);
        assertThat(both.text("message")).contains("spec.resourceAttributes.fieldSelector.rawSelector: Invalid value:"
                + " \"a=b\": may not specified at the same time as requirements");
        Response empty = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review.formatted("{}"));
        assertThat(empty.code()).isEqualTo(422);
        assertThat(empty.text("message")).contains("spec.resourceAttributes.fieldSelector.requirements: Required value:"
                + " when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required");
        Response noValues = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review.formatted(
                "{\"requirements\":[{\"key\":\"a\",\"operator\":\"NotIn\"}]}"));
        assertThat(noValues.code()).isEqualTo(422);
        assertThat(noValues.text("message")).contains("spec.resourceAttributes.fieldSelector.requirements[0].values:"
                + " Required value: must be specified when `operator` is 'In' or 'NotIn'");
    }
}

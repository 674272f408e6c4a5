package io.cybernetes.apiserver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.cybernetes.api.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission webhooks against a real HTTPS webhook server this test starts, trusted
 * through the configuration's caBundle: a mutating patch, a denial, both failure
 * policies for a webhook that is down, a timeout, a malformed answer, and dry runs.
 * Every configuration selects only this test's namespace and is removed after each test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookApiTest extends ApiTestSupport {

    static final String NS = "webhooked";
    static final String ADMISSION = "/apis/admissionregistration.k8s.io/v1/";

    HttpsServer server;
    com.sun.net.httpserver.HttpServer plain;
    String caBundle;
    final AtomicReference<JsonNode> lastReview = new AtomicReference<>();

    @BeforeAll
    void webhookServer() throws Exception {
        io.cybernetes.TestCertificates.Served tls = io.cybernetes.TestCertificates.forLocalhost();
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls.server()));
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.createContext("/mutate", ex -> answer(ex, review -> {
            ObjectNode r = allow(review);
            String patch = "[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"mutated-by\":\"webhook\"}}]";
            r.put("patchType", "JSONPatch");
            r.put("patch", Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
            return r;
        }));
        server.createContext("/deny", ex -> answer(ex, review -> {
            ObjectNode r = allow(review);
            if (review.path("request").path("name").asString("").startsWith("forbidden")) {
                r.put("allowed", false);
                ObjectNode status = r.putObject("status");
                status.put("code", 403);
                status.put("message", "names starting with forbidden are not allowed here");
            }
            return r;
        }));
        server.createContext("/slow", ex -> answer(ex, review -> {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return allow(review);
        }));
        server.createContext("/garbage", ex -> {
            byte[] b = "this is not an AdmissionReview".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        plain = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        plain.createContext("/label", ex -> answer(ex, review -> {
            ObjectNode r = allow(review);
            String patch = "[{\"op\":\"add\",\"path\":\"/metadata/labels/seen-by\",\"value\":\"plain-http\"}]";
            r.put("patchType", "JSONPatch");
            r.put("patch", Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
            return r;
        }));
        plain.start();
        caBundle = tls.caBase64Pem();
        assertThat(post("/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                + NS + "\",\"labels\":{\"webhooks\":\"on\"}}}").code()).isIn(201, 409);
    }

    private ObjectNode allow(JsonNode review) {
        lastReview.set(review);
        ObjectNode r = Json.object();
        r.put("uid", review.path("request").path("uid").asString());
        r.put("allowed", true);
        return r;
    }

    private static void answer(HttpExchange ex, java.util.function.Function<JsonNode, ObjectNode> handler)
            throws IOException {
        JsonNode review = Json.MAPPER.readTree(ex.getRequestBody().readAllBytes());
        ObjectNode out = Json.object();
        out.put("apiVersion", "admission.k8s.io/v1");
        out.put("kind", "AdmissionReview");
        out.set("response", handler.apply(review));
        byte[] b = Json.MAPPER.writeValueAsBytes(out);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    @AfterAll
    void stop() {
        server.stop(0);
        plain.stop(0);
    }

    @AfterEach
    void removeConfigurations() {
        for (String kind : new String[] {"mutatingwebhookconfigurations", "validatingwebhookconfigurations"}) {
            for (JsonNode item : get(ADMISSION + kind).json().path("items")) {
                delete(ADMISSION + kind + "/" + item.path("metadata").path("name").asString());
            }
        }
    }

    private String hook(String path) {
        return "https://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private void configure(String kind, String name, String url, String extra) {
        String k = kind.equals("mutating") ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
        Response r = post(ADMISSION + kind + "webhookconfigurations", "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
                + "\"kind\":\"" + k + "\",\"metadata\":{\"name\":\"" + name + "\"},\"webhooks\":[{\"name\":\"" + name
                + ".example.test\",\"clientConfig\":{\"url\":\"" + url + "\",\"caBundle\":\"" + caBundle + "\"},"
                + "\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
                + "\"resources\":[\"configmaps\"]}],\"namespaceSelector\":{\"matchLabels\":{\"webhooks\":\"on\"}},"
                + "\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]" + extra + "}]}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
    }

    private Response configMap(String name, String query) {
        return post("/api/v1/namespaces/" + NS + "/configmaps" + query, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"" + name + "\"}}");
    }

    @Test
    void aMutatingWebhooksPatchIsAppliedAndItSeesWhoAsked() {
        configure("mutating", "annotate", hook("/mutate"), "");
        eventually(() -> assertThat(configMap("m-" + System.nanoTime(), "?dryRun=All").json().path("metadata")
                .path("annotations").path("mutated-by").asString("")).isEqualTo("webhook"));
        Response r = configMap("mutated", "");
        assertThat(r.code()).isEqualTo(201);
        assertThat(r.json().path("metadata").path("annotations").path("mutated-by").asString()).isEqualTo("webhook");
        JsonNode request = lastReview.get().path("request");
        assertThat(request.path("operation").asString()).isEqualTo("CREATE");
        assertThat(request.path("userInfo").path("username").asString()).isEqualTo("admin");
        assertThat(request.path("resource").path("resource").asString()).isEqualTo("configmaps");
        assertThat(request.path("dryRun").asBoolean()).isFalse();
        // only the selected namespace goes to the webhook
        Response elsewhere = post("/api/v1/namespaces/default/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"not-mutated-" + System.nanoTime() + "\"}}");
        assertThat(elsewhere.json().path("metadata").has("annotations")).isFalse();
    }

    @Test
    void webhooksSeeCustomResources() {
        String group = "hooked.example.com";
        assertThat(call("POST", CustomResourceApiTest.CRDS, "application/yaml", CustomResourceApiTest.widgetCrd(group))
                .code()).isEqualTo(201);
        String widgets = "/apis/" + group + "/v1/namespaces/" + NS + "/widgets";
        eventually(() -> assertThat(get(widgets).code()).isEqualTo(200));
        Response config = post(ADMISSION + "validatingwebhookconfigurations", "{\"apiVersion\":"
                + "\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":"
                + "\"deny-widgets\"},\"webhooks\":[{\"name\":\"deny-widgets.example.test\",\"clientConfig\":{\"url\":\""
                + hook("/deny") + "\",\"caBundle\":\"" + caBundle + "\"},\"rules\":[{\"operations\":[\"CREATE\"],"
                + "\"apiGroups\":[\"" + group + "\"],\"apiVersions\":[\"v1\"],\"resources\":[\"widgets\"]}],"
                + "\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]}]}");
        assertThat(config.code()).as(config.body()).isEqualTo(201);
        String widget = "{\"apiVersion\":\"" + group + "/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"%s\"},"
                + "\"spec\":{\"color\":\"red\"}}";
        eventually(() -> assertThat(post(widgets + "?dryRun=All", widget.formatted("forbidden-w")).code())
                .isEqualTo(403));
        Response denied = post(widgets, widget.formatted("forbidden-widget"));
        assertThat(denied.text("message")).isEqualTo("admission webhook \"deny-widgets.example.test\" denied the"
                + " request: names starting with forbidden are not allowed here");
        JsonNode request = lastReview.get().path("request");
        assertThat(request.path("kind").path("kind").asString()).isEqualTo("Widget");
        assertThat(request.path("resource").path("group").asString()).isEqualTo(group);
        assertThat(request.path("object").path("spec").path("size").asString()).as("defaulted before admission")
                .isEqualTo("medium");
        assertThat(post(widgets, widget.formatted("allowed-widget")).code()).isEqualTo(201);
        assertThat(delete(ADMISSION + "validatingwebhookconfigurations/deny-widgets").code()).isEqualTo(200);
    }

    @Test
    void aValidatingWebhooksDenialIsTheAnswerAndNothingIsStored() {
        configure("validating", "deny", hook("/deny"), "");
        eventually(() -> assertThat(configMap("forbidden-x", "?dryRun=All").code()).isEqualTo(403));
        Response r = configMap("forbidden-1", "");
        assertThat(r.code()).isEqualTo(403);
        assertThat(r.text("message")).isEqualTo("admission webhook \"deny.example.test\" denied the request: names"
                + " starting with forbidden are not allowed here");
        assertThat(get("/api/v1/namespaces/" + NS + "/configmaps/forbidden-1").code()).isEqualTo(404);
        assertThat(configMap("allowed-1", "").code()).isEqualTo(201);
        assertThat(lastReview.get().path("request").path("dryRun").asBoolean()).isFalse();
        assertThat(configMap("allowed-2", "?dryRun=All").code()).isEqualTo(201);
        assertThat(lastReview.get().path("request").path("dryRun").asBoolean()).as("side-effect-free webhooks hear of"
                + " dry runs").isTrue();
    }

    @Test
    void aWebhookThatIsDownFailsTheWriteUnlessItsPolicyIsIgnore() {
        configure("validating", "down", "https://127.0.0.1:1/", "");
        eventually(() -> assertThat(configMap("d-" + System.nanoTime(), "?dryRun=All").code()).isEqualTo(500));
        Response r = configMap("down-1", "");
        assertThat(r.code()).isEqualTo(500);
        assertThat(r.text("message")).startsWith("Internal error occurred: failed calling webhook \"down.example.test\":"
                + " failed to call webhook: Post \"https://127.0.0.1:1/\"");
        removeConfigurations();
        configure("validating", "down", "https://127.0.0.1:1/", ",\"failurePolicy\":\"Ignore\"");
        eventually(() -> assertThat(configMap("i-" + System.nanoTime(), "?dryRun=All").code()).isEqualTo(201));
    }

    @Test
    void aSlowWebhookTimesOutAndAMalformedAnswerFails() {
        configure("validating", "slow", hook("/slow"), ",\"timeoutSeconds\":1");
        eventually(() -> {
            Response r = configMap("s-" + System.nanoTime(), "?dryRun=All");
            assertThat(r.code()).isEqualTo(500);
            assertThat(r.text("message")).contains("failed calling webhook \"slow.example.test\"",
                    "context deadline exceeded");
        });
        removeConfigurations();
        configure("mutating", "garbage", hook("/garbage"), "");
        eventually(() -> {
            Response r = configMap("g-" + System.nanoTime(), "?dryRun=All");
            assertThat(r.code()).isEqualTo(500);
            assertThat(r.text("message")).contains("failed calling webhook \"garbage.example.test\"",
                    "received invalid webhook response");
        });
    }

    @Test
    void anObjectSelectorPicksTheObjectsAPlainHttpWebhookSees() {
        Response r = post(ADMISSION + "mutatingwebhookconfigurations", "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
                + "\"kind\":\"MutatingWebhookConfiguration\",\"metadata\":{\"name\":\"labeller\"},\"webhooks\":[{"
                + "\"name\":\"labeller.example.test\",\"clientConfig\":{\"url\":\"http://127.0.0.1:"
                + plain.getAddress().getPort() + "/label\"},\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":"
                + "[\"\"],\"apiVersions\":[\"v1\"],\"resources\":[\"configmaps\"]}],\"namespaceSelector\":"
                + "{\"matchLabels\":{\"webhooks\":\"on\"}},\"objectSelector\":{\"matchLabels\":{\"audit\":\"me\"}},"
                + "\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"]}]}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        Response selected = post("/api/v1/namespaces/" + NS + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"selected\",\"labels\":{\"audit\":\"me\"}}}");
        assertThat(selected.json().path("metadata").path("labels").path("seen-by").asString()).isEqualTo("plain-http");
        Response other = post("/api/v1/namespaces/" + NS + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"unselected\",\"labels\":{\"audit\":\"no\"}}}");
        assertThat(other.code()).isEqualTo(201);
        assertThat(other.json().path("metadata").path("labels").has("seen-by")).isFalse();
    }

    @Test
    void aWebhookConfigurationIsValidated() {
        Response r = post(ADMISSION + "validatingwebhookconfigurations", "{\"apiVersion\":"
                + "\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":"
                + "\"bad\"},\"webhooks\":[{\"name\":\"short\",\"clientConfig\":{},\"admissionReviewVersions\":[\"v1\"],"
                + "\"timeoutSeconds\":60}]}");
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.text("message")).contains("webhooks[0].name", "webhooks[0].clientConfig", "webhooks[0].sideEffects",
                "webhooks[0].timeoutSeconds");
    }

    @Test
    void matchConditionsDecideWhetherTheWebhookIsCalled() {
        // the denying webhook is asked only about ConfigMaps whose name is not "exempt-..." and only by the admin,
        // who (the authorizer says) may delete nodes
        configure("validating", "conditional", hook("/deny"), ",\"matchConditions\":[{\"name\":\"not-exempt\","
                + "\"expression\":\"!object.metadata.name.startsWith('forbidden-exempt')\"},{\"name\":\"by-admin\","
                + "\"expression\":\"request.userInfo.username == 'admin' && request.operation == 'CREATE'"
                + " && oldObject == null && authorizer.group('').resource('nodes').check('delete').allowed()"
                + " && authorizer.requestResource.check('create').allowed()\"}]");
        eventually(() -> assertThat(configMap("forbidden-c" + System.nanoTime(), "?dryRun=All").code()).isEqualTo(403));
        assertThat(configMap("forbidden-exempt-1", "").code()).as("a false condition skips the webhook").isEqualTo(201);
        removeConfigurations();
        // a condition that fails to evaluate follows the failure policy
        configure("validating", "broken", hook("/deny"), ",\"matchConditions\":[{\"name\":\"missing-field\","
                + "\"expression\":\"object.spec.nothing == 'x'\"}]");
        eventually(() -> {
            String name = "b-" + System.nanoTime();
            Response r = configMap(name, "?dryRun=All");
            assertThat(r.code()).as("failing closed, as kube-apiserver").isEqualTo(403);
            assertThat(r.text("message")).startsWith("configmaps \"" + name + "\" is forbidden: expression"
                    + " 'object.spec.nothing == 'x'' resulted in error: ");
        });
        removeConfigurations();
        configure("validating", "broken", hook("/deny"), ",\"failurePolicy\":\"Ignore\",\"matchConditions\":[{"
                + "\"name\":\"missing-field\",\"expression\":\"object.spec.nothing == 'x'\"}]");
        eventually(() -> assertThat(configMap("forbidden-i" + System.nanoTime(), "?dryRun=All").code()).isEqualTo(201));
        removeConfigurations();
        // a webhook's conditions share Kubernetes' budget of 2,500,000: eight authorization checks overrun it
        StringBuilder costly = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            costly.append(i == 0 ? "" : ",").append("{\"name\":\"c").append(i).append("\",\"expression\":\"!(authorizer")
                    .append(".path('/a').check('get').errored() || authorizer.path('/b').check('get').errored())\"}");
        }
        configure("validating", "costly", hook("/deny"), ",\"matchConditions\":[" + costly + "]");
        eventually(() -> assertThat(configMap("forbidden-b" + System.nanoTime(), "?dryRun=All").text("message"))
                .endsWith("validation failed due to running out of cost budget, no further validation rules will be run"));
    }

    @Test
    void matchConditionsThatDoNotCompileAreRefused() {
        Response r = post(ADMISSION + "validatingwebhookconfigurations", "{\"apiVersion\":"
                + "\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":"
                + "\"bad-conditions\"},\"webhooks\":[{\"name\":\"bad.example.test\",\"clientConfig\":{\"url\":\""
                + hook("/deny") + "\"},\"sideEffects\":\"None\",\"admissionReviewVersions\":[\"v1\"],"
                + "\"matchConditions\":[{\"name\":\"a\",\"expression\":\"object.metadata.name ==\"},"
                + "{\"name\":\"a\",\"expression\":\"'not a bool'\"},{\"name\":\"\",\"expression\":\"\"}]}]}");
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.text("message")).contains(
                "webhooks[0].matchConditions[0].expression: Invalid value: \"object.metadata.name ==\": compilation failed",
                "webhooks[0].matchConditions[1].name: Duplicate value: \"a\"",
                "webhooks[0].matchConditions[1].expression: Invalid value: \"'not a bool'\": must evaluate to bool",
                "webhooks[0].matchConditions[2].name: Required value",
                "webhooks[0].matchConditions[2].expression: Required value");
    }
}

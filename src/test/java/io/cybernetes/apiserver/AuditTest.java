package io.cybernetes.apiserver;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.Json;
import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import org.springframework.beans.factory.annotation.Autowired;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Every request leaves an audit.k8s.io/v1 Event line, found by the Audit-Id the response carries. */
class AuditTest extends ApiTestSupport {

    @Autowired
    LocalApi api;

    @Autowired
    InProcessCredentials credentials;

    @Test
    void anAllowedChangeIsRecordedWithItsBody() {
        assertThat(createNamespace("audited").code()).isIn(201, 409);
        Response r = post("/api/v1/namespaces/audited/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"c-" + System.nanoTime() + "\"},\"data\":{\"k\":\"v\"}}");
        assertThat(r.code()).isEqualTo(201);
        JsonNode e = auditEvent(r);
        assertThat(e.path("kind").asString()).isEqualTo("Event");
        assertThat(e.path("apiVersion").asString()).isEqualTo("audit.k8s.io/v1");
        assertThat(e.path("level").asString()).isEqualTo("Request");
        assertThat(e.path("stage").asString()).isEqualTo("ResponseComplete");
        assertThat(e.path("verb").asString()).isEqualTo("create");
        assertThat(e.path("user").path("username").asString()).isEqualTo("admin");
        assertThat(e.path("user").path("groups").toString()).contains("system:masters");
        assertThat(e.path("objectRef").path("resource").asString()).isEqualTo("configmaps");
        assertThat(e.path("objectRef").path("namespace").asString()).isEqualTo("audited");
        assertThat(e.path("responseStatus").path("code").asInt()).isEqualTo(201);
        assertThat(e.path("requestObject").path("data").path("k").asString()).isEqualTo("v");
        assertThat(e.path("annotations").path("authorization.k8s.io/decision").asString()).isEqualTo("allow");
        assertThat(e.path("requestReceivedTimestamp").asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
    }

    @Test
    void aBodyWrittenOverSeveralLinesStaysOneEventLine() {
        assertThat(createNamespace("audited").code()).isIn(201, 409);
        Response r = post("/api/v1/namespaces/audited/configmaps", "{\n  \"metadata\": {\"name\": \"m-"
                + System.nanoTime() + "\"},\r\n  \"data\": {\"text\": \"a\\nb\"}\n}\n");
        assertThat(r.code()).isEqualTo(201);
        JsonNode e = auditEvent(r);
        assertThat(e.path("requestObject").path("data").path("text").asString()).isEqualTo("a\nb");
    }

    @Test
    void anImpersonatedRequestRecordsBothUsers() {
        Response r = callWithHeaders(token(), "GET", "/api/v1/namespaces/default/configmaps", null, null,
                "application/json", "Impersonate-User", "bob", "Impersonate-Group", "team-b");
        assertThat(r.code()).isEqualTo(403);
        JsonNode e = auditEvent(r);
        assertThat(e.path("user").path("username").asString()).isEqualTo("admin");
        assertThat(e.path("impersonatedUser").path("username").asString()).isEqualTo("bob");
        assertThat(e.path("impersonatedUser").path("groups").toString())
                .isEqualTo("[\"team-b\",\"system:authenticated\"]");
        assertThat(e.path("annotations").path("authorization.k8s.io/decision").asString()).isEqualTo("forbid");
    }

    /** The one line whose requestURI and user name are these (in-process requests carry no Audit-Id header). */
    private JsonNode eventOf(String user, String uriPart) {
        AtomicReference<JsonNode> found = new AtomicReference<>();
        eventually(() -> {
            try {
                for (String line : Files.readAllLines(auditLog())) {
                    if (!line.contains(uriPart) || !line.contains(user) || !line.endsWith("}")) {
                        continue; // someone else's, or the line being written
                    }
                    JsonNode e = Json.MAPPER.readTree(line);
                    if (e.path("requestURI").asString().contains(uriPart)
                            && e.path("user").path("username").asString().equals(user)) {
                        found.set(e);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(found.get()).as("audit line of " + user + " for " + uriPart).isNotNull();
        });
        return found.get();
    }

    @Test
    void inProcessRequestsAreRecordedAsHttpOnesAre() {
        assertThat(createNamespace("audited-local").code()).isIn(201, 409);
        ApiClient controllers = ApiClients.local(api, credentials.tokenFor("audited-component", List.of()));
        String name = "local-" + System.nanoTime();
        ApiException denied = catchThrowableOfType(ApiException.class, () -> controllers.create(
                new ConfigMapBuilder().withNewMetadata().withNamespace("audited-local").withName(name).endMetadata()
                        .build()));
        assertThat(denied.code()).isEqualTo(403);
        JsonNode e = eventOf("audited-component", "/namespaces/audited-local/configmaps");
        assertThat(e.path("verb").asString()).isEqualTo("create");
        assertThat(e.path("userAgent").asString()).isEqualTo("cybernetes/in-process");
        assertThat(e.path("sourceIPs").get(0).asString()).isEqualTo("127.0.0.1");
        assertThat(e.path("responseStatus").path("code").asInt()).isEqualTo(403);
        assertThat(e.path("annotations").path("authorization.k8s.io/decision").asString()).isEqualTo("forbid");
        assertThat(e.path("requestObject").path("metadata").path("name").asString()).isEqualTo(name);
    }

    @Test
    void aDeniedRequestIsRecordedWithTheDecision() {
        Response r = callAs("bob-token", "GET", "/api/v1/namespaces/kube-system/secrets", null, null, "application/json");
        assertThat(r.code()).isEqualTo(403);
        JsonNode e = auditEvent(r);
        assertThat(e.path("level").asString()).isEqualTo("Metadata");
        assertThat(e.path("verb").asString()).isEqualTo("list");
        assertThat(e.path("user").path("username").asString()).isEqualTo("bob");
        assertThat(e.path("responseStatus").path("code").asInt()).isEqualTo(403);
        assertThat(e.path("responseStatus").path("status").asString()).isEqualTo("Failure");
        assertThat(e.path("annotations").path("authorization.k8s.io/decision").asString()).isEqualTo("forbid");
    }

    @Test
    void refusedCredentialsAreRecordedToo() {
        Response r = callAs("not-a-token", "DELETE", "/api/v1/namespaces/default", null, null, null);
        assertThat(r.code()).isEqualTo(401);
        JsonNode e = auditEvent(r);
        assertThat(e.path("responseStatus").path("code").asInt()).isEqualTo(401);
        assertThat(e.path("user").has("username")).isFalse();
        assertThat(e.path("verb").asString()).isEqualTo("delete");
    }

    @Test
    void secretsAreRecordedWithoutTheirContent() {
        Response r = post("/api/v1/namespaces/default/secrets", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":"
                + "{\"name\":\"s-" + System.nanoTime() + "\"},\"stringData\":{\"password\":\"hunter2\"}}");
        assertThat(r.code()).isEqualTo(201);
        JsonNode e = auditEvent(r);
        assertThat(e.path("level").asString()).isEqualTo("Metadata");
        assertThat(e.has("requestObject")).isFalse();
        assertThat(e.toString()).doesNotContain("hunter2");
    }

    @Test
    void healthChecksAreNotRecorded() {
        Response r = callAs(null, "GET", "/healthz", null, null, null);
        assertThat(r.code()).isEqualTo(200);
        String id = r.headers().firstValue("Audit-Id").orElseThrow();
        Response marker = get("/api/v1/namespaces/default");
        auditEvent(marker);
        try {
            assertThat(Files.readString(auditLog())).doesNotContain(id);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** Every request leaves an audit.k8s.io/v1 Event line, found by the Audit-Id the response carries. */
class AuditTest extends ApiTestSupport {

    private Path auditLog() {
        return endpoints.adminKubeconfig().getParent().resolve("audit.log");
    }

    private JsonNode event(Response r) {
        String id = r.headers().firstValue("Audit-Id").orElseThrow();
        AtomicReference<JsonNode> found = new AtomicReference<>();
        eventually(() -> {
            try {
                for (String line : Files.readAllLines(auditLog())) {
                    if (line.contains(id)) {
                        found.set(Json.MAPPER.readTree(line));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(found.get()).as("audit line for " + id).isNotNull();
        });
        return found.get();
    }

    @Test
    void anAllowedChangeIsRecordedWithItsBody() {
        assertThat(createNamespace("audited").code()).isIn(201, 409);
        Response r = post("/api/v1/namespaces/audited/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"c-" + System.nanoTime() + "\"},\"data\":{\"k\":\"v\"}}");
        assertThat(r.code()).isEqualTo(201);
        JsonNode e = event(r);
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
    void aDeniedRequestIsRecordedWithTheDecision() {
        Response r = callAs("bob-token", "GET", "/api/v1/namespaces/kube-system/secrets", null, null, "application/json");
        assertThat(r.code()).isEqualTo(403);
        JsonNode e = event(r);
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
        JsonNode e = event(r);
        assertThat(e.path("responseStatus").path("code").asInt()).isEqualTo(401);
        assertThat(e.path("user").has("username")).isFalse();
        assertThat(e.path("verb").asString()).isEqualTo("delete");
    }

    @Test
    void secretsAreRecordedWithoutTheirContent() {
        Response r = post("/api/v1/namespaces/default/secrets", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":"
                + "{\"name\":\"s-" + System.nanoTime() + "\"},\"stringData\":{\"password\":\"hunter2\"}}");
        assertThat(r.code()).isEqualTo(201);
        JsonNode e = event(r);
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
        event(marker);
        try {
            assertThat(Files.readString(auditLog())).doesNotContain(id);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

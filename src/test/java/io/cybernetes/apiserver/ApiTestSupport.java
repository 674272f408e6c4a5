package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A running server on random ports (plain HTTP and HTTPS) with an in-memory H2, shared
 * by the API and kubectl tests, and a small HTTP client that speaks as the admin.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = {
        "cybernetes.apiserver.https-port=0",
        "cybernetes.apiserver.https-address=127.0.0.1",
        "cybernetes.apiserver.watch-bookmark-interval=1s",
        "cybernetes.auth.data-dir=./target/test-data/api",
        "cybernetes.auth.token-file=./src/test/resources/test-tokens.csv",
        "cybernetes.controllers.node-monitor-grace-period=5s",
        "cybernetes.scheduler.enabled=false",
        "cybernetes.nodes.count=0",
        "spring.datasource.url=jdbc:h2:mem:api;DB_CLOSE_DELAY=-1"})
public abstract class ApiTestSupport {

    protected static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Autowired
    protected ApiServerEndpoints endpoints;

    /** A response with its body parsed when it is JSON. */
    public record Response(int code, String body, java.net.http.HttpHeaders headers) {
        public JsonNode json() {
            return Json.MAPPER.readTree(body);
        }

        public String text(String path) {
            return Json.text(json(), path);
        }
    }

    protected String token() {
        try {
            return Files.readString(endpoints.adminKubeconfig().getParent().resolve("pki/admin.token")).trim();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    protected String url(String path) {
        return "http://127.0.0.1:" + endpoints.httpPort() + path;
    }

    protected Response call(String method, String path, String contentType, String body) {
        return call(method, path, contentType, body, "application/json", true);
    }

    protected Response call(String method, String path, String contentType, String body, String accept, boolean auth) {
        return callAs(auth ? token() : null, method, path, contentType, body, accept);
    }

    /** A request with the bearer token given (none when null). */
    protected Response callAs(String bearer, String method, String path, String contentType, String body,
                              String accept) {
        return callWithHeaders(bearer, method, path, contentType, body, accept);
    }

    /** As {@link #callAs}, with more headers given as name, value, name, value... */
    protected Response callWithHeaders(String bearer, String method, String path, String contentType, String body,
                                       String accept, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (accept != null) {
            b.header("Accept", accept);
        }
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.body(), r.headers());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    protected Response get(String path) {
        return call("GET", path, null, null);
    }

    protected Response post(String path, String json) {
        return call("POST", path, "application/json", json);
    }

    protected Response put(String path, String json) {
        return call("PUT", path, "application/json", json);
    }

    protected Response patch(String path, String type, String body) {
        return call("PATCH", path, type, body);
    }

    protected Response delete(String path) {
        return call("DELETE", path, null, null);
    }

    /** Retries until the check passes: authorization follows writes through a watch, a moment later. */
    protected static void eventually(Runnable check) {
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            try {
                check.run();
                return;
            } catch (AssertionError e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** The server's audit log. */
    protected Path auditLog() {
        return endpoints.adminKubeconfig().getParent().resolve("audit.log");
    }

    /** The audit.k8s.io/v1 Event line the server wrote for a response, found by its Audit-Id. */
    protected JsonNode auditEvent(Response r) {
        String id = r.headers().firstValue("Audit-Id").orElseThrow();
        Path log = auditLog();
        java.util.concurrent.atomic.AtomicReference<JsonNode> found = new java.util.concurrent.atomic.AtomicReference<>();
        eventually(() -> {
            try {
                for (String line : java.nio.file.Files.readAllLines(log)) {
                    if (line.contains(id) && line.endsWith("}")) {
                        found.set(io.cybernetes.api.Json.MAPPER.readTree(line));
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            org.assertj.core.api.Assertions.assertThat(found.get()).as("audit line for " + id).isNotNull();
        });
        return found.get();
    }

    protected Response createNamespace(String name) {
        return post("/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + name
                + "\"}}");
    }

    protected static ObjectNode object(String json) {
        return (ObjectNode) Json.MAPPER.readTree(json);
    }

    protected static Path projectDir() {
        return Path.of("").toAbsolutePath();
    }
}

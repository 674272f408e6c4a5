package io.cybernetes.client.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ListerWatcher;
import io.fabric8.kubernetes.api.model.HasMetadata;
import tools.jackson.databind.JsonNode;

import javax.net.ssl.SSLContext;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link ApiClient} over HTTP(S) with a bearer token, for agents outside the process (and
 * for tests that want the whole network path): JSON bodies, watches read line by line
 * from the chunked response on a thread of their own.
 */
public final class HttpApiClient implements ApiClient {

    private final URI base;
    private final String token;
    private final HttpClient http;
    private final ResourceRegistry registry = ResourceRegistry.builtIn();

    public HttpApiClient(URI base, SSLContext ssl, String token) {
        this.base = base;
        this.token = token;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .version(HttpClient.Version.HTTP_1_1);
        if (ssl != null) {
            b.sslContext(ssl);
        }
        this.http = b.build();
    }

    private ResourceType type(Class<?> kind) {
        return registry.byModel(kind).orElseThrow(() -> new IllegalArgumentException(kind.getName()
                + " is not a served kind"));
    }

    private static String collection(ResourceType t, String namespace) {
        String root = t.group().isEmpty() ? "/api/" + t.version() : "/apis/" + t.group() + "/" + t.version();
        return t.namespaced() && namespace != null ? root + "/namespaces/" + namespace + "/" + t.plural()
                : root + "/" + t.plural();
    }

    private static String item(ResourceType t, String namespace, String name) {
        return collection(t, namespace) + "/" + name;
    }

    @Override
    public <T extends HasMetadata> Optional<T> get(Class<T> kind, String namespace, String name) {
        try {
            return Optional.of(Json.MAPPER.readValue(send("GET", item(type(kind), namespace, name), null, null), kind));
        } catch (ApiException e) {
            if (e.code() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public <T extends HasMetadata> ListerWatcher.Listed<T> list(Class<T> kind, String namespace, String labelSelector) {
        String path = collection(type(kind), namespace)
                + (labelSelector == null ? "" : "?labelSelector=" + URLEncoder.encode(labelSelector, StandardCharsets.UTF_8));
        JsonNode list = Json.MAPPER.readTree(send("GET", path, null, null));
        List<T> items = new ArrayList<>();
        for (JsonNode item : list.path("items")) {
            items.add(Json.MAPPER.treeToValue(item, kind));
        }
        return new ListerWatcher.Listed<>(items, list.path("metadata").path("resourceVersion").asString(""));
    }

    @Override
    public <T extends HasMetadata> ListerWatcher.WatchStream<T> watch(Class<T> kind, String namespace,
                                                                    String resourceVersion) {
        String path = collection(type(kind), namespace) + "?watch=true&allowWatchBookmarks=true&resourceVersion="
                + URLEncoder.encode(resourceVersion == null ? "" : resourceVersion, StandardCharsets.UTF_8);
        HttpResponse<InputStream> resp;
        try {
            resp = http.send(request("GET", path, null, null).build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (resp.statusCode() != 200) {
            try (InputStream in = resp.body()) {
                throw error(resp.statusCode(), in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new LineWatch<>(resp.body(), kind);
    }

    /** Reads the watch's lines on a daemon thread into a queue, so {@code next} can time out. */
    private static final class LineWatch<T> implements ListerWatcher.WatchStream<T> {

        private final BlockingQueue<ListerWatcher.Event<T>> events = new LinkedBlockingQueue<>();
        private final InputStream body;
        private volatile boolean closed;

        LineWatch(InputStream body, Class<T> kind) {
            this.body = body;
            Thread reader = new Thread(() -> read(kind), "watch-reader");
            reader.setDaemon(true);
            reader.start();
        }

        private void read(Class<T> kind) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonNode e = Json.MAPPER.readTree(line);
                    String type = e.path("type").asString("");
                    JsonNode obj = e.path("object");
                    if (type.equals("ERROR")) {
                        events.add(ListerWatcher.Event.error(obj.path("code").asInt(500)));
                        continue;
                    }
                    String rv = obj.path("metadata").path("resourceVersion").asString("");
                    ListerWatcher.Event.Type t = switch (type) {
                        case "ADDED" -> ListerWatcher.Event.Type.ADDED;
                        case "MODIFIED" -> ListerWatcher.Event.Type.MODIFIED;
                        case "DELETED" -> ListerWatcher.Event.Type.DELETED;
                        default -> ListerWatcher.Event.Type.BOOKMARK;
                    };
                    T value = t == ListerWatcher.Event.Type.BOOKMARK ? null : Json.MAPPER.treeToValue(obj, kind);
                    events.add(ListerWatcher.Event.of(t, value, rv));
                }
            } catch (IOException | RuntimeException e) {
                // the connection ended; the reflector resumes from the last revision it saw
            }
            events.add(ListerWatcher.Event.closed());
        }

        @Override
        public ListerWatcher.Event<T> next(long timeoutMillis) throws InterruptedException {
            return closed ? ListerWatcher.Event.closed() : events.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            closed = true;
            try {
                body.close();
            } catch (IOException e) {
                // closing a stream the server may already have ended
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> T create(T object) {
        ResourceType t = type(object.getClass());
        byte[] out = send("POST", collection(t, object.getMetadata().getNamespace()), "application/json",
                Json.MAPPER.writeValueAsBytes(object));
        return (T) Json.MAPPER.readValue(out, object.getClass());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> T update(T object) {
        ResourceType t = type(object.getClass());
        byte[] out = send("PUT", item(t, object.getMetadata().getNamespace(), object.getMetadata().getName()),
                "application/json", Json.MAPPER.writeValueAsBytes(object));
        return (T) Json.MAPPER.readValue(out, object.getClass());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> T updateStatus(T object) {
        ResourceType t = type(object.getClass());
        byte[] out = send("PUT", item(t, object.getMetadata().getNamespace(), object.getMetadata().getName())
                + "/status", "application/json", Json.MAPPER.writeValueAsBytes(object));
        return (T) Json.MAPPER.readValue(out, object.getClass());
    }

    @Override
    public io.fabric8.kubernetes.api.model.Namespace finalizeNamespace(io.fabric8.kubernetes.api.model.Namespace ns) {
        byte[] out = send("PUT", "/api/v1/namespaces/" + ns.getMetadata().getName() + "/finalize", "application/json",
                Json.MAPPER.writeValueAsBytes(ns));
        return Json.MAPPER.readValue(out, io.fabric8.kubernetes.api.model.Namespace.class);
    }

    @Override
    public <T extends HasMetadata> T patch(Class<T> kind, String namespace, String name, String mergePatch) {
        byte[] out = send("PATCH", item(type(kind), namespace, name), "application/merge-patch+json",
                mergePatch.getBytes(StandardCharsets.UTF_8));
        return Json.MAPPER.readValue(out, kind);
    }

    @Override
    public void delete(Class<? extends HasMetadata> kind, String namespace, String name, String propagationPolicy,
                       Long gracePeriodSeconds) {
        StringBuilder body = new StringBuilder("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\"");
        if (propagationPolicy != null) {
            body.append(",\"propagationPolicy\":\"").append(propagationPolicy).append('"');
        }
        if (gracePeriodSeconds != null) {
            body.append(",\"gracePeriodSeconds\":").append(gracePeriodSeconds);
        }
        body.append('}');
        send("DELETE", item(type(kind), namespace, name), "application/json",
                body.toString().getBytes(StandardCharsets.UTF_8));
    }

    private HttpRequest.Builder request(String method, String path, String contentType, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(30))
                .header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return b;
    }

    private byte[] send(String method, String path, String contentType, byte[] body) {
        try {
            HttpResponse<byte[]> resp = http.send(request(method, path, contentType, body)
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
            if (resp.statusCode() >= 300) {
                throw error(resp.statusCode(), resp.body());
            }
            return resp.body();
        } catch (IOException e) {
            throw ApiException.unavailable("the API server could not be reached: " + e.getMessage(), 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }

    /** The server's Status as an ApiException (or a plain one when the body is not a Status). */
    private static ApiException error(int code, byte[] body) {
        try {
            JsonNode status = Json.MAPPER.readTree(body);
            return ApiException.of(status.path("code").asInt(code), status.path("reason").asString(""),
                    status.path("message").asString(""));
        } catch (RuntimeException e) {
            return ApiException.of(code, "", new String(body, StandardCharsets.UTF_8));
        }
    }
}

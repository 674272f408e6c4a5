package io.cybernetes.client.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ListerWatcher;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The typed verbs over Kubernetes' REST paths, the same whatever carries the bytes:
 * subclasses send one request ({@link #send}) and open one watch ({@link #openWatch}).
 */
abstract class RestApiClient implements ApiClient {

    private static final Logger log = LoggerFactory.getLogger(RestApiClient.class);

    /** Where the typed kinds are served (the model classes are those of built-in kinds). */
    private final ResourceRegistry registry;

    RestApiClient(ResourceRegistry registry) {
        this.registry = registry;
    }

    /** What asks the server for metadata only. */
    static final String METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

    /**
     * Sends a request; a non-2xx answer is thrown as the server's Status. {@code query} may
     * be null; {@code accept} too (JSON).
     */
    protected abstract byte[] send(String method, String path, String query, String accept, String contentType,
                                   byte[] body);

    /** Opens a watch at the collection path with the query, its events read as {@code kind}. */
    protected abstract <T extends HasMetadata> ListerWatcher.WatchStream<T> openWatch(String path, String query,
                                                                                      String accept, Class<T> kind);

    private byte[] send(String method, String path, String query, String contentType, byte[] body) {
        return send(method, path, query, null, contentType, body);
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

    private static String encode(String v) {
        return URLEncoder.encode(v, StandardCharsets.UTF_8);
    }

    @Override
    public <T extends HasMetadata> Optional<T> get(Class<T> kind, String namespace, String name) {
        try {
            return Optional.of(Json.MAPPER.readValue(send("GET", item(type(kind), namespace, name), null, null, null),
                    kind));
        } catch (ApiException e) {
            if (e.code() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public <T extends HasMetadata> ListerWatcher.Listed<T> list(Class<T> kind, String namespace, String labelSelector,
                                                                String fieldSelector) {
        StringBuilder query = new StringBuilder();
        if (labelSelector != null) {
            query.append("labelSelector=").append(encode(labelSelector));
        }
        if (fieldSelector != null) {
            query.append(query.length() == 0 ? "" : "&").append("fieldSelector=").append(encode(fieldSelector));
        }
        return list(collection(type(kind), namespace), query.length() == 0 ? null : query.toString(), null, kind);
    }

    private <T> ListerWatcher.Listed<T> list(String path, String query, String accept, Class<T> readAs) {
        JsonNode list = Json.MAPPER.readTree(send("GET", path, query, accept, null, null));
        List<T> items = new ArrayList<>();
        for (JsonNode item : list.path("items")) {
            T value = decodeOrSkip(item, readAs);
            if (value != null) {
                items.add(value);
            }
        }
        return new ListerWatcher.Listed<>(items, list.path("metadata").path("resourceVersion").asString(""));
    }

    @Override
    public <T extends HasMetadata> ListerWatcher.WatchStream<T> watch(Class<T> kind, String namespace,
                                                                    String resourceVersion, String fieldSelector) {
        String query = watchQuery(resourceVersion) + (fieldSelector == null ? "" : "&fieldSelector="
                + encode(fieldSelector));
        return openWatch(collection(type(kind), namespace), query, null, kind);
    }

    private static String watchQuery(String resourceVersion) {
        return "watch=true&allowWatchBookmarks=true&resourceVersion=" + encode(resourceVersion == null ? ""
                : resourceVersion);
    }

    @Override
    public ListerWatcher.Listed<PartialObjectMetadata> listMetadata(ResourceType type, String namespace) {
        return list(collection(type, namespace), null, METADATA, PartialObjectMetadata.class);
    }

    @Override
    public ListerWatcher.WatchStream<PartialObjectMetadata> watchMetadata(ResourceType type, String namespace,
                                                                         String resourceVersion) {
        return openWatch(collection(type, namespace), watchQuery(resourceVersion), METADATA,
                PartialObjectMetadata.class);
    }

    @Override
    public Optional<PartialObjectMetadata> getMetadata(ResourceType type, String namespace, String name) {
        try {
            return Optional.of(Json.MAPPER.readValue(send("GET", item(type, namespace, name), null, METADATA, null,
                    null), PartialObjectMetadata.class));
        } catch (ApiException e) {
            if (e.code() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public void patch(ResourceType type, String namespace, String name, String mergePatch) {
        send("PATCH", item(type, namespace, name), null, "application/merge-patch+json",
                mergePatch.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public List<tools.jackson.databind.node.ObjectNode> listJson(ResourceType type, String namespace,
                                                                 String labelSelector) {
        JsonNode list = Json.MAPPER.readTree(send("GET", collection(type, namespace), labelSelector == null ? null
                : "labelSelector=" + encode(labelSelector), null, null, null));
        List<tools.jackson.databind.node.ObjectNode> items = new ArrayList<>();
        for (JsonNode item : list.path("items")) {
            if (item instanceof tools.jackson.databind.node.ObjectNode o) {
                items.add(o);
            }
        }
        return items;
    }

    @Override
    public Scale getScale(ResourceType type, String namespace, String name) {
        return Json.MAPPER.readValue(send("GET", item(type, namespace, name) + "/scale", null, null, null), Scale.class);
    }

    @Override
    public Scale updateScale(ResourceType type, String namespace, String name, Scale scale) {
        return Json.MAPPER.readValue(send("PUT", item(type, namespace, name) + "/scale", null, "application/json",
                Json.MAPPER.writeValueAsBytes(scale)), Scale.class);
    }

    @Override
    public void delete(ResourceType type, String namespace, String name, String propagationPolicy) {
        delete(type, namespace, name, propagationPolicy, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> T create(T object) {
        ResourceType t = type(object.getClass());
        // a review has no metadata of its own
        String namespace = object.getMetadata() == null ? null : object.getMetadata().getNamespace();
        byte[] out = send("POST", collection(t, namespace), null, "application/json",
                Json.MAPPER.writeValueAsBytes(object));
        return (T) Json.MAPPER.readValue(out, object.getClass());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> T update(T object) {
        ResourceType t = type(object.getClass());
        byte[] out = send("PUT", item(t, object.getMetadata().getNamespace(), object.getMetadata().getName()), null,
                "application/json", Json.MAPPER.writeValueAsBytes(object));
        return (T) Json.MAPPER.readValue(out, object.getClass());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> T updateStatus(T object) {
        ResourceType t = type(object.getClass());
        byte[] out = send("PUT", item(t, object.getMetadata().getNamespace(), object.getMetadata().getName())
                + "/status", null, "application/json", Json.MAPPER.writeValueAsBytes(object));
        return (T) Json.MAPPER.readValue(out, object.getClass());
    }

    @Override
    public void bind(String namespace, String pod, String node) {
        ObjectNode binding = Json.object();
        binding.put("apiVersion", "v1");
        binding.put("kind", "Binding");
        binding.putObject("metadata").put("name", pod).put("namespace", namespace);
        binding.putObject("target").put("apiVersion", "v1").put("kind", "Node").put("name", node);
        send("POST", "/api/v1/namespaces/" + namespace + "/pods/" + pod + "/binding", null, "application/json",
                Json.MAPPER.writeValueAsBytes(binding));
    }

    @Override
    public String requestToken(String namespace, String serviceAccount, List<String> audiences, long expirationSeconds,
                               String podName, String podUid) {
        ObjectNode request = Json.object();
        request.put("apiVersion", "authentication.k8s.io/v1");
        request.put("kind", "TokenRequest");
        ObjectNode spec = request.putObject("spec");
        var aud = spec.putArray("audiences");
        audiences.forEach(aud::add);
        spec.put("expirationSeconds", expirationSeconds);
        if (podName != null) {
            spec.putObject("boundObjectRef").put("apiVersion", "v1").put("kind", "Pod").put("name", podName)
                    .put("uid", podUid);
        }
        byte[] out = send("POST", "/api/v1/namespaces/" + namespace + "/serviceaccounts/" + serviceAccount + "/token",
                null, "application/json", Json.MAPPER.writeValueAsBytes(request));
        return Json.MAPPER.readTree(out).path("status").path("token").asString("");
    }

    @Override
    public Namespace finalizeNamespace(Namespace ns) {
        byte[] out = send("PUT", "/api/v1/namespaces/" + ns.getMetadata().getName() + "/finalize", null,
                "application/json", Json.MAPPER.writeValueAsBytes(ns));
        return Json.MAPPER.readValue(out, Namespace.class);
    }

    @Override
    public <T extends HasMetadata> T patch(Class<T> kind, String namespace, String name, String mergePatch) {
        byte[] out = send("PATCH", item(type(kind), namespace, name), null, "application/merge-patch+json",
                mergePatch.getBytes(StandardCharsets.UTF_8));
        return Json.MAPPER.readValue(out, kind);
    }

    @Override
    public void delete(Class<? extends HasMetadata> kind, String namespace, String name, String propagationPolicy,
                       Long gracePeriodSeconds) {
        delete(type(kind), namespace, name, propagationPolicy, gracePeriodSeconds);
    }

    private void delete(ResourceType type, String namespace, String name, String propagationPolicy,
                        Long gracePeriodSeconds) {
        StringBuilder body = new StringBuilder("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\"");
        if (propagationPolicy != null) {
            body.append(",\"propagationPolicy\":\"").append(propagationPolicy).append('"');
        }
        if (gracePeriodSeconds != null) {
            body.append(",\"gracePeriodSeconds\":").append(gracePeriodSeconds);
        }
        body.append('}');
        send("DELETE", item(type, namespace, name), null, "application/json",
                body.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The server's Status as an ApiException (or a plain one when the body is not a Status). */
    static ApiException error(int code, byte[] body) {
        try {
            JsonNode status = Json.MAPPER.readTree(body);
            return ApiException.of(status.path("code").asInt(code), status.path("reason").asString(""),
                    status.path("message").asString(""));
        } catch (RuntimeException e) {
            return ApiException.of(code, "", new String(body, StandardCharsets.UTF_8));
        }
    }

    /**
     * An object as the model class, or null (and a warning) when the model cannot hold it:
     * one object stored before the server checked what it stores must not stop a
     * controller's informer from seeing all the others.
     */
    static <T> T decodeOrSkip(JsonNode object, Class<T> kind) {
        try {
            return Json.MAPPER.treeToValue(object, kind);
        } catch (RuntimeException e) {
            log.warn("Passing over {} {}/{} that this client cannot decode: {}", kind.getSimpleName(),
                    object.path("metadata").path("namespace").asString(""),
                    object.path("metadata").path("name").asString(""), e.getMessage());
            return null;
        }
    }

    /**
     * A watch whose lines arrive from elsewhere (a reader thread, the server's streaming
     * thread), queued so that {@code next} can time out.
     */
    static class QueuedWatch<T> implements ListerWatcher.WatchStream<T> {

        private final BlockingQueue<ListerWatcher.Event<T>> events = new LinkedBlockingQueue<>();
        private final Class<T> kind;
        private volatile boolean closed;

        QueuedWatch(Class<T> kind) {
            this.kind = kind;
        }

        /**
         * One line of the stream; a line that does not parse ends the watch (the reader
         * resumes), an event whose object this model cannot hold is passed over (resuming
         * would meet it again, for ever).
         */
        final void line(byte[] line) {
            try {
                ListerWatcher.Event<T> e = parseEvent(line, kind);
                if (e != null) {
                    events.add(e);
                }
            } catch (RuntimeException e) {
                ended();
            }
        }

        final void ended() {
            events.add(ListerWatcher.Event.closed());
        }

        private static <T> ListerWatcher.Event<T> parseEvent(byte[] line, Class<T> kind) {
            JsonNode e = Json.MAPPER.readTree(line);
            String type = e.path("type").asString("");
            JsonNode obj = e.path("object");
            if (type.equals("ERROR")) {
                return ListerWatcher.Event.error(obj.path("code").asInt(500));
            }
            String rv = obj.path("metadata").path("resourceVersion").asString("");
            ListerWatcher.Event.Type t = switch (type) {
                case "ADDED" -> ListerWatcher.Event.Type.ADDED;
                case "MODIFIED" -> ListerWatcher.Event.Type.MODIFIED;
                case "DELETED" -> ListerWatcher.Event.Type.DELETED;
                default -> ListerWatcher.Event.Type.BOOKMARK;
            };
            if (t == ListerWatcher.Event.Type.BOOKMARK) {
                return ListerWatcher.Event.of(t, null, rv);
            }
            T value = decodeOrSkip(obj, kind);
            return value == null ? null : ListerWatcher.Event.of(t, value, rv);
        }

        @Override
        public ListerWatcher.Event<T> next(long timeoutMillis) throws InterruptedException {
            return closed ? ListerWatcher.Event.closed() : events.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}

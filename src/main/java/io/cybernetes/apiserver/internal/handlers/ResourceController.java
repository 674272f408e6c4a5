package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.apiserver.internal.registry.TableColumn;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RuleResolver;
import io.cybernetes.auth.ServiceAccountTokens;
import io.cybernetes.auth.TokenAuthenticator;
import io.cybernetes.auth.UserInfo;
import io.cybernetes.store.StoredObject;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one HTTP entry point of every resource: parses the Kubernetes path and query,
 * negotiates the body and response formats, and hands the verb to
 * {@link ResourceService}. Documented for people through the generated OpenAPI, not
 * through this class.
 */
@Hidden
@RestController
public class ResourceController {

    private final ResourceRegistry registry;
    private final ResourceService service;
    private final WatchStreamer watches;
    private final ApiServerProperties props;
    private final RequestReader reader;
    private final ResourceDeleter deleter;
    private final ResourceLister lister;
    private final AccessReviews reviews;
    /**
     * The subresources that are more than the object's own get and update, by name, for
     * every kind that declares them (what each kind declares is in its definition).
     */
    private final java.util.Map<String, SubresourceHandler> handlers = new java.util.HashMap<>();
    /** The subresources answered with a stream from a node (a pod's log, exec, attach, port-forward). */
    private final List<StreamedSubresource> streamed;
    private final List<ComputedView> views;
    private final List<GroupProxy> proxies;

    public ResourceController(ResourceRegistry registry, ResourceService service, ApiServerProperties props,
                       WatchThreads watchThreads, Authorizer authorizer, RuleResolver rules,
                       TokenAuthenticator tokens, ServiceAccountTokens serviceAccountTokens, ApiServerMetrics metrics,
                       List<StreamedSubresource> streamed, List<ComputedView> views, List<GroupProxy> proxies) {
        this.registry = registry;
        this.streamed = List.copyOf(streamed);
        this.views = List.copyOf(views);
        this.proxies = List.copyOf(proxies);
        this.service = service;
        this.watches = new WatchStreamer(service.store(), watchThreads, metrics::watchEventSent,
                new WatchStreamer.Served() {
                    @Override
                    public StoredObject one(ResourceType type, StoredObject stored) {
                        return service.served(type, stored);
                    }

                    @Override
                    public List<StoredObject> all(ResourceType type, List<StoredObject> stored) {
                        return service.served(type, stored);
                    }
                });
        this.props = props;
        this.reader = new RequestReader(props.maxRequestBytes());
        this.deleter = new ResourceDeleter(service);
        this.lister = new ResourceLister(service.store());
        this.reviews = new AccessReviews(authorizer, rules, tokens);
        TokenRequests tokenRequests = new TokenRequests(registry, service, serviceAccountTokens);
        handlers.put("scale", ScaleSubresource::serve);
        handlers.put("binding", PodBinding::serve);
        handlers.put("eviction", new PodEviction(registry));
        handlers.put("token", call -> {
            if (!call.request().method().equals("POST")) {
                throw ApiException.methodNotAllowed();
            }
            return new SubresourceHandler.Answer(tokenRequests.request(call.type(), call.namespace(), call.name(),
                    call.reader().readObject(call.request(), "TokenRequest")), 201);
        });
    }

    @RequestMapping(path = {ResourceHandlerMapping.CORE_PATTERN, ResourceHandlerMapping.GROUP_PATTERN})
    public ResponseEntity<?> handle(HttpServletRequest request, HttpServletResponse response) throws IOException {
        return handle(new ServletCall(request, response));
    }

    /** Serves one resource request, from HTTP or from the in-process API server. */
    public ResponseEntity<?> handle(ApiCall request) throws IOException {
        RequestInfo info = RequestInfo.parse(request.path());
        {
            // an APIService with a service takes its group version, even one served here (a metrics-server's)
            for (GroupProxy p : proxies) {
                if (p.serves(info.group(), info.version())) {
                    if (!(request instanceof ServletCall servlet)) {
                        throw ApiException.badRequest(info.group() + "/" + info.version()
                                + " is served by an extension API server, over HTTP only");
                    }
                    servlet.watchRelayed();
                    p.proxy(servlet);
                    return null;
                }
            }
        }
        ResourceType type = registry.byPath(info.group(), info.version(), info.resource())
                .orElseThrow(() -> ApiException.pathNotFound());
        if (info.namespace() != null && !type.namespaced()) {
            throw ApiException.pathNotFound();
        }
        if (info.subresource() != null && !type.hasSubresource(info.subresource())) {
            throw ApiException.pathNotFound();
        }
        String method = request.method();
        if (type.view()) {
            return view(request, type, info);
        }
        if (!type.stored()) {
            return review(request, type, info);
        }
        if (info.name() == null) {
            return switch (method) {
                case "GET" -> RequestReader.isTrue(request.parameter("watch")) ? watch(request, type, info)
                        : list(request, type, info);
                case "POST" -> create(request, type, info);
                case "DELETE" -> deleteCollection(request, type, info);
                default -> throw ApiException.methodNotAllowed();
            };
        }
        if (type.namespaced() && info.namespace() == null) {
            throw ApiException.pathNotFound();
        }
        if (info.subresource() != null) {
            for (StreamedSubresource s : streamed) {
                if (s.serves(type, info.subresource())) {
                    if (!(request instanceof ServletCall servlet)) {
                        throw ApiException.badRequest(type.plural() + "/" + info.subresource()
                                + " is served over HTTP only");
                    }
                    s.serve(servlet.servletRequest(), servlet.servletResponse(), type, info.namespace(), info.name(),
                            info.subresource());
                    return null;
                }
            }
        }
        SubresourceHandler handler = info.subresource() == null ? null : handlers.get(info.subresource());
        if (handler != null) {
            SubresourceHandler.Answer answer = handler.serve(new SubresourceHandler.Call(request, type,
                    info.namespace(), info.name(), service, reader));
            return write(Format.of(request), answer.body(), answer.code(), List.of());
        }
        return switch (method) {
            case "GET" -> respond(request, type, Outcome.stored(service.get(type, info.namespace(), info.name()), 200));
            case "PUT" -> {
                RequestReader.Document body = reader.readDocument(request, type.kind());
                Outcome o = service.update(type, info.namespace(), info.name(), info.subresource(), body.object(),
                        reader.writeOptions(request).withDuplicateFields(body.duplicateFields()));
                yield respond(request, type, o);
            }
            case "PATCH" -> {
                PatchType pt = PatchType.fromContentType(request.contentType());
                Outcome o = service.patch(type, info.namespace(), info.name(), info.subresource(), pt,
                        reader.readBody(request), reader.writeOptions(request));
                yield respond(request, type, o);
            }
            case "DELETE" -> {
                if (info.subresource() != null) {
                    throw ApiException.methodNotAllowed();
                }
                Outcome o = deleter.delete(type, info.namespace(), info.name(), reader.deleteOptions(request));
                yield respond(request, type, o);
            }
            default -> throw ApiException.methodNotAllowed();
        };
    }

    // ---- verbs

    /**
     * A view: GET of one or a list from the component that computes it (a view served by a
     * controller of its own never reaches here over HTTP); anything else is a verb it does not have.
     */
    private ResponseEntity<?> view(ApiCall request, ResourceType type, RequestInfo info) {
        ComputedView view = views.stream().filter(v -> v.serves(type)).findFirst().orElse(null);
        if (view == null || !request.method().equals("GET") || info.subresource() != null
                || RequestReader.isTrue(request.parameter("watch"))) {
            throw ApiException.methodNotAllowed();
        }
        if (info.name() != null) {
            return respond(request, type, Outcome.ok(view.get(type, info.namespace(), info.name()), List.of()));
        }
        List<ObjectNode> items = view.list(type, info.namespace(), request.parameter("labelSelector"),
                request.parameter("fieldSelector"));
        Format format = Format.of(request);
        ObjectNode body;
        if (format.table()) {
            body = TableConvertor.table(service.definition(type).columns(), items, "", null,
                    RequestReader.include(request));
        } else {
            body = Json.object();
            body.put("kind", type.listKind());
            body.put("apiVersion", type.apiVersion());
            body.putObject("metadata");
            ArrayNode arr = body.putArray("items");
            items.forEach(arr::add);
        }
        return write(format, body, 200, List.of());
    }

    /** A review: decoded and checked like any object, answered, and not stored. */
    private ResponseEntity<?> review(ApiCall request, ResourceType type, RequestInfo info) throws IOException {
        if (!request.method().equals("POST") || info.name() != null) {
            throw ApiException.methodNotAllowed();
        }
        if (type.namespaced() && info.namespace() == null) {
            throw ApiException.pathNotFound();
        }
        RequestReader.Document body = reader.readDocument(request, type.kind());
        List<String> warnings = service.decode(type, body.object(),
                reader.writeOptions(request).withDuplicateFields(body.duplicateFields()));
        UserInfo user = request.user();
        return write(Format.of(request), reviews.answer(type, info.namespace(), body.object(), user), 201, warnings);
    }

    private ResponseEntity<?> create(ApiCall request, ResourceType type, RequestInfo info) throws IOException {
        if (type.namespaced() && info.namespace() == null) {
            throw ApiException.methodNotAllowed();
        }
        RequestReader.Document body = reader.readDocument(request, type.kind());
        Outcome o = service.create(type, info.namespace(), body.object(),
                reader.writeOptions(request).withDuplicateFields(body.duplicateFields()));
        return respond(request, type, o);
    }

    private ResponseEntity<?> list(ApiCall request, ResourceType type, RequestInfo info) throws IOException {
        if (request.parameter("sendInitialEvents") != null) {
            throw listOptionsInvalid(ApiException.cause("sendInitialEvents", "FieldValueForbidden",
                    "Forbidden: sendInitialEvents is forbidden for list"));
        }
        ListOptions opts = reader.listOptions(request, type);
        ResourceLister.Page page = lister.list(type, info.namespace(), opts);
        String rv = Long.toString(page.result().revision());
        Format format = Format.of(request);
        List<StoredObject> stored = format.partial() ? page.result().items()
                : service.served(type, page.result().items());
        List<ObjectNode> items = stored.stream().map(StoredObject::value).toList();
        HttpServletResponse streamed = request instanceof ServletCall servlet ? servlet.servletResponse() : null;
        ObjectNode body;
        if (format.table()) {
            List<TableColumn> columns = service.definition(type).columns();
            TableConvertor.Include include = RequestReader.include(request);
            body = TableConvertor.table(columns, streamed != null ? List.of() : items, rv, page.continueToken(), include);
            body.set("metadata", listMeta(page));
            if (streamed != null) {
                // the Table without rows, then its rows one by one: "rows" is its last field
                String head = Json.write(body);
                stream(streamed, head.substring(0, head.length() - "]}".length()), items,
                        o -> Json.write(TableConvertor.row(columns, o, include)));
                return null;
            }
        } else if (!format.partial() && !format.yaml()) {
            // the items as the store's JSON text, not serialised again
            String head = "{\"kind\":\"" + type.listKind() + "\",\"apiVersion\":\"" + type.apiVersion()
                    + "\",\"metadata\":" + Json.write(listMeta(page)) + ",\"items\":[";
            if (streamed != null) {
                stream(streamed, head, stored, StoredObject::jsonText);
                return null;
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(64 + stored.size() * 1024);
            writeArray(out, head, stored, StoredObject::jsonText);
            return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(out.toByteArray());
        } else {
            body = Json.object();
            body.put("kind", format.partial() ? "PartialObjectMetadataList" : type.listKind());
            body.put("apiVersion", format.partial() ? "meta.k8s.io/v1" : type.apiVersion());
            body.set("metadata", listMeta(page));
            ArrayNode arr = body.putArray("items");
            for (ObjectNode item : items) {
                arr.add(format.partial() ? TableConvertor.partial(item) : item);
            }
        }
        return write(format, body, 200, List.of());
    }

    /**
     * A page's ListMeta: its resourceVersion, the continue token when more follow and, for
     * a list no selector filtered, how many more (Kubernetes' remainingItemCount).
     */
    private static ObjectNode listMeta(ResourceLister.Page page) {
        ObjectNode meta = Json.object();
        meta.put("resourceVersion", Long.toString(page.result().revision()));
        if (!page.continueToken().isEmpty()) {
            meta.put("continue", page.continueToken());
            if (page.result().remaining() != null) {
                meta.put("remainingItemCount", page.result().remaining());
            }
        }
        return meta;
    }

    /** Opens the watch and lets the transport stream it. */
    private ResponseEntity<?> watch(ApiCall request, ResourceType type,
                                    RequestInfo info) throws IOException {
        ListOptions opts = reader.listOptions(request, type);
        long timeout = props.watchMaxTimeout().toMillis();
        String ts = request.parameter("timeoutSeconds");
        if (ts != null && !ts.isEmpty()) {
            try {
                timeout = Math.min(timeout, Math.max(0, Long.parseLong(ts)) * 1000);
            } catch (NumberFormatException e) {
                throw ApiException.badRequest("invalid timeoutSeconds \"" + ts + "\"");
            }
        }
        Format format = Format.of(request);
        Boolean sendInitialEvents = watchListOptions(request);
        WatchStreamer.Opened opened = watches.open(new WatchStreamer.Request(type, info.namespace(), opts,
                format.table() ? service.definition(type).columns() : null, format.partial(),
                RequestReader.include(request),
                RequestReader.isTrue(request.parameter("allowWatchBookmarks")), timeout,
                props.watchBookmarkInterval().toMillis(), props.watchFlushInterval().toMillis(), sendInitialEvents));
        return request.stream(opened);
    }

    /**
     * {@code sendInitialEvents} of a watch (null when not given), checked with
     * {@code resourceVersionMatch} as Kubernetes' ListOptions validation checks them.
     */
    private static Boolean watchListOptions(ApiCall request) {
        String send = request.parameter("sendInitialEvents");
        String match = request.parameter("resourceVersionMatch");
        boolean matchGiven = match != null && !match.isEmpty();
        if (send == null) {
            if (matchGiven) {
                throw listOptionsInvalid(ApiException.cause("resourceVersionMatch", "FieldValueForbidden",
                        "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
            }
            return null;
        }
        if (!matchGiven) {
            throw listOptionsInvalid(ApiException.cause("resourceVersionMatch", "FieldValueForbidden",
                    "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
        }
        if (!match.equals("NotOlderThan")) {
            throw listOptionsInvalid(ApiException.cause("resourceVersionMatch", "FieldValueNotSupported",
                    "Unsupported value: " + GoStrings.quote(match) + ": supported values: \"NotOlderThan\""));
        }
        return RequestReader.isTrue(send);
    }

    public static ApiException listOptionsInvalid(StatusCause cause) {
        return ApiException.invalid("meta.k8s.io", "ListOptions", "", List.of(cause));
    }

    /**
     * A list (or Table) over HTTP, written as it is encoded: the body is never whole in
     * memory (a list of every pod in a large cluster is hundreds of megabytes, and informers
     * ask for it all at once when they restart). A client that leaves mid-list just ends
     * the writing.
     */
    private static <T> void stream(HttpServletResponse response, String head, List<T> items,
                                   java.util.function.Function<T, String> json) {
        response.setStatus(200);
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.setBufferSize(64 * 1024);
        try {
            writeArray(response.getOutputStream(), head, items, json);
        } catch (IOException clientGone) {
            // nothing more to send to anyone
        }
    }

    /** {@code head}, the items' JSON separated by commas, and the closing {@code ]}} with Go's newline. */
    private static <T> void writeArray(java.io.OutputStream out, String head, List<T> items,
                                       java.util.function.Function<T, String> json) throws IOException {
        out.write(head.getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            out.write(json.apply(items.get(i)).getBytes(StandardCharsets.UTF_8));
        }
        out.write("]}\n".getBytes(StandardCharsets.UTF_8));
    }

    private ResponseEntity<?> deleteCollection(ApiCall request, ResourceType type, RequestInfo info)
            throws IOException {
        ListOptions opts = reader.listOptions(request, type);
        DeleteOptions del = reader.deleteOptions(request);
        ResourceLister.Page page = lister.list(type, info.namespace(), opts);
        ObjectNode body = Json.object();
        body.put("kind", type.listKind());
        body.put("apiVersion", type.apiVersion());
        body.putObject("metadata").put("resourceVersion", Long.toString(page.result().revision()));
        ArrayNode items = body.putArray("items");
        for (StoredObject o : page.result().items()) {
            String ns = Json.text(o.value(), "metadata.namespace");
            try {
                items.add(deleter.delete(type, ns, Json.text(o.value(), "metadata.name"), del).object());
            } catch (ApiException e) {
                if (e.code() != 404) {
                    throw e;
                }
            }
        }
        return write(Format.of(request), body, 200, List.of());
    }

    // ---- responses

    /** What the client accepts: a Table, partial metadata, YAML, or plain JSON. */
    public record Format(boolean table, boolean partial, boolean yaml) {
        static Format of(ApiCall request) {
            String accept = request.header(HttpHeaders.ACCEPT);
            if (accept == null) {
                return new Format(false, false, false);
            }
            String first = accept.split(",")[0];
            boolean table = first.contains("as=Table");
            boolean partial = first.contains("as=PartialObjectMetadata");
            boolean yaml = first.trim().startsWith("application/yaml");
            return new Format(table, partial, yaml);
        }
    }

    private ResponseEntity<?> respond(ApiCall request, ResourceType type, Outcome outcome) {
        Format format = Format.of(request);
        ObjectNode obj = outcome.object();
        int code = outcome.code();
        List<String> warnings = outcome.warnings();
        if (outcome.json() != null && !format.table() && !format.partial() && !format.yaml()) {
            return withWarnings(ResponseEntity.status(code), warnings).contentType(MediaType.APPLICATION_JSON)
                    .body((outcome.json() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        JsonNode body = obj;
        if (format.table()) {
            body = TableConvertor.table(service.definition(type).columns(), List.of(obj),
                    Json.text(obj, "metadata.resourceVersion"), null, RequestReader.include(request));
        } else if (format.partial()) {
            body = TableConvertor.partial(obj);
        }
        return write(format, body, code, warnings);
    }

    /**
     * Adds each warning as a {@code Warning: 299 - "text"} header, which kubectl prints; a
     * header is one line, so line breaks and other control characters become spaces.
     */
    private static ResponseEntity.BodyBuilder withWarnings(ResponseEntity.BodyBuilder b, List<String> warnings) {
        List<String> headerValues = new ArrayList<>();
        for (String w : warnings) {
            String line = w.replaceAll("\\p{Cntrl}+", " ");
            headerValues.add("299 - \"" + line.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        }
        if (!headerValues.isEmpty()) {
            b.header("Warning", headerValues.toArray(String[]::new));
        }
        return b;
    }

    public static ResponseEntity<byte[]> write(Format format, JsonNode body, int code, List<String> warnings) {
        ResponseEntity.BodyBuilder b = withWarnings(ResponseEntity.status(code), warnings);
        if (format.yaml()) {
            return b.contentType(MediaType.parseMediaType("application/yaml")).body(Json.YAML.writeValueAsBytes(body));
        }
        return b.contentType(MediaType.APPLICATION_JSON).body(jsonLine(body));
    }

    /** A JSON answer as Go's encoder writes one: the value and a newline. */
    public static byte[] jsonLine(JsonNode body) {
        return (Json.write(body) + "\n").getBytes(StandardCharsets.UTF_8);
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceRegistry.GroupVersion;
import io.cybernetes.api.ResourceType;
import io.swagger.v3.oas.annotations.Hidden;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Kubernetes-style OpenAPI v3 documents ({@code /openapi/v3} and one per group
 * version) that kubectl reads to validate and to learn that the server checks fields
 * itself. {@code /openapi/v2} is answered 404, which kubectl accepts.
 */
@Hidden
@RestController
class KubeOpenApiController {

    private final ResourceRegistry registry;
    private final SchemaRegistry schemas;
    private final Map<String, byte[]> documents = new LinkedHashMap<>();
    private final Map<String, String> hashes = new LinkedHashMap<>();

    KubeOpenApiController(ResourceRegistry registry, SchemaRegistry schemas) {
        this.registry = registry;
        this.schemas = schemas;
        for (GroupVersion gv : registry.groupVersions()) {
            byte[] doc = Json.MAPPER.writeValueAsBytes(document(gv));
            documents.put(gv.path(), doc);
            hashes.put(gv.path(), sha256(doc));
        }
    }

    @GetMapping("/openapi/v3")
    ResponseEntity<byte[]> index() {
        ObjectNode o = Json.object();
        ObjectNode paths = o.putObject("paths");
        hashes.forEach((path, hash) -> paths.putObject(path).put("serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash));
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(o));
    }

    @GetMapping("/openapi/v3/api/{version}")
    ResponseEntity<byte[]> core(@PathVariable String version) {
        return doc("api/" + version);
    }

    @GetMapping("/openapi/v3/apis/{group}/{version}")
    ResponseEntity<byte[]> group(@PathVariable String group, @PathVariable String version) {
        return doc("apis/" + group + "/" + version);
    }

    @GetMapping("/openapi/v2")
    ResponseEntity<byte[]> v2() {
        throw ApiException.pathNotFound();
    }

    private ResponseEntity<byte[]> doc(String path) {
        byte[] doc = documents.get(path);
        if (doc == null) {
            throw ApiException.pathNotFound();
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                .header("Cache-Control", "public, immutable").body(doc);
    }

    private ObjectNode document(GroupVersion gv) {
        ObjectNode doc = Json.object();
        doc.put("openapi", "3.0.0");
        ObjectNode info = doc.putObject("info");
        info.put("title", "Kubernetes");
        info.put("version", "v1.32.0");
        ObjectNode paths = doc.putObject("paths");
        ObjectNode components = doc.putObject("components").putObject("schemas");
        for (ResourceType t : registry.in(gv)) {
            if (t.view()) {
                continue;
            }
            String ref = schemaRef(schemas.of(t), components);
            ObjectNode kindSchema = (ObjectNode) components.get(ref);
            ArrayNode gvk = kindSchema.putArray("x-kubernetes-group-version-kind");
            gvkOf(gvk.addObject(), t);
            String base = "/" + gv.path() + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural();
            ObjectNode collection = paths.putObject(base);
            if (!t.stored()) {
                collection.set("post", op(t, "post", ref, true));
                continue;
            }
            collection.set("get", op(t, "list", ref, false));
            collection.set("post", op(t, "post", ref, true));
            collection.set("delete", op(t, "deletecollection", ref, false));
            ObjectNode item = paths.putObject(base + "/{name}");
            item.set("get", op(t, "get", ref, false));
            item.set("put", op(t, "put", ref, true));
            item.set("patch", op(t, "patch", ref, true));
            item.set("delete", op(t, "delete", ref, false));
            if (t.hasSubresource("status")) {
                ObjectNode status = paths.putObject(base + "/{name}/status");
                status.set("get", op(t, "get", ref, false));
                status.set("put", op(t, "put", ref, true));
                status.set("patch", op(t, "patch", ref, true));
            }
        }
        return doc;
    }

    private static void gvkOf(ObjectNode o, ResourceType t) {
        o.put("group", t.group());
        o.put("version", t.version());
        o.put("kind", t.kind());
    }

    private static ObjectNode op(ResourceType t, String action, String ref, boolean writes) {
        ObjectNode op = Json.object();
        op.put("operationId", action + t.kind());
        ArrayNode params = op.putArray("parameters");
        if (writes) {
            for (String p : new String[] {"dryRun", "fieldManager", "fieldValidation"}) {
                ObjectNode param = params.addObject();
                param.put("name", p);
                param.put("in", "query");
                ObjectNode schema = param.putObject("schema");
                schema.put("type", "string");
                schema.put("uniqueItems", true);
            }
        }
        ObjectNode content = op.putObject("responses").putObject("200").put("description", "OK")
                .putObject("content").putObject("application/json");
        content.putObject("schema").put("$ref", "#/components/schemas/" + ref);
        op.put("x-kubernetes-action", action);
        gvkOf(op.putObject("x-kubernetes-group-version-kind"), t);
        return op;
    }

    /** Adds the schema (and everything it references) to components; returns its name. */
    private String schemaRef(Schema s, ObjectNode components) {
        String name = s.typeName();
        if (!components.has(name)) {
            ObjectNode o = components.putObject(name);
            Schema.Rules own = schemas.typeRules(name);
            if (own.description() != null) {
                o.put("description", own.description());
            }
            o.put("type", "object");
            if (!own.required().isEmpty()) {
                own.required().forEach(o.putArray("required")::add);
            }
            ObjectNode props = o.putObject("properties");
            s.properties().forEach((field, child) -> props.set(field, inline(child, components)));
        }
        return name;
    }

    private ObjectNode inline(Schema s, ObjectNode components) {
        ObjectNode o = Json.object();
        Schema.Rules r = s.rules();
        switch (s.type()) {
            case OBJECT -> {
                // a described reference is wrapped, as Kubernetes' own documents do, so both show
                ObjectNode ref = Json.object().put("$ref", "#/components/schemas/" + schemaRef(s, components));
                if (r.description() == null) {
                    return ref;
                }
                o.putArray("allOf").add(ref);
            }
            case MAP -> {
                o.put("type", "object");
                o.set("additionalProperties", inline(s.items(), components));
            }
            case ARRAY -> {
                o.put("type", "array");
                o.set("items", inline(s.items(), components));
            }
            case STRING -> o.put("type", "string");
            case BYTES -> {
                o.put("type", "string");
                o.put("format", "byte");
            }
            case INTEGER -> {
                o.put("type", "integer");
                o.put("format", "int64");
            }
            case INT32 -> {
                o.put("type", "integer");
                o.put("format", "int32");
            }
            case NUMBER -> o.put("type", "number");
            case BOOLEAN -> o.put("type", "boolean");
            case INT_OR_STRING -> o.put("x-kubernetes-int-or-string", true);
            case QUANTITY -> {
                o.put("x-kubernetes-int-or-string", true);
                o.put("description", "A quantity such as 500m or 1Gi");
            }
            case FREE -> {
                o.put("type", "object");
                o.put("x-kubernetes-preserve-unknown-fields", true);
            }
        }
        if (r.description() != null) {
            o.put("description", r.description());
        }
        if (r.minimum() != null) {
            o.put("minimum", r.minimum());
        }
        if (r.maximum() != null) {
            o.put("maximum", r.maximum());
        }
        if (!r.enumValues().isEmpty()) {
            r.enumValues().forEach(o.putArray("enum")::add);
        }
        if (r.format() != null) {
            o.put("format", r.format());
        }
        if (r.minItems() != null) {
            o.put("minItems", r.minItems());
        }
        return o;
    }

    private static String sha256(byte[] doc) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(doc);
            return HexFormat.of().withUpperCase().formatHex(d, 0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

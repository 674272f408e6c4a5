package io.cybernetes.apiserver.internal.openapi;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceRegistry.GroupVersion;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.registry.Schema;
import io.cybernetes.apiserver.internal.registry.SchemaRegistry;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Set;

/**
 * The OpenAPI documents of the Kubernetes API, built from the kinds' schemas as
 * kube-apiserver publishes them: v3 as one document per group version, v2 (Swagger 2.0)
 * as one document of everything. Both name their schemas as Kubernetes does
 * ({@code io.k8s.api.apps.v1.Deployment}), mark every kind and operation with
 * {@code x-kubernetes-group-version-kind} and every operation with
 * {@code x-kubernetes-action}, and list the write parameters ({@code dryRun},
 * {@code fieldManager}, {@code fieldValidation}) kubectl looks for.
 */
final class KubeOpenApi {

    static final String KUBERNETES_VERSION = "v1.32.0";

    private final ResourceRegistry registry;
    private final SchemaRegistry schemas;

    KubeOpenApi(ResourceRegistry registry, SchemaRegistry schemas) {
        this.registry = registry;
        this.schemas = schemas;
    }

    /** Where a document keeps its schemas, and how its operations are written. */
    private enum Flavor {
        V2("#/definitions/"), V3("#/components/schemas/");

        final String refPrefix;

        Flavor(String refPrefix) {
            this.refPrefix = refPrefix;
        }
    }

    /** The v3 document of one group version. */
    ObjectNode v3(GroupVersion gv) {
        ObjectNode doc = Json.object();
        doc.put("openapi", "3.0.0");
        info(doc);
        ObjectNode paths = doc.putObject("paths");
        ObjectNode components = doc.putObject("components").putObject("schemas");
        paths(gv, Flavor.V3, paths, components);
        return doc;
    }

    /** The v2 document: every group version's paths and definitions in one. */
    ObjectNode v2() {
        ObjectNode doc = Json.object();
        doc.put("swagger", "2.0");
        info(doc);
        ObjectNode paths = doc.putObject("paths");
        ObjectNode definitions = doc.putObject("definitions");
        for (GroupVersion gv : registry.groupVersions()) {
            paths(gv, Flavor.V2, paths, definitions);
        }
        ObjectNode bearer = doc.putObject("securityDefinitions").putObject("BearerToken");
        bearer.put("description", "Bearer Token authentication");
        bearer.put("type", "apiKey");
        bearer.put("name", "authorization");
        bearer.put("in", "header");
        doc.putArray("security").addObject().putArray("BearerToken");
        return doc;
    }

    private static void info(ObjectNode doc) {
        ObjectNode info = doc.putObject("info");
        info.put("title", "Kubernetes");
        info.put("version", KUBERNETES_VERSION);
    }

    private void paths(GroupVersion gv, Flavor flavor, ObjectNode paths, ObjectNode definitions) {
        for (ResourceType t : registry.in(gv)) {
            if (t.view()) {
                continue;
            }
            tools.jackson.databind.JsonNode custom = schemas.custom(t);
            String ref = custom != null ? customDefinition(t, custom, flavor, definitions)
                    : definition(schemas.of(t), flavor, definitions);
            ObjectNode kindSchema = (ObjectNode) definitions.get(ref);
            gvkOf(kindSchema.putArray("x-kubernetes-group-version-kind").addObject(), t);
            String base = "/" + gv.path() + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural();
            ObjectNode collection = paths.putObject(base);
            if (!t.stored()) {
                collection.set("post", op(t, "post", ref, true, flavor));
                pathParameters(collection, t, false, flavor);
                continue;
            }
            collection.set("get", op(t, "list", ref, false, flavor));
            collection.set("post", op(t, "post", ref, true, flavor));
            collection.set("delete", op(t, "deletecollection", ref, false, flavor));
            pathParameters(collection, t, false, flavor);
            ObjectNode item = paths.putObject(base + "/{name}");
            item.set("get", op(t, "get", ref, false, flavor));
            item.set("put", op(t, "put", ref, true, flavor));
            item.set("patch", op(t, "patch", ref, true, flavor));
            item.set("delete", op(t, "delete", ref, false, flavor));
            pathParameters(item, t, true, flavor);
            if (t.hasSubresource("status")) {
                ObjectNode status = paths.putObject(base + "/{name}/status");
                status.set("get", op(t, "get", ref, false, flavor));
                status.set("put", op(t, "put", ref, true, flavor));
                status.set("patch", op(t, "patch", ref, true, flavor));
                pathParameters(status, t, true, flavor);
            }
        }
    }

    private static void gvkOf(ObjectNode o, ResourceType t) {
        o.put("group", t.group());
        o.put("kind", t.kind());
        o.put("version", t.version());
    }

    /** The parameters in the path (name, namespace), declared once for all of its operations. */
    private static void pathParameters(ObjectNode path, ResourceType t, boolean named, Flavor flavor) {
        ArrayNode params = path.putArray("parameters");
        if (named) {
            parameter(params, "name", "path", "name of the " + t.kind(), true, flavor);
        }
        if (t.namespaced()) {
            parameter(params, "namespace", "path", "object name and auth scope, such as for teams and projects",
                    true, flavor);
        }
    }

    private static void parameter(ArrayNode params, String name, String in, String description, boolean required,
                                  Flavor flavor) {
        ObjectNode param = params.addObject();
        param.put("name", name);
        param.put("in", in);
        if (description != null) {
            param.put("description", description);
        }
        if (required) {
            param.put("required", true);
        }
        ObjectNode type = flavor == Flavor.V3 ? param.putObject("schema") : param;
        type.put("type", "string");
        type.put("uniqueItems", true);
    }

    private static final List<String> WRITE_PARAMETERS = List.of("dryRun", "fieldManager", "fieldValidation");

    /*
     * A PATCH lists no patch content types (v3: no requestBody; v2: consumes any): kubectl apply computes a
     * strategic merge patch from the v3 schema of a kind whose PATCH takes one, and these schemas carry no
     * x-kubernetes-patch-merge-key, so it would replace lists it should merge ("configured" where nothing
     * changed). Without them it falls back to its own compiled-in types, which carry the Go struct tags.
     */
    private static ObjectNode op(ResourceType t, String action, String ref, boolean writes, Flavor flavor) {
        ObjectNode op = Json.object();
        op.put("operationId", action + t.kind());
        ArrayNode params = op.putArray("parameters");
        if (writes && flavor == Flavor.V2) {
            ObjectNode body = params.addObject();
            body.put("name", "body");
            body.put("in", "body");
            body.put("required", true);
            body.putObject("schema").put("$ref", flavor.refPrefix + ref);
        }
        if (writes) {
            for (String p : WRITE_PARAMETERS) {
                parameter(params, p, "query", null, false, flavor);
            }
        }
        if (flavor == Flavor.V3) {
            ObjectNode content = op.putObject("responses").putObject("200").put("description", "OK")
                    .putObject("content").putObject("application/json");
            content.putObject("schema").put("$ref", flavor.refPrefix + ref);
        } else {
            op.putArray("consumes").add("*/*");
            ArrayNode produces = op.putArray("produces");
            produces.add("application/json").add("application/yaml").add("application/vnd.kubernetes.protobuf");
            op.putArray("schemes").add("https");
            ObjectNode responses = op.putObject("responses");
            responses.putObject("200").put("description", "OK").putObject("schema").put("$ref", flavor.refPrefix + ref);
            responses.putObject("401").put("description", "Unauthorized");
        }
        op.put("x-kubernetes-action", action);
        gvkOf(op.putObject("x-kubernetes-group-version-kind"), t);
        return op;
    }

    private static final String METADATA_DESCRIPTION = "Standard object's metadata. More info:"
            + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

    /**
     * Adds a custom resource's schema, as its CRD wrote it, under the name Kubernetes gives
     * it (the group reversed, then version and kind: {@code com.example.v1.Widget}), with
     * apiVersion, kind and a reference to ObjectMeta as kube-apiserver adds them; returns
     * its name.
     */
    private String customDefinition(ResourceType t, tools.jackson.databind.JsonNode raw, Flavor flavor,
                                    ObjectNode definitions) {
        List<String> parts = new java.util.ArrayList<>(List.of(t.group().split("\\.")));
        java.util.Collections.reverse(parts);
        String name = String.join(".", parts) + "." + t.version() + "." + t.kind();
        ObjectNode schema = raw.isObject() ? (ObjectNode) raw.deepCopy() : Json.object();
        ObjectNode props = Json.child(schema, "properties");
        props.putObject("apiVersion").put("type", "string").put("description", "APIVersion defines the versioned"
                + " schema of this representation of an object. Servers should convert recognized schemas to the"
                + " latest internal value, and may reject unrecognized values. More info:"
                + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources");
        props.putObject("kind").put("type", "string").put("description", "Kind is a string value representing the"
                + " REST resource this object represents. Servers may infer this from the endpoint the client submits"
                + " requests to. Cannot be updated. In CamelCase. More info:"
                + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds");
        String meta = definition(schemas.schemaOf(io.fabric8.kubernetes.api.model.ObjectMeta.class), flavor,
                definitions);
        ObjectNode ref = Json.object().put("$ref", flavor.refPrefix + meta);
        ObjectNode metadata = Json.object();
        if (flavor == Flavor.V3) {
            metadata.putArray("allOf").add(ref);
        } else {
            metadata.setAll(ref);
        }
        metadata.put("description", METADATA_DESCRIPTION);
        props.set("metadata", metadata);
        definitions.set(name, schema);
        return name;
    }

    /** Adds the schema (and everything it references) to the definitions; returns its name. */
    private String definition(Schema s, Flavor flavor, ObjectNode definitions) {
        String name = definitionName(s.typeName());
        if (!definitions.has(name)) {
            ObjectNode o = definitions.putObject(name);
            Schema.Rules own = schemas.typeRules(s.typeName());
            if (own.description() != null) {
                o.put("description", own.description());
            }
            o.put("type", "object");
            if (!own.required().isEmpty()) {
                own.required().forEach(o.putArray("required")::add);
            }
            ObjectNode props = o.putObject("properties");
            s.properties().forEach((field, child) -> props.set(field, inline(child, flavor, definitions)));
        }
        return name;
    }

    private ObjectNode inline(Schema s, Flavor flavor, ObjectNode definitions) {
        ObjectNode o = Json.object();
        Schema.Rules r = s.rules();
        switch (s.type()) {
            case OBJECT -> {
                ObjectNode ref = Json.object().put("$ref", flavor.refPrefix + definition(s, flavor, definitions));
                if (r.description() == null) {
                    return ref;
                }
                if (flavor == Flavor.V2) {
                    // Swagger 2.0 shows a description next to the reference
                    ref.put("description", r.description());
                    return ref;
                }
                // a described reference is wrapped, as Kubernetes' own v3 documents do, so both show
                o.putArray("allOf").add(ref);
            }
            case MAP -> {
                o.put("type", "object");
                o.set("additionalProperties", inline(s.items(), flavor, definitions));
            }
            case ARRAY -> {
                o.put("type", "array");
                o.set("items", inline(s.items(), flavor, definitions));
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

    private static final String MODEL = "io.fabric8.kubernetes.api.model.";
    /** The types of the core model package that Kubernetes keeps in apimachinery's meta/v1. */
    private static final Set<String> META = Set.of("ObjectMeta", "ListMeta", "LabelSelector",
            "LabelSelectorRequirement", "ManagedFieldsEntry", "OwnerReference", "FieldSelectorRequirement", "Status",
            "StatusDetails", "StatusCause", "DeleteOptions", "Preconditions", "Condition", "FieldsV1");

    /**
     * The name Kubernetes gives a type's schema, from the model class that carries it:
     * {@code io.k8s.api.<group>.<version>.<Kind>}, {@code io.k8s.api.core.v1.<Kind>} for the
     * core group, {@code io.k8s.apimachinery.pkg.apis.meta.v1.<Kind>} for object metadata
     * and its kin. A package without a version is the group's v1.
     */
    static String definitionName(String javaType) {
        if (!javaType.startsWith(MODEL)) {
            return javaType;
        }
        String[] parts = javaType.substring(MODEL.length()).split("\\.");
        String simple = parts[parts.length - 1];
        if (parts.length == 1) {
            return (META.contains(simple) ? "io.k8s.apimachinery.pkg.apis.meta.v1." : "io.k8s.api.core.v1.") + simple;
        }
        String version = parts.length > 2 && parts[1].matches("v\\d+((alpha|beta)\\d+)?") ? parts[1] : "v1";
        return "io.k8s.api." + parts[0] + "." + version + "." + simple;
    }
}

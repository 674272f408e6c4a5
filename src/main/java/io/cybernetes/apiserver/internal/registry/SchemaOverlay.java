package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * What the model classes do not say about their fields (descriptions, required fields,
 * bounds, enums, name formats), kept in {@code schema/overlay.yaml} by type name (the
 * model class's simple name): per type a description and required fields, per field the
 * rules that hold wherever the type is used.
 */
public final class SchemaOverlay {

    private final JsonNode root;

    public SchemaOverlay(String resource) {
        try (InputStream in = SchemaOverlay.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing " + resource + " on the class path");
            }
            root = Json.YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The name the overlay knows a model class by: its simple name, or (for names several API groups use,
     * such as RBAC's and flow control's Subject) the last segment of its package and its simple name.
     */
    public String nameOf(Class<?> cls) {
        String pkg = cls.getPackageName();
        String qualified = pkg.substring(pkg.lastIndexOf('.') + 1) + "." + cls.getSimpleName();
        return root.has(qualified) ? qualified : cls.getSimpleName();
    }

    /** The rules of a type as a whole: its description and required properties. */
    public Schema.Rules typeRules(String type) {
        JsonNode t = root.path(type);
        if (t.isMissingNode()) {
            return Schema.Rules.NONE;
        }
        return new Schema.Rules(text(t, "description"), Json.strings(t.path("required")), null, null, List.of(), null, null);
    }

    /** The rules of one field of a type. */
    public Schema.Rules fieldRules(String type, String field) {
        JsonNode f = root.path(type).path("fields").path(field);
        if (f.isMissingNode()) {
            return Schema.Rules.NONE;
        }
        if (f.isString()) {
            return new Schema.Rules(f.asString(), List.of(), null, null, List.of(), null, null);
        }
        return new Schema.Rules(text(f, "description"), List.of(), f.has("minimum") ? f.get("minimum").asLong() : null,
                f.has("maximum") ? f.get("maximum").asLong() : null, Json.strings(f.path("enum")), text(f, "format"),
                f.has("minItems") ? f.get("minItems").asInt() : null);
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asString() : null;
    }
}

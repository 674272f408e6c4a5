package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.cybernetes.api.ResourceType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Decodes an object against its kind's schema the way the Kubernetes apiserver's typed
 * decoding does: a value of the wrong type is a 400, unknown fields are dropped and
 * reported (Strict makes them a 400, Warn a warning, Ignore nothing).
 */
final class StrictDecoder {

    enum FieldValidation { STRICT, WARN, IGNORE }

    private StrictDecoder() {
    }

    /**
     * Prunes unknown fields in place; returns what field validation reports (unknown and
     * duplicate fields, worded as Kubernetes words them) unless it ignores them. Throws 400
     * on a type error or, in Strict, on any unknown or duplicate field.
     */
    static List<String> decode(ObjectNode object, Schema schema, ResourceType type, FieldValidation mode,
                               List<String> duplicateFields) {
        List<String> unknown = new ArrayList<>();
        List<String> typeErrors = new ArrayList<>();
        walk(object, schema, "", unknown, typeErrors);
        String prefix = type.kind() + " in version \"" + type.version() + "\" cannot be handled as a " + type.kind() + ": ";
        if (!typeErrors.isEmpty()) {
            throw ApiException.badRequest(prefix + String.join(", ", typeErrors));
        }
        if (mode == FieldValidation.IGNORE) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        unknown.forEach(u -> problems.add("unknown field " + GoStrings.quote(u)));
        duplicateFields.forEach(d -> problems.add("duplicate field " + GoStrings.quote(d)));
        if (mode == FieldValidation.STRICT && !problems.isEmpty()) {
            throw ApiException.badRequest(prefix + "strict decoding error: " + String.join(", ", problems));
        }
        return problems;
    }

    private static void walk(JsonNode node, Schema schema, String path, List<String> unknown, List<String> errors) {
        if (node == null || node.isNull()) {
            return;
        }
        switch (schema.type()) {
            case OBJECT -> {
                if (!node.isObject()) {
                    errors.add(mismatch(node, path, "object"));
                    return;
                }
                Iterator<Map.Entry<String, JsonNode>> it = ((ObjectNode) node).properties().iterator();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> e = it.next();
                    String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                    Schema child = schema.properties().get(e.getKey());
                    if (child == null) {
                        unknown.add(p);
                        it.remove();
                    } else {
                        walk(e.getValue(), child, p, unknown, errors);
                    }
                }
            }
            case MAP -> {
                if (!node.isObject()) {
                    errors.add(mismatch(node, path, "map"));
                    return;
                }
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    walk(e.getValue(), schema.items(), path + "." + e.getKey(), unknown, errors);
                }
            }
            case ARRAY -> {
                if (!node.isArray()) {
                    errors.add(mismatch(node, path, "array"));
                    return;
                }
                for (int i = 0; i < node.size(); i++) {
                    walk(node.get(i), schema.items(), path + "[" + i + "]", unknown, errors);
                }
            }
            case STRING -> {
                if (!node.isString()) {
                    errors.add(mismatch(node, path, "string"));
                }
            }
            case INTEGER -> {
                if (!node.isIntegralNumber() && !(node.isNumber() && node.asDouble() == Math.rint(node.asDouble()))) {
                    errors.add(mismatch(node, path, "integer"));
                }
            }
            case NUMBER -> {
                if (!node.isNumber()) {
                    errors.add(mismatch(node, path, "number"));
                }
            }
            case BOOLEAN -> {
                if (!node.isBoolean()) {
                    errors.add(mismatch(node, path, "boolean"));
                }
            }
            case INT_OR_STRING, QUANTITY -> {
                if (!node.isString() && !node.isNumber()) {
                    errors.add(mismatch(node, path, "string or number"));
                }
            }
            case FREE -> { }
        }
    }

    private static String mismatch(JsonNode node, String path, String expected) {
        String actual = node.isObject() ? "object" : node.isArray() ? "array" : node.isString() ? "string"
                : node.isBoolean() ? "bool" : "number";
        return "json: cannot unmarshal " + actual + " into field " + path + " of type " + expected;
    }
}

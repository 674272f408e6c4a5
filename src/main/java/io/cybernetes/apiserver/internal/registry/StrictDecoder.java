package io.cybernetes.apiserver.internal.registry;

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
public final class StrictDecoder {

    public enum FieldValidation { STRICT, WARN, IGNORE }

    private StrictDecoder() {
    }

    /**
     * Prunes unknown fields in place; returns what field validation reports (unknown and
     * duplicate fields, worded as Kubernetes words them) unless it ignores them. Throws 400
     * on a type error or, in Strict, on any unknown or duplicate field.
     */
    public static List<String> decode(ObjectNode object, Schema schema, ResourceType type, FieldValidation mode,
                               List<String> duplicateFields) {
        return decode(object, schema, type.kind(), type.version(), mode, duplicateFields);
    }

    /** As {@link #decode(ObjectNode, Schema, ResourceType, FieldValidation, List)}, for a body of any kind. */
    public static List<String> decode(ObjectNode object, Schema schema, String kind, String version, FieldValidation mode,
                               List<String> duplicateFields) {
        return report(kind, version, mode, unknownFields(object, schema, kind, version), duplicateFields);
    }

    /** Drops the fields the schema does not know; returns their paths. Throws 400 on a type error. */
    public static List<String> unknownFields(ObjectNode object, Schema schema, String kind, String version) {
        List<String> unknown = new ArrayList<>();
        List<String> typeErrors = new ArrayList<>();
        walk(object, schema, new Place("", "", simpleName(schema.typeName())), unknown, typeErrors);
        if (!typeErrors.isEmpty()) {
            // as Go's decoder, which reports the first value it could not take
            throw ApiException.badRequest(prefix(kind, version) + typeErrors.get(0));
        }
        return unknown;
    }

    /**
     * What field validation makes of the unknown and duplicate fields found: nothing
     * (Ignore), warnings (Warn), or a 400 naming them all (Strict).
     */
    public static List<String> report(String kind, String version, FieldValidation mode, List<String> unknown,
                               List<String> duplicateFields) {
        if (mode == FieldValidation.IGNORE) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        unknown.forEach(u -> problems.add("unknown field " + GoStrings.quote(u)));
        duplicateFields.forEach(d -> problems.add("duplicate field " + GoStrings.quote(d)));
        if (mode == FieldValidation.STRICT && !problems.isEmpty()) {
            throw ApiException.badRequest(prefix(kind, version) + "strict decoding error: " + String.join(", ", problems));
        }
        return problems;
    }

    private static String prefix(String kind, String version) {
        return kind + " in version \"" + version + "\" cannot be handled as a " + kind + ": ";
    }

    /**
     * Where a value is: its path as strict decoding reports unknown fields
     * ({@code spec.containers[0].name}), its path as Go names a struct field (without
     * indices or map keys: {@code spec.containers.name}) and the Go struct it is a field of.
     */
    private record Place(String path, String goPath, String struct) {

        Place field(String name, String parentStruct) {
            return new Place(path.isEmpty() ? name : path + "." + name, goPath.isEmpty() ? name : goPath + "." + name,
                    parentStruct);
        }

        Place element(String index) {
            return new Place(path + index, goPath, struct);
        }
    }

    private static void walk(JsonNode node, Schema schema, Place at, List<String> unknown, List<String> errors) {
        if (node == null || node.isNull()) {
            return;
        }
        switch (schema.type()) {
            case OBJECT -> {
                if (!node.isObject()) {
                    errors.add(mismatch(node, at, schema));
                    return;
                }
                String struct = simpleName(schema.typeName());
                Iterator<Map.Entry<String, JsonNode>> it = ((ObjectNode) node).properties().iterator();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> e = it.next();
                    Place child = at.field(e.getKey(), struct);
                    Schema childSchema = schema.properties().get(e.getKey());
                    if (childSchema == null) {
                        unknown.add(child.path());
                        it.remove();
                    } else {
                        walk(e.getValue(), childSchema, child, unknown, errors);
                    }
                }
            }
            case MAP -> {
                if (!node.isObject()) {
                    errors.add(mismatch(node, at, schema));
                    return;
                }
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    walk(e.getValue(), schema.items(), at.element("." + e.getKey()), unknown, errors);
                }
            }
            case ARRAY -> {
                if (!node.isArray()) {
                    errors.add(mismatch(node, at, schema));
                    return;
                }
                for (int i = 0; i < node.size(); i++) {
                    walk(node.get(i), schema.items(), at.element("[" + i + "]"), unknown, errors);
                }
            }
            case STRING -> {
                if (!node.isString()) {
                    errors.add(mismatch(node, at, schema));
                }
            }
            case BYTES -> {
                if (!node.isString()) {
                    errors.add(mismatch(node, at, schema));
                } else {
                    int bad = base64Error(node.asString());
                    if (bad >= 0) {
                        errors.add("illegal base64 data at input byte " + bad);
                    }
                }
            }
            case INT32 -> {
                if (!node.isIntegralNumber() || !node.canConvertToInt()) {
                    errors.add(mismatch(node, at, schema));
                }
            }
            case INTEGER -> {
                if (!node.isIntegralNumber() || !node.canConvertToLong()) {
                    errors.add(mismatch(node, at, schema));
                }
            }
            case NUMBER -> {
                if (!node.isNumber() || (node.isDouble() && !Double.isFinite(node.asDouble()))) {
                    errors.add(mismatch(node, at, schema));
                }
            }
            case BOOLEAN -> {
                if (!node.isBoolean()) {
                    errors.add(mismatch(node, at, schema));
                }
            }
            case INT_OR_STRING -> {
                if (!node.isString() && !(node.isIntegralNumber() && node.canConvertToInt())) {
                    errors.add(mismatch(node, at, schema));
                }
            }
            case QUANTITY -> {
                if (!node.isString() && !(node.isNumber() && !(node.isDouble() && !Double.isFinite(node.asDouble())))) {
                    errors.add(mismatch(node, at, schema));
                }
            }
            case FREE -> { }
        }
    }

    /** Go's words for a value it cannot decode into a field: {@code json: cannot unmarshal number 3000000000 into ...}. */
    private static String mismatch(JsonNode node, Place at, Schema expected) {
        String actual = node.isObject() ? "object" : node.isArray() ? "array" : node.isString() ? "string"
                : node.isBoolean() ? "bool" : "number " + numberText(node);
        String where = at.goPath().isEmpty() ? "Go value" : "Go struct field " + at.struct() + "." + at.goPath();
        return "json: cannot unmarshal " + actual + " into " + where + " of type " + goType(expected);
    }

    /** A number as Go prints the JSON text it read ({@code 1e400}, {@code 1.5}). */
    private static String numberText(JsonNode node) {
        return node.isFloatingPointNumber() ? node.numberValue().toString().replace("E+", "e").replace("E", "e")
                : node.asString();
    }

    /** The Go type a schema stands for, as {@code reflect.Type.String()} prints it. */
    private static String goType(Schema s) {
        return switch (s.type()) {
            case OBJECT -> "v1." + simpleName(s.typeName());
            case MAP -> "map[string]" + goType(s.items());
            case ARRAY -> "[]" + goType(s.items());
            case STRING -> "string";
            case BYTES -> "[]uint8";
            case INT32 -> "int32";
            case INTEGER -> "int64";
            case NUMBER -> "float64";
            case BOOLEAN -> "bool";
            case INT_OR_STRING -> "intstr.IntOrString";
            case QUANTITY -> "resource.Quantity";
            case FREE -> "interface {}";
        };
    }

    /**
     * Where Go's standard base64 decoding (as JSON's for {@code []byte}) finds the text
     * bad, or -1 when it is good: padded, in the standard alphabet, newlines ignored.
     */
    public static int base64Error(String text) {
        String s = text.replace("\r", "").replace("\n", "");
        int padding = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '+' || c == '/';
            if (c == '=') {
                padding++;
                if (padding > 2 || i % 4 < 2) {
                    return i;
                }
            } else if (!alphabet || padding > 0) {
                return i;
            }
        }
        return s.length() % 4 == 0 ? -1 : s.length() - s.length() % 4;
    }

    private static String simpleName(String typeName) {
        return typeName == null ? "" : typeName.substring(typeName.lastIndexOf('.') + 1);
    }
}

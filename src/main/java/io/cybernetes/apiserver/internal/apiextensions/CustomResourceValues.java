package io.cybernetes.apiserver.internal.apiextensions;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the server does to a custom resource with its structural schema, in the order
 * apiextensions-apiserver does it: prunes the fields the schema does not know (and nulls
 * where the schema allows none), fills in defaults, then validates the values against
 * the schema's constraints, with one cause per field worded as Kubernetes words it
 * ({@code spec.replicas: Invalid value: -1: spec.replicas in body should be greater than
 * or equal to 0}). The root's {@code apiVersion}, {@code kind} and {@code metadata} are
 * the server's own and left alone; so are those of embedded resources.
 */
public final class CustomResourceValues {

    private static final Set<String> TYPE_META = Set.of("apiVersion", "kind", "metadata");

    private CustomResourceValues() {
    }

    /** Drops unknown fields in place; returns their paths ({@code spec.foo}, {@code spec.items[0].bar}). */
    public static List<String> prune(ObjectNode object, StructuralSchema schema) {
        List<String> unknown = new ArrayList<>();
        pruneObject(object, schema, "", true, unknown);
        return unknown;
    }

    private static void prune(JsonNode value, StructuralSchema schema, String path, List<String> unknown) {
        if (value instanceof ObjectNode o) {
            pruneObject(o, schema, path, schema.embeddedResource, unknown);
        } else if (value instanceof ArrayNode a && schema.items != null) {
            for (int i = 0; i < a.size(); i++) {
                prune(a.get(i), schema.items, path + "[" + i + "]", unknown);
            }
        }
    }

    private static void pruneObject(ObjectNode o, StructuralSchema schema, String path, boolean resource,
                                    List<String> unknown) {
        Iterator<Map.Entry<String, JsonNode>> it = o.properties().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            if (resource && TYPE_META.contains(key)) {
                continue;
            }
            String childPath = path.isEmpty() ? key : path + "." + key;
            StructuralSchema child = schema.field(key);
            if (child == null) {
                if (!schema.preserveUnknownFields && !schema.anyAdditional) {
                    unknown.add(childPath);
                    it.remove();
                }
                continue;
            }
            if (e.getValue().isNull() && !child.nullable && schema.properties.containsKey(key)) {
                it.remove(); // a null where none is allowed is dropped, for a default to take its place
                continue;
            }
            prune(e.getValue(), child, childPath, unknown);
        }
    }

    /** Fills in the schema's defaults where a field is absent, depth first. */
    public static void applyDefaults(JsonNode value, StructuralSchema schema) {
        if (value instanceof ObjectNode o) {
            for (Map.Entry<String, StructuralSchema> p : schema.properties.entrySet()) {
                JsonNode d = p.getValue().defaultValue;
                if (d != null && !o.has(p.getKey())) {
                    o.set(p.getKey(), d.deepCopy());
                }
            }
            for (Map.Entry<String, JsonNode> e : o.properties()) {
                StructuralSchema child = schema.field(e.getKey());
                if (child != null) {
                    applyDefaults(e.getValue(), child);
                }
            }
        } else if (value instanceof ArrayNode a && schema.items != null) {
            a.forEach(item -> applyDefaults(item, schema.items));
        }
    }

    /** Whether a default of the schema is missing from the value (so applying them would change it). */
    public static boolean lacksDefaults(JsonNode value, StructuralSchema schema) {
        if (value instanceof ObjectNode o) {
            for (Map.Entry<String, StructuralSchema> p : schema.properties.entrySet()) {
                if (p.getValue().defaultValue != null && !o.has(p.getKey())) {
                    return true;
                }
            }
            for (Map.Entry<String, JsonNode> e : o.properties()) {
                StructuralSchema child = schema.field(e.getKey());
                if (child != null && lacksDefaults(e.getValue(), child)) {
                    return true;
                }
            }
        } else if (value instanceof ArrayNode a && schema.items != null) {
            for (JsonNode item : a) {
                if (lacksDefaults(item, schema.items)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Validates a pruned and defaulted object; adds one cause per violation. */
    public static void validate(ObjectNode object, StructuralSchema schema, List<StatusCause> causes) {
        validateObject(object, schema, "", true, causes);
    }

    private static void validate(JsonNode value, StructuralSchema s, String path, List<StatusCause> causes) {
        if (value.isNull()) {
            if (!s.nullable && s.type != null && !s.type.isEmpty()) {
                causes.add(typeError(path, value, s.type));
            }
            return;
        }
        if (s.intOrString) {
            if (!value.isString() && !value.isIntegralNumber()) {
                causes.add(typeError(path, value, "integer or string"));
                return;
            }
        } else if (s.type != null && !hasType(value, s.type)) {
            causes.add(typeError(path, value, s.type));
            return;
        }
        if (!s.enumValues.isEmpty() && s.enumValues.stream().noneMatch(v -> sameValue(v, value))) {
            causes.add(ApiException.cause(path, "FieldValueNotSupported", "Unsupported value: " + goValue(value)
                    + ": supported values: " + s.enumValues.stream()
                    .map(v -> GoStrings.quote(v.isString() ? v.asString() : v.toString()))
                    .collect(Collectors.joining(", "))));
        }
        if (value.isString()) {
            validateString(value.asString(), s, path, causes);
        } else if (value.isNumber()) {
            validateNumber(value, s, path, causes);
        } else if (value instanceof ArrayNode a) {
            validateArray(a, s, path, causes);
        } else if (value instanceof ObjectNode o) {
            validateObject(o, s, path, s.embeddedResource, causes);
        }
    }

    private static void validateObject(ObjectNode o, StructuralSchema s, String path, boolean resource,
                                       List<StatusCause> causes) {
        for (String req : s.required) {
            if (!o.has(req) && !(resource && TYPE_META.contains(req))) {
                causes.add(ApiException.cause(join(path, req), "FieldValueRequired", "Required value"));
            }
        }
        if (s.maxProperties != null && o.size() > s.maxProperties) {
            causes.add(ApiException.cause(path, "FieldValueTooMany", "Too many: " + o.size() + ": must have at most "
                    + s.maxProperties + " items"));
        }
        if (s.minProperties != null && o.size() < s.minProperties) {
            causes.add(invalid(path, o.size(), "should have at least " + s.minProperties + " properties"));
        }
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            if (resource && TYPE_META.contains(e.getKey())) {
                continue;
            }
            StructuralSchema child = s.field(e.getKey());
            if (child != null) {
                String childPath = s.properties.containsKey(e.getKey()) ? join(path, e.getKey())
                        : path + "[" + e.getKey() + "]";
                validate(e.getValue(), child, childPath, causes);
            }
        }
    }

    private static void validateString(String v, StructuralSchema s, String path, List<StatusCause> causes) {
        int length = v.codePointCount(0, v.length());
        if (s.maxLength != null && length > s.maxLength) {
            causes.add(ApiException.cause(path, "FieldValueTooLong", "Too long: may not be more than " + s.maxLength
                    + " bytes"));
        }
        if (s.minLength != null && length < s.minLength) {
            causes.add(invalid(path, v, "should be at least " + s.minLength + " chars long"));
        }
        if (s.pattern != null && !s.pattern.matcher(v).find()) {
            causes.add(invalid(path, v, "should match '" + s.patternText + "'"));
        }
        if (s.format != null && !Formats.valid(s.format, v)) {
            causes.add(ApiException.cause(path, "FieldValueTypeInvalid", "Invalid value: " + GoStrings.quote(v) + ": "
                    + inBody(path) + " must be of type " + s.format + ": " + GoStrings.quote(v)));
        }
    }

    private static void validateNumber(JsonNode value, StructuralSchema s, String path, List<StatusCause> causes) {
        BigDecimal v = value.decimalValue();
        if (s.maximum != null) {
            int c = v.compareTo(BigDecimal.valueOf(s.maximum));
            if (s.exclusiveMaximum ? c >= 0 : c > 0) {
                causes.add(invalid(path, value, "should be less than " + (s.exclusiveMaximum ? "" : "or equal to ")
                        + number(s.maximum)));
            }
        }
        if (s.minimum != null) {
            int c = v.compareTo(BigDecimal.valueOf(s.minimum));
            if (s.exclusiveMinimum ? c <= 0 : c < 0) {
                causes.add(invalid(path, value, "should be greater than " + (s.exclusiveMinimum ? "" : "or equal to ")
                        + number(s.minimum)));
            }
        }
        if (s.multipleOf != null && s.multipleOf > 0
                && v.remainder(BigDecimal.valueOf(s.multipleOf)).compareTo(BigDecimal.ZERO) != 0) {
            causes.add(invalid(path, value, "should be a multiple of " + number(s.multipleOf)));
        }
    }

    private static void validateArray(ArrayNode a, StructuralSchema s, String path, List<StatusCause> causes) {
        if (s.maxItems != null && a.size() > s.maxItems) {
            causes.add(ApiException.cause(path, "FieldValueTooMany", "Too many: " + a.size() + ": must have at most "
                    + s.maxItems + " items"));
        }
        if (s.minItems != null && a.size() < s.minItems) {
            causes.add(invalid(path, a.size(), "should have at least " + s.minItems + " items"));
        }
        if ("set".equals(s.listType)) {
            Set<JsonNode> seen = new HashSet<>();
            Set<JsonNode> reported = new HashSet<>();
            for (int i = 0; i < a.size(); i++) {
                if (!seen.add(a.get(i)) && reported.add(a.get(i))) {
                    causes.add(ApiException.cause(path + "[" + i + "]", "FieldValueDuplicate", "Duplicate value: "
                            + goValue(a.get(i))));
                }
            }
        } else if ("map".equals(s.listType) && !s.listMapKeys.isEmpty()) {
            Set<List<JsonNode>> seen = new HashSet<>();
            for (int i = 0; i < a.size(); i++) {
                List<JsonNode> key = new ArrayList<>();
                for (String k : s.listMapKeys) {
                    JsonNode kv = a.get(i).get(k);
                    if (kv == null && s.items != null && s.items.property(k) != null) {
                        kv = s.items.property(k).defaultValue;
                    }
                    key.add(kv);
                }
                if (!seen.add(key)) {
                    causes.add(ApiException.cause(path + "[" + i + "]", "FieldValueDuplicate", "Duplicate value: "
                            + keyValue(s.listMapKeys, key)));
                }
            }
        }
        if (s.items != null) {
            for (int i = 0; i < a.size(); i++) {
                validate(a.get(i), s.items, path + "[" + i + "]", causes);
            }
        }
    }

    /** Whether the JSON value is of the OpenAPI type. */
    static boolean hasType(JsonNode v, String type) {
        return switch (type) {
            case "object" -> v.isObject();
            case "array" -> v.isArray();
            case "string" -> v.isString();
            case "integer" -> v.isIntegralNumber();
            case "number" -> v.isNumber();
            case "boolean" -> v.isBoolean();
            default -> true;
        };
    }

    /** The JSON type of a value as the validator names it in its messages. */
    static String typeName(JsonNode v) {
        if (v.isNull()) {
            return "null";
        }
        if (v.isObject()) {
            return "object";
        }
        if (v.isArray()) {
            return "array";
        }
        if (v.isString()) {
            return "string";
        }
        if (v.isBoolean()) {
            return "boolean";
        }
        return v.isIntegralNumber() ? "integer" : "number";
    }

    private static StatusCause typeError(String path, JsonNode value, String type) {
        String actual = typeName(value);
        return ApiException.cause(path, "FieldValueTypeInvalid", "Invalid value: " + GoStrings.quote(actual) + ": "
                + inBody(path) + " must be of type " + type + ": " + GoStrings.quote(actual));
    }

    private static StatusCause invalid(String path, Object value, String should) {
        String shown = value instanceof JsonNode n ? goValue(n) : value instanceof Integer ? value.toString()
                : GoStrings.quote(value.toString());
        return ApiException.cause(path, "FieldValueInvalid", "Invalid value: " + shown + ": " + inBody(path) + " "
                + should);
    }

    private static String inBody(String path) {
        return (path.isEmpty() ? "body" : path) + " in body";
    }

    /** Equal as JSON values: numbers by value (1 and 1.0 alike). */
    private static boolean sameValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }

    /** A value as Go's {@code %#v} shows it in field errors: strings quoted, numbers and booleans bare. */
    static String goValue(JsonNode v) {
        if (v.isString()) {
            return GoStrings.quote(v.asString());
        }
        if (v.isNumber() || v.isBoolean() || v.isNull()) {
            return v.isNull() ? "null" : v.asString();
        }
        return v.toString();
    }

    private static String keyValue(List<String> keys, List<JsonNode> values) {
        StringBuilder b = new StringBuilder("map[string]interface {}{");
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(GoStrings.quote(keys.get(i))).append(':').append(values.get(i) == null ? "interface {}(nil)"
                    : goValue(values.get(i)));
        }
        return b.append('}').toString();
    }

    private static String number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    /** The string formats the validator checks, as kube-openapi's format registry does. */
    static final class Formats {

        private static final Pattern UUID = Pattern.compile(
                "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$");
        private static final Pattern DATE = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}$");
        private static final Pattern HOSTNAME = Pattern.compile(
                "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
        /** Go's time.ParseDuration: signed decimal numbers, each with a unit. */
        private static final Pattern DURATION = Pattern.compile("^[-+]?(0|(\\d+(\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|ms|s|m|h))+$");
        private static final Pattern BYTE = Pattern.compile("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$");

        private Formats() {
        }

        static boolean valid(String format, String v) {
            return switch (format) {
                case "uuid" -> UUID.matcher(v).matches();
                case "date" -> DATE.matcher(v).matches() && parses(() -> java.time.LocalDate.parse(v));
                case "date-time" -> parses(() -> java.time.OffsetDateTime.parse(v));
                case "byte" -> BYTE.matcher(v).matches();
                case "hostname" -> v.length() <= 253 && HOSTNAME.matcher(v).matches();
                case "ipv4" -> ipv4(v);
                case "ipv6" -> v.contains(":") && v.matches("[0-9A-Fa-f:.]+") && parses(() -> java.net.InetAddress.getByName(v));
                case "cidr" -> cidr(v);
                case "duration" -> DURATION.matcher(v).matches();
                default -> true;
            };
        }

        private static boolean ipv4(String v) {
            String[] parts = v.split("\\.", -1);
            if (parts.length != 4) {
                return false;
            }
            for (String p : parts) {
                if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > 255 || p.length() > 1 && p.startsWith("0")) {
                    return false;
                }
            }
            return true;
        }

        private static boolean cidr(String v) {
            int slash = v.indexOf('/');
            if (slash < 0 || !v.substring(slash + 1).matches("\\d{1,3}")) {
                return false;
            }
            String ip = v.substring(0, slash);
            int bits = Integer.parseInt(v.substring(slash + 1));
            return ipv4(ip) ? bits <= 32 : ip.contains(":") && bits <= 128 && valid("ipv6", ip);
        }

        private static boolean parses(java.util.concurrent.Callable<?> r) {
            try {
                r.call();
                return true;
            } catch (Exception e) {
                return false;
            }
        }
    }
}

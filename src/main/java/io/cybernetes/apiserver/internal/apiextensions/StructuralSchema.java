package io.cybernetes.apiserver.internal.apiextensions;

import io.cybernetes.apiserver.internal.fieldmanager.FieldType;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A structural schema of a custom resource, read from a CustomResourceDefinition's
 * {@code openAPIV3Schema}: every node says its type, object nodes their properties or the
 * schema of their values ({@code additionalProperties}), arrays their items; beside the
 * type, the value constraints (formats, enums, patterns, bounds), the Kubernetes
 * extensions ({@code x-kubernetes-*}) and the defaults. What the server does with it —
 * pruning, defaulting, validation — is in {@link CustomResourceValues}; what makes a
 * schema structural (and a CRD valid) in {@link CrdValidation}.
 */
public final class StructuralSchema {

    final String type;
    final String format;
    final String description;
    final Map<String, StructuralSchema> properties;
    final StructuralSchema items;
    /** The schema of the values of a map ({@code additionalProperties} as a schema), or null. */
    final StructuralSchema additionalProperties;
    /** {@code additionalProperties: true}: any value under any key. */
    final boolean anyAdditional;
    final List<String> required;
    final List<JsonNode> enumValues;
    final String patternText;
    final Pattern pattern;
    final Double minimum;
    final Double maximum;
    final boolean exclusiveMinimum;
    final boolean exclusiveMaximum;
    final Double multipleOf;
    final Long minLength;
    final Long maxLength;
    final Long minItems;
    final Long maxItems;
    final Long minProperties;
    final Long maxProperties;
    final boolean uniqueItems;
    final boolean nullable;
    final boolean intOrString;
    final boolean preserveUnknownFields;
    final boolean embeddedResource;
    final String listType;
    final List<String> listMapKeys;
    final String mapType;
    final JsonNode defaultValue;
    final List<ValidationRule> rules;
    /** The schema as written, for publishing in OpenAPI. */
    final JsonNode raw;

    /** One {@code x-kubernetes-validations} entry: a CEL rule and how its failure is told. */
    public record ValidationRule(String rule, String message, String messageExpression, String fieldPath, String reason,
                                 boolean optionalOldSelf) {
    }

    private StructuralSchema(JsonNode n) {
        raw = n;
        type = text(n, "type");
        format = text(n, "format");
        description = text(n, "description");
        Map<String, StructuralSchema> props = new LinkedHashMap<>();
        n.path("properties").properties().forEach(e -> props.put(e.getKey(), new StructuralSchema(e.getValue())));
        properties = props;
        JsonNode it = n.get("items");
        items = it != null && it.isObject() ? new StructuralSchema(it) : null;
        JsonNode ap = n.get("additionalProperties");
        additionalProperties = ap != null && ap.isObject() ? new StructuralSchema(ap) : null;
        anyAdditional = ap != null && ap.isBoolean() && ap.asBoolean();
        required = strings(n.get("required"));
        List<JsonNode> en = new ArrayList<>();
        n.path("enum").forEach(en::add);
        enumValues = en;
        patternText = text(n, "pattern");
        Pattern p = null;
        if (patternText != null) {
            try {
                p = Pattern.compile(patternText);
            } catch (PatternSyntaxException e) {
                p = null; // refused when the CRD is validated; never reached for a served kind
            }
        }
        pattern = p;
        minimum = number(n, "minimum");
        maximum = number(n, "maximum");
        exclusiveMinimum = n.path("exclusiveMinimum").asBoolean(false);
        exclusiveMaximum = n.path("exclusiveMaximum").asBoolean(false);
        multipleOf = number(n, "multipleOf");
        minLength = integer(n, "minLength");
        maxLength = integer(n, "maxLength");
        minItems = integer(n, "minItems");
        maxItems = integer(n, "maxItems");
        minProperties = integer(n, "minProperties");
        maxProperties = integer(n, "maxProperties");
        uniqueItems = n.path("uniqueItems").asBoolean(false);
        nullable = n.path("nullable").asBoolean(false);
        intOrString = n.path("x-kubernetes-int-or-string").asBoolean(false);
        preserveUnknownFields = n.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        embeddedResource = n.path("x-kubernetes-embedded-resource").asBoolean(false);
        listType = text(n, "x-kubernetes-list-type");
        listMapKeys = strings(n.get("x-kubernetes-list-map-keys"));
        mapType = text(n, "x-kubernetes-map-type");
        defaultValue = n.get("default");
        List<ValidationRule> rs = new ArrayList<>();
        for (JsonNode r : n.path("x-kubernetes-validations")) {
            rs.add(new ValidationRule(text(r, "rule"), text(r, "message"), text(r, "messageExpression"),
                    text(r, "fieldPath"), text(r, "reason"), r.path("optionalOldSelf").asBoolean(false)));
        }
        rules = rs;
    }

    /** The schema of an {@code openAPIV3Schema}. */
    public static StructuralSchema of(JsonNode openApiV3Schema) {
        return new StructuralSchema(openApiV3Schema);
    }

    /** The schema as the CRD wrote it. */
    public JsonNode raw() {
        return raw;
    }

    /** The schema of a property of this object, or null. */
    public StructuralSchema property(String name) {
        return properties.get(name);
    }

    /** The property's schema, or that of the map's values, or null when the object has no such field. */
    StructuralSchema field(String name) {
        StructuralSchema s = properties.get(name);
        return s != null ? s : additionalProperties;
    }

    /**
     * The node as field management sees it: an object with properties a struct (atomic when
     * {@code x-kubernetes-map-type: atomic}), with additionalProperties or preserving
     * unknown fields a granular map, lists by {@code x-kubernetes-list-type} (atomic unless
     * said), everything else a scalar.
     */
    public FieldType fieldType() {
        StructuralSchema self = this;
        return new FieldType() {
            @Override
            public Kind kind() {
                if ("array".equals(type)) {
                    return "set".equals(listType) ? Kind.SET : "map".equals(listType) && !listMapKeys.isEmpty()
                            ? Kind.KEYED_LIST : Kind.ATOMIC;
                }
                if ("object".equals(type) || preserveUnknownFields && type == null) {
                    if ("atomic".equals(mapType)) {
                        return Kind.ATOMIC;
                    }
                    if (!properties.isEmpty()) {
                        return Kind.STRUCT;
                    }
                    return additionalProperties != null ? Kind.MAP : Kind.DEDUCED;
                }
                return Kind.SCALAR;
            }

            @Override
            public FieldType field(String name) {
                StructuralSchema child = self.field(name);
                if (child != null) {
                    return child.fieldType();
                }
                return preserveUnknownFields || anyAdditional ? FieldType.DEDUCED : null;
            }

            @Override
            public FieldType items() {
                return items == null ? FieldType.DEDUCED : items.fieldType();
            }

            @Override
            public List<String> keys() {
                return listMapKeys;
            }

            @Override
            public JsonNode defaultValue() {
                return defaultValue;
            }
        };
    }

    /** Whether anything in the schema carries CEL rules. */
    boolean hasRules() {
        if (!rules.isEmpty()) {
            return true;
        }
        for (StructuralSchema p : properties.values()) {
            if (p.hasRules()) {
                return true;
            }
        }
        return items != null && items.hasRules() || additionalProperties != null && additionalProperties.hasRules();
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isString() ? v.asString() : null;
    }

    private static Double number(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }

    private static Long integer(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isNumber() ? v.asLong() : null;
    }

    private static List<String> strings(JsonNode arr) {
        List<String> out = new ArrayList<>();
        if (arr != null && arr.isArray()) {
            arr.forEach(x -> out.add(x.asString()));
        }
        return out;
    }
}

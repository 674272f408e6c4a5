package io.cybernetes.apiserver.internal.registry;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.cybernetes.api.ResourceType;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Schemas of the served kinds, derived once from the fabric8 model classes (which are
 * generated from Kubernetes' own OpenAPI, field for field), with the descriptions and
 * rules of {@link SchemaOverlay} laid over them.
 */
public final class SchemaRegistry {

    private final Map<Class<?>, Schema> byClass = new ConcurrentHashMap<>();
    /** The OpenAPI schemas of custom resources, as their CRDs write them, by group, version and resource. */
    private final Map<String, tools.jackson.databind.JsonNode> custom = new ConcurrentHashMap<>();
    private final SchemaOverlay overlay = new SchemaOverlay("schema/overlay.yaml");

    /** A type's own description and required properties, by type name (for publishing the type once). */
    public Schema.Rules typeRules(String typeName) {
        try {
            return overlay.typeRules(overlay.nameOf(Class.forName(typeName)));
        } catch (ClassNotFoundException e) {
            return Schema.Rules.NONE;
        }
    }

    public Schema of(ResourceType type) {
        return schemaOf(type.modelClass());
    }

    /** Publishes a custom resource's schema (its CRD's openAPIV3Schema) from now on. */
    public void putCustom(ResourceType type, tools.jackson.databind.JsonNode openApiV3Schema) {
        custom.put(key(type), openApiV3Schema);
    }

    public void removeCustom(ResourceType type) {
        custom.remove(key(type));
    }

    /** The schema of a custom resource as its CRD wrote it, or null for a built-in kind. */
    public tools.jackson.databind.JsonNode custom(ResourceType type) {
        return custom.get(key(type));
    }

    private static String key(ResourceType type) {
        return type.group() + "/" + type.version() + "/" + type.plural();
    }

    /** The schema derived from a model class. */
    public Schema schemaOf(Class<?> cls) {
        Schema s = byClass.get(cls);
        if (s != null) {
            return s;
        }
        // Recursive types (JSONSchemaProps and the like) meet themselves: a placeholder breaks the cycle.
        Map<String, Schema> props = new LinkedHashMap<>();
        String simple = cls.getSimpleName();
        String known = overlay.nameOf(cls);
        Schema placeholder = new Schema(Schema.Type.OBJECT, cls.getName(), props, null, overlay.typeRules(known));
        byClass.put(cls, placeholder);
        Map<String, Schema> found = new HashMap<>();
        for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.isAnnotationPresent(JsonIgnore.class)) {
                    continue;
                }
                JsonProperty jp = f.getAnnotation(JsonProperty.class);
                if (jp == null) {
                    continue;
                }
                String name = jp.value().isEmpty() ? f.getName() : jp.value();
                Schema.Rules rules = overlay.fieldRules(known, name);
                Schema child = BYTE_FIELDS.contains(simple + "." + name) ? bytes(of(f.getGenericType()))
                        : of(f.getGenericType());
                found.putIfAbsent(name, rules.isEmpty() ? child : child.withRules(atUse(child.rules(), rules)));
            }
        }
        if (found.isEmpty()) {
            Schema free = Schema.scalar(Schema.Type.FREE);
            byClass.put(cls, free);
            return free;
        }
        found.keySet().stream().sorted().forEach(k -> props.put(k, found.get(k)));
        return placeholder;
    }

    /** Go {@code []byte} fields, which the fabric8 models hold as strings: they must be base64. */
    private static final java.util.Set<String> BYTE_FIELDS = java.util.Set.of("Secret.data", "ConfigMap.binaryData",
            "WebhookClientConfig.caBundle");

    /** The schema with its strings (or a map's string values) as base64 bytes. */
    private static Schema bytes(Schema s) {
        return s.type() == Schema.Type.MAP ? new Schema(Schema.Type.MAP, null, Map.of(),
                Schema.scalar(Schema.Type.BYTES)) : Schema.scalar(Schema.Type.BYTES);
    }

    /** A field's rules where it is used: its own, on top of its type's description and required properties. */
    private static Schema.Rules atUse(Schema.Rules type, Schema.Rules field) {
        return new Schema.Rules(field.description() != null ? field.description() : type.description(),
                type.required(), field.minimum(), field.maximum(), field.enumValues(), field.format(), field.minItems());
    }

    private Schema of(Type t) {
        if (t instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (java.util.List.class.isAssignableFrom(raw)) {
                return new Schema(Schema.Type.ARRAY, null, Map.of(), of(args[0]));
            }
            if (Map.class.isAssignableFrom(raw)) {
                return new Schema(Schema.Type.MAP, null, Map.of(), of(args[1]));
            }
            return Schema.scalar(Schema.Type.FREE);
        }
        if (!(t instanceof Class<?> c)) {
            return Schema.scalar(Schema.Type.FREE);
        }
        // MicroTime is a string on the wire (RFC 3339 with microseconds), whatever fabric8 makes of it
        if (c == String.class || c == io.fabric8.kubernetes.api.model.MicroTime.class) {
            return Schema.scalar(Schema.Type.STRING);
        }
        // the fabric8 models keep Go's widths: Integer for int32, Long for int64
        if (c == Integer.class || c == int.class || c == Short.class) {
            return Schema.scalar(Schema.Type.INT32);
        }
        if (c == Long.class || c == long.class) {
            return Schema.scalar(Schema.Type.INTEGER);
        }
        if (c == Double.class || c == Float.class || c == double.class || c == java.math.BigDecimal.class) {
            return Schema.scalar(Schema.Type.NUMBER);
        }
        if (c == Boolean.class || c == boolean.class) {
            return Schema.scalar(Schema.Type.BOOLEAN);
        }
        if (c == IntOrString.class) {
            return Schema.scalar(Schema.Type.INT_OR_STRING);
        }
        if (c == Quantity.class) {
            return Schema.scalar(Schema.Type.QUANTITY);
        }
        // JSONSchemaPropsOrBool and its kin: a schema or a bool (or array), decoded by hand in Go
        if (c == Object.class || c.isInterface() || !c.getPackageName().startsWith("io.fabric8")
                || c.getSimpleName().startsWith("JSONSchemaPropsOr")) {
            return Schema.scalar(Schema.Type.FREE);
        }
        return schemaOf(c);
    }
}

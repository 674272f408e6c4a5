package io.cybernetes.apiserver.internal.registry;

import java.util.List;
import java.util.Map;

/**
 * The schema of a field, enough to decode strictly (unknown fields, wrong types), to
 * validate (required fields, bounds, enums, formats) and to publish OpenAPI: a type, the
 * properties of an object, the item schema of an array or the value schema of a map,
 * and the rules and description that hold where the field is used. {@code FREE}
 * accepts anything.
 */
public record Schema(Type type, String typeName, Map<String, Schema> properties, Schema items, Rules rules) {

    /**
     * {@code INTEGER} is Go's int64, {@code INT32} its int32: a value beyond its range is
     * refused, as Go refuses it. {@code BYTES} is Go's {@code []byte}: a base64 string.
     */
    public enum Type { OBJECT, MAP, ARRAY, STRING, BYTES, INT32, INTEGER, NUMBER, BOOLEAN, INT_OR_STRING, QUANTITY, FREE }

    /**
     * What a value must satisfy beyond its type, and what it means.
     *
     * @param description shown by {@code kubectl explain}
     * @param required    properties an object must have
     * @param minimum     smallest allowed number
     * @param maximum     largest allowed number
     * @param enumValues  the allowed strings
     * @param format      {@code dns-label}, {@code dns-subdomain} (names), or null
     * @param minItems    fewest items of an array
     */
    public record Rules(String description, List<String> required, Long minimum, Long maximum, List<String> enumValues,
                 String format, Integer minItems) {

        static final Rules NONE = new Rules(null, List.of(), null, null, List.of(), null, null);

        boolean isEmpty() {
            return equals(NONE);
        }
    }

    public Schema(Type type, String typeName, Map<String, Schema> properties, Schema items) {
        this(type, typeName, properties, items, Rules.NONE);
    }

    public static Schema scalar(Type type) {
        return new Schema(type, null, Map.of(), null);
    }

    public Schema withRules(Rules r) {
        return new Schema(type, typeName, properties, items, r);
    }
}

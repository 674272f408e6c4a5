package io.cybernetes.apiserver.internal;

import java.util.Map;

/**
 * The structural schema of a field, enough to decode strictly (unknown fields, wrong
 * types) and to publish OpenAPI: a type, the properties of an object, the item schema
 * of an array or the value schema of a map. {@code FREE} accepts anything.
 */
record Schema(Type type, String typeName, Map<String, Schema> properties, Schema items) {

    enum Type { OBJECT, MAP, ARRAY, STRING, INTEGER, NUMBER, BOOLEAN, INT_OR_STRING, QUANTITY, FREE }

    static Schema scalar(Type type) {
        return new Schema(type, null, Map.of(), null);
    }
}

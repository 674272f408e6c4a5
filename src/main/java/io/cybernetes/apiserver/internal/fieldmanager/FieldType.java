package io.cybernetes.apiserver.internal.fieldmanager;

import java.util.List;

/**
 * What field management needs of a schema node, as structured-merge-diff's schema says it:
 * a struct (named fields), a granular map (any keys, one element type), a list that is
 * atomic, a set or a map keyed by some of its items' fields, a scalar, or a deduced value
 * (preserve-unknown-fields: maps granular, lists atomic).
 */
public interface FieldType {

    enum Kind { STRUCT, MAP, ATOMIC, SET, KEYED_LIST, SCALAR, DEDUCED }

    Kind kind();

    /** A struct's field or a map's element; null when a struct has no such field. */
    FieldType field(String name);

    /** A list's items. */
    FieldType items();

    /** A keyed list's key fields. */
    List<String> keys();

    /** The value the schema defaults this field to (null: none); a keyed list's items are keyed by it. */
    default tools.jackson.databind.JsonNode defaultValue() {
        return null;
    }

    /** What anything unknown is: maps granular, lists atomic. */
    FieldType DEDUCED = new FieldType() {
        @Override
        public Kind kind() {
            return Kind.DEDUCED;
        }

        @Override
        public FieldType field(String name) {
            return this;
        }

        @Override
        public FieldType items() {
            return this;
        }

        @Override
        public List<String> keys() {
            return List.of();
        }
    };
}

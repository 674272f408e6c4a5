package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.fieldmanager.FieldType;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * How a kind's schema treats a written object: decoding (type errors, unknown fields
 * dropped and reported as field validation asks), the server's normalising (Go's empty
 * structs for built-ins, the schema's defaults for custom resources) and validation
 * against the schema. A built-in kind's schema is its Go types ({@link TypedSchema});
 * a custom resource's is its CRD's structural schema.
 */
public interface KindSchema {

    /**
     * Decodes a written body in place; returns the field-validation warnings (unknown or
     * duplicate fields) unless they are ignored. Throws 400 for a value its field cannot
     * hold, or, under Strict, for any unknown or duplicate field.
     */
    List<String> decode(ResourceType type, ObjectNode body, StrictDecoder.FieldValidation mode,
                        List<String> duplicateFields);

    /** Fills in what the server fills in before validation. */
    void normalize(ObjectNode body);

    /**
     * After mutating admission: what a webhook added is pruned and defaulted as the
     * client's own fields were (custom resources; a built-in's types hold what they hold).
     */
    default void afterMutation(ObjectNode body) {
    }

    /** Validates a new object (old null) or an update; adds the 422 causes. */
    void validate(ObjectNode body, ObjectNode old, List<StatusCause> causes);

    /**
     * An object as read from storage: for a custom resource, with the defaults its schema
     * has now (a default added to a CRD shows on objects stored before). The same
     * instance when there is nothing to add.
     */
    default ObjectNode onRead(ObjectNode stored) {
        return stored;
    }

    /** The schema as field management walks it (managedFields). */
    FieldType fieldType();

    /** Whether strategic merge patches apply (they need Go struct tags; custom resources have none). */
    default boolean strategicMerge() {
        return true;
    }
}

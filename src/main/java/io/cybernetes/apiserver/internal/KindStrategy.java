package io.cybernetes.apiserver.internal;

import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * What one kind adds to the generic create and update path, as the apiserver's REST
 * strategies do: defaults, what a create or update may set, and validation.
 */
interface KindStrategy {

    /** Fills in defaults and resets what a client may not set on create (usually status). */
    default void prepareForCreate(ObjectNode obj) {
    }

    /** Normalises an update before validation (for example folding write-only fields). */
    default void prepareForUpdate(ObjectNode obj, ObjectNode old) {
    }

    /** Validates a new object; returns the 422 causes. */
    default void validate(ObjectNode obj, List<StatusCause> causes) {
    }

    /** Validates an update against the old object (immutable fields); subresource is null for the main resource. */
    default void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
    }

    /** Whether metadata.generation counts spec changes for this kind. */
    default boolean tracksGeneration() {
        return false;
    }

    KindStrategy DEFAULT = new KindStrategy() {
    };
}

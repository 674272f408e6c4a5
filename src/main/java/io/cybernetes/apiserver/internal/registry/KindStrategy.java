package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.auth.UserInfo;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * What one kind adds to the generic create, update and delete paths, as the apiserver's
 * REST strategies do: defaults, what a create or update may set, validation, and how a
 * delete proceeds (grace periods, terminating first).
 */
public interface KindStrategy {

    /** Fills in defaults and resets what a client may not set on create (usually status). */
    default void prepareForCreate(ObjectNode obj) {
    }

    /** As {@link #prepareForCreate(ObjectNode)}, for kinds that record who created the object. */
    default void prepareForCreate(ObjectNode obj, UserInfo requester) {
        prepareForCreate(obj);
    }

    /** Normalises an update before validation (for example folding write-only fields). */
    default void prepareForUpdate(ObjectNode obj, ObjectNode old) {
    }

    /** As {@link #prepareForUpdate(ObjectNode, ObjectNode)}, knowing the subresource written (null: the object). */
    default void prepareForUpdate(ObjectNode obj, ObjectNode old, String subresource) {
        prepareForUpdate(obj, old);
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

    /**
     * How long a delete of this object waits before it is removed (0: at once, unless
     * finalizers hold it), given the grace period the client asked for (null: none).
     */
    default long gracePeriodSeconds(ObjectNode obj, Long requested) {
        return 0;
    }

    /**
     * Whether a delete of this kind first marks the object terminating, for a controller
     * to finish (a namespace empties itself), whatever its finalizers.
     */
    default boolean terminates() {
        return false;
    }

    /** What a terminating object shows once its delete has begun (a namespace's phase). */
    default void markTerminating(ObjectNode obj) {
    }

    /** Whether nothing of the kind's own still holds a deleted object (a namespace's spec finalizers). */
    default boolean finalized(ObjectNode obj) {
        return true;
    }

    /**
     * Runs just before a new object is stored (not on dry runs), after validation and
     * admission: takes what the object needs from a shared pool (a Service's cluster IP).
     * Returns what undoes it, run when the object is not stored after all.
     */
    default Runnable beforeCreate(ObjectNode obj) {
        return () -> { };
    }

    /** Runs instead of {@link #beforeCreate} on a dry run: shows what the object would get, taking nothing. */
    default void previewCreate(ObjectNode obj) {
    }

    /**
     * Runs just before an update is stored (not on dry runs), after validation and admission:
     * takes what the new object needs that the old one does not hold (a node port for a
     * Service now of type NodePort). Returns what undoes it when the update is not stored, and
     * what gives back, once it is, what the old object held and the new one no longer needs.
     */
    default Update beforeUpdate(ObjectNode obj, ObjectNode old) {
        return Update.NONE;
    }

    /** What an update took ({@code undo}: run when it is not stored) and what its storing gives back. */
    record Update(Runnable undo, Runnable afterStore) {
        public static final Update NONE = new Update(() -> { }, () -> { });
    }

    /** Runs once an object is gone from the store: gives back what it held. */
    default void afterDelete(ObjectNode last) {
    }

    KindStrategy DEFAULT = new KindStrategy() {
    };
}

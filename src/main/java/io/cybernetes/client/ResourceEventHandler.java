package io.cybernetes.client;

/**
 * What an informer tells its handlers. Handlers run on the informer's thread: they should
 * only put keys into a work queue, never call the server. Each notification is ignored
 * unless overridden.
 */
public interface ResourceEventHandler<T> {

    default void onAdd(T obj) {
    }

    /** Also called on resyncs, with the same object twice. */
    default void onUpdate(T oldObj, T newObj) {
    }

    /** {@code finalStateUnknown}: the watch missed the deletion, and {@code lastKnown} may be stale. */
    default void onDelete(T lastKnown, boolean finalStateUnknown) {
    }
}

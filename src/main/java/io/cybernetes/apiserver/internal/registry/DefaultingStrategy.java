package io.cybernetes.apiserver.internal.registry;

import tools.jackson.databind.node.ObjectNode;

/**
 * The strategy of a kind with a spec and a status that controllers write: the status reset
 * on create, defaults filled in on every write (as Kubernetes defaults every decoded object,
 * so that a patch cannot leave a hole), and generations counted for spec changes.
 */
abstract class DefaultingStrategy implements KindStrategy {

    /** Fills in what the object's manifest left out. */
    abstract void setDefaults(ObjectNode obj);

    @Override
    public void prepareForCreate(ObjectNode obj) {
        obj.remove("status");
        setDefaults(obj);
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        setDefaults(obj);
    }

    @Override
    public boolean tracksGeneration() {
        return true;
    }
}

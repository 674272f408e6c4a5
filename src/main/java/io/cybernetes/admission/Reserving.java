package io.cybernetes.admission;

/**
 * A validating plugin that takes something on admission (quota) and must give it back
 * when the write then fails, or when the admitted object is finally removed.
 */
public interface Reserving {

    /** The admitted write did not happen. */
    void release(Attributes attributes);

    /** An object admitted earlier is gone from the store ({@code attributes.object()} is its last state). */
    void removed(Attributes attributes);
}

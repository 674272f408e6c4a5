package io.cybernetes.store;

/**
 * What the store does to a value between the watch cache and the database, as
 * kube-apiserver's storage transformers: encryption at rest for the resources so
 * configured. The cache, watches and every reader above the store see the JSON text;
 * the database holds what {@link #toStorage} returns.
 */
public interface ValueTransformer {

    /** Stores values as they are; refuses to read one that was encrypted ({@code k8s:enc:...}). */
    ValueTransformer IDENTITY = new ValueTransformer() {
        @Override
        public String toStorage(String key, String json) {
            return json;
        }

        @Override
        public String fromStorage(String key, String stored) {
            if (stored.startsWith(ENCRYPTED)) {
                throw unreadable(key, "identity transformer tried to read encrypted data");
            }
            return stored;
        }
    };

    /** A stored value no provider reads, worded as kube-apiserver words it: the key, then why. */
    static StorageException unreadable(String key, String why) {
        return new StorageException(StorageException.Code.UNREADABLE, key, "unable to transform key \"" + key + "\": "
                + why);
    }

    /** What every encrypted value starts with. */
    String ENCRYPTED = "k8s:enc:";

    /** The text the database keeps for the value of {@code key}. */
    String toStorage(String key, String json);

    /**
     * The JSON text of a value the database holds. A value none of the configured
     * providers can read is a {@link StorageException.Code#UNREADABLE} naming the key.
     */
    String fromStorage(String key, String stored);

    /**
     * Whether a readable stored value is in a form this transformer no longer writes (another key or
     * provider than the first), so that rewriting it unchanged is worth a write: that is how a key rotates.
     */
    default boolean stale(String key, String stored) {
        return false;
    }
}

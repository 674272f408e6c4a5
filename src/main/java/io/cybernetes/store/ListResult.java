package io.cybernetes.store;

import java.util.List;

/**
 * One page of a list read at {@code revision}. {@code lastKey} is set when more items
 * may follow, for the continue token; {@code remaining} then counts them when the list
 * was not filtered (null otherwise), as Kubernetes' {@code remainingItemCount}.
 */
public record ListResult(List<StoredObject> items, long revision, String lastKey, Long remaining) {

    public ListResult(List<StoredObject> items, long revision, String lastKey) {
        this(items, revision, lastKey, null);
    }
}

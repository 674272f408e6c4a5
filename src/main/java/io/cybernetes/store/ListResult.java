package io.cybernetes.store;

import java.util.List;

/**
 * One page of a list read at {@code revision}. {@code lastKey} is set when more items
 * may follow, for the continue token.
 */
public record ListResult(List<StoredObject> items, long revision, String lastKey) {
}

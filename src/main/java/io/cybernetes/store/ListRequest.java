package io.cybernetes.store;

import tools.jackson.databind.node.ObjectNode;

import java.util.function.Predicate;

/**
 * What a list asks of the watch cache.
 *
 * @param prefix     key prefix (a resource type, optionally one namespace)
 * @param match      how {@code revision} is read, as Kubernetes' resourceVersionMatch
 * @param revision   the revision for NOT_OLDER_THAN and EXACT
 * @param filter     label and field selectors
 * @param startAfter continue from after this key (null: from the start)
 * @param limit      at most this many items (0: all)
 * @param countRemaining whether a page of an unfiltered list counts the items after it (which takes a pass
 *                   over all of them); a caller that knows the count already says no
 */
public record ListRequest(String prefix, Match match, long revision, Predicate<ObjectNode> filter,
                          String startAfter, int limit, boolean countRemaining) {

    public ListRequest(String prefix, Match match, long revision, Predicate<ObjectNode> filter, String startAfter,
                       int limit) {
        this(prefix, match, revision, filter, startAfter, limit, true);
    }

    public enum Match {
        /** Read the latest committed state (a consistent read). */
        LATEST,
        /** Whatever the cache holds now (resourceVersion=0). */
        ANY,
        /** At least this revision. */
        NOT_OLDER_THAN,
        /** Exactly this revision (also how continue pages read one snapshot). */
        EXACT
    }
}

package io.cybernetes.admission;

import tools.jackson.databind.node.ObjectNode;

/** The one write admission makes itself: ResourceQuota usage, compare-and-set on the quota's resourceVersion. */
public interface QuotaStatusWriter {

    /**
     * Sets {@code status.used} of the quota if it is still at {@code resourceVersion};
     * returns the stored quota, or null when it changed meanwhile (read it again and retry).
     */
    ObjectNode compareAndSetUsed(String namespace, String name, String resourceVersion, ObjectNode used);

    /** The quota as last committed (not from a cache), or null when it is gone. */
    ObjectNode current(String namespace, String name);
}

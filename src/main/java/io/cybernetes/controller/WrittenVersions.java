package io.cybernetes.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a controller wrote for each key (the resource version of each object it created or
 * updated, or that it deleted one), until its informer shows it: as Kubernetes' slice
 * trackers do, so that a reconcile on a cache still behind the controller's own writes
 * waits instead of writing again. Safe for the controller's workers to share.
 */
public final class WrittenVersions {

    private static final long DELETED = -1;

    /** By key: the resource version each object was written at, DELETED once deleted. */
    private final Map<String, Map<String, Long>> written = new ConcurrentHashMap<>();

    /** The controller wrote {@code o} for {@code key}. */
    public void wrote(String key, HasMetadata o) {
        written.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).put(o.getMetadata().getName(), version(o));
    }

    /** The controller deleted the object named {@code name} for {@code key}. */
    public void deleted(String key, String name) {
        written.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).put(name, DELETED);
    }

    /** Deletes the object (gone already is as good) and remembers that it did. */
    public void delete(io.cybernetes.client.ApiClient client, String key, HasMetadata o) {
        try {
            client.delete(o.getClass(), o.getMetadata().getNamespace(), o.getMetadata().getName(), null);
        } catch (io.cybernetes.api.ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
        deleted(key, o.getMetadata().getName());
    }

    /** Nothing is expected for the key any more (its owner is gone). */
    public void forget(String key) {
        written.remove(key);
    }

    /**
     * Whether the cached objects of the key are behind what the controller wrote (one written
     * is not there yet or older, one deleted is still there); what the cache caught up with is
     * forgotten.
     */
    public boolean stale(String key, Collection<? extends HasMetadata> cached) {
        Map<String, Long> mine = written.get(key);
        if (mine == null) {
            return false;
        }
        Map<String, HasMetadata> byName = new HashMap<>();
        cached.forEach(o -> byName.put(o.getMetadata().getName(), o));
        boolean stale = false;
        for (var it = mine.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            HasMetadata seen = byName.get(e.getKey());
            boolean behind = e.getValue() == DELETED ? seen != null : seen == null || version(seen) < e.getValue();
            if (behind) {
                stale = true;
            } else {
                it.remove();
            }
        }
        if (mine.isEmpty()) {
            written.remove(key, mine);
        }
        return stale;
    }

    private static long version(HasMetadata o) {
        try {
            return Long.parseLong(o.getMetadata().getResourceVersion());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}

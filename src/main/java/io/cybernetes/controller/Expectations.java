package io.cybernetes.controller;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a controller is waiting to see after its own creates and deletes, as the
 * ReplicaSet controller's expectations: until the informer has shown them (or five
 * minutes have passed, in case an event was lost), the controller does not count again,
 * so a lagging cache never makes it create or delete twice.
 */
public final class Expectations {

    static final Duration TTL = Duration.ofMinutes(5);

    private record Pending(int adds, int deletes, long since) {
    }

    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    public void expect(String key, int adds, int deletes) {
        pending.put(key, new Pending(adds, deletes, System.nanoTime()));
    }

    public void creationObserved(String key) {
        pending.computeIfPresent(key, (k, p) -> new Pending(p.adds() - 1, p.deletes(), p.since()));
    }

    public void deletionObserved(String key) {
        pending.computeIfPresent(key, (k, p) -> new Pending(p.adds(), p.deletes() - 1, p.since()));
    }

    /** Whether everything expected has been seen (or waited for too long): the controller may count again. */
    public boolean satisfied(String key) {
        Pending p = pending.get(key);
        return p == null || (p.adds() <= 0 && p.deletes() <= 0) || System.nanoTime() - p.since() > TTL.toNanos();
    }

    public void forget(String key) {
        pending.remove(key);
    }
}

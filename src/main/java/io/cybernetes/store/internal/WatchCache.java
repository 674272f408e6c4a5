package io.cybernetes.store.internal;

import io.cybernetes.store.ListRequest;
import io.cybernetes.store.ListResult;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.StorageException.Code;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.WatchEvent;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The per-process view of the revision log: every current object with its recent
 * versions (so a list can be read at any retained revision, which is what makes
 * continue pages consistent) and a ring of recent events for watches.
 *
 * <p>Events are applied by one thread, in revision order, with no gaps. The cache
 * retains the last {@code capacity} events; a list or watch older than that is
 * answered by the caller from the database or with 410 Expired.
 */
final class WatchCache {

    /** One version of a key; value null marks a deletion. Newest first, linked to older ones. */
    private static final class Version {
        final long revision;
        final long createRevision;
        final ObjectNode value;
        final String json;
        volatile Version older;

        Version(long revision, long createRevision, ObjectNode value, String json, Version older) {
            this.revision = revision;
            this.createRevision = createRevision;
            this.value = value;
            this.json = json;
            this.older = older;
        }
    }

    private final int capacity;
    private final int watcherQueue;
    private final ConcurrentSkipListMap<String, Version> objects = new ConcurrentSkipListMap<>();
    private final Deque<WatchEvent> ring = new ArrayDeque<>();
    private final List<CacheWatcher> watchers = new CopyOnWriteArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition advanced = lock.newCondition();
    private volatile long revision;
    /** The oldest revision a list or watch can start from: events after it are all in the ring. */
    private volatile long oldest;

    WatchCache(int capacity, int watcherQueue) {
        this.capacity = capacity;
        this.watcherQueue = watcherQueue;
    }

    /** Replaces the whole content with a snapshot read at {@code atRevision}; ends every watcher. */
    void reset(List<StoredObject> snapshot, long atRevision) {
        lock.lock();
        try {
            objects.clear();
            ring.clear();
            for (StoredObject o : snapshot) {
                objects.put(o.key(), new Version(o.modRevision(), o.createRevision(), o.value(), o.json(), null));
            }
            revision = atRevision;
            oldest = atRevision;
            for (CacheWatcher w : watchers) {
                w.close();
            }
            watchers.clear();
            advanced.signalAll();
        } finally {
            lock.unlock();
        }
    }

    long revision() {
        return revision;
    }

    /** The event of the cache's revision, or null when it was not applied as an event (a reload's snapshot). */
    WatchEvent headEvent() {
        lock.lock();
        try {
            WatchEvent last = ring.peekLast();
            return last != null && last.revision() == revision ? last : null;
        } finally {
            lock.unlock();
        }
    }

    long oldestRevision() {
        return oldest;
    }

    int watcherCount() {
        return watchers.size();
    }

    /**
     * Applies events that directly follow the cache's revision; returns false on a gap. An event
     * without an object stands for a value that could not be read: the key is dropped, silently.
     */
    boolean apply(List<WatchEvent> events) {
        lock.lock();
        try {
            for (WatchEvent e : events) {
                if (e.revision() <= revision) {
                    continue;
                }
                if (e.revision() != revision + 1) {
                    return false;
                }
                Version head = objects.get(e.key());
                if (e.object() == null) {
                    // a value this replica cannot read: the key is left out here, and no watcher hears of it
                    objects.put(e.key(), new Version(e.revision(), e.revision(), null, null, head));
                    revision = e.revision();
                    continue;
                }
                ObjectNode prev = head == null ? null : head.value;
                WatchEvent full = new WatchEvent(e.type(), e.revision(), e.key(), e.object(), prev, e.json());
                long createRevision = e.type() == WatchEvent.Type.ADDED || head == null ? e.revision() : head.createRevision;
                boolean deleted = e.type() == WatchEvent.Type.DELETED;
                objects.put(e.key(), new Version(e.revision(), createRevision, deleted ? null : e.object(),
                        deleted ? null : e.json(), head));
                ring.addLast(full);
                while (ring.size() > capacity) {
                    evict(ring.removeFirst());
                }
                for (CacheWatcher w : watchers) {
                    if (e.key().startsWith(w.prefix())) {
                        w.offer(full);
                    }
                }
                revision = e.revision();
            }
            advanced.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void evict(WatchEvent e) {
        oldest = e.revision();
        Version head = objects.get(e.key());
        Version v = head;
        while (v != null && v.revision > oldest) {
            v = v.older;
        }
        if (v == null) {
            return;
        }
        v.older = null;
        if (v == head && v.value == null) {
            objects.remove(e.key(), head);
        }
    }

    Optional<StoredObject> latest(String key) {
        Version v = objects.get(key);
        if (v == null || v.value == null) {
            return Optional.empty();
        }
        return Optional.of(new StoredObject(key, v.createRevision, v.revision, v.value, v.json));
    }

    /** The objects under the prefix now (not the deleted ones the cache still remembers). */
    long count(String prefix) {
        long n = 0;
        for (Version v : objects.subMap(prefix, true, prefix + Character.MAX_VALUE, false).values()) {
            if (v.value != null) {
                n++;
            }
        }
        return n;
    }

    /** Waits until the cache has applied {@code target}; false on timeout. */
    boolean awaitRevision(long target, long timeoutMillis) throws InterruptedException {
        if (revision >= target) {
            return true;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        lock.lock();
        try {
            while (revision < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                advanced.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Lists at {@code atRevision}, which must lie within [oldest, revision]. */
    ListResult list(ListRequest req, long atRevision) {
        if (atRevision < oldest) {
            throw new StorageException(Code.EXPIRED, req.prefix(), "too old resource version: " + atRevision
                    + " (" + oldest + ")");
        }
        NavigableMap<String, Version> range = req.startAfter() == null
                ? objects.subMap(req.prefix(), true, req.prefix() + Character.MAX_VALUE, false)
                : objects.subMap(req.startAfter(), false, req.prefix() + Character.MAX_VALUE, false);
        List<StoredObject> items = new ArrayList<>();
        String lastKey = null;
        long remaining = 0;
        for (Map.Entry<String, Version> entry : range.entrySet()) {
            Version v = entry.getValue();
            while (v != null && v.revision > atRevision) {
                v = v.older;
            }
            if (v == null || v.value == null) {
                continue;
            }
            if (req.filter() != null && !req.filter().test(v.value)) {
                continue;
            }
            if (lastKey != null) {
                remaining++; // counted only for unfiltered lists (the loop stops at once for filtered ones)
                continue;
            }
            if (req.limit() > 0 && items.size() == req.limit()) {
                lastKey = items.get(items.size() - 1).key();
                if (req.filter() != null || !req.countRemaining()) {
                    break;
                }
                remaining = 1;
                continue;
            }
            items.add(new StoredObject(entry.getKey(), v.createRevision, v.revision, v.value, v.json));
        }
        return new ListResult(items, atRevision, lastKey,
                lastKey == null || req.filter() != null || !req.countRemaining() ? null : remaining);
    }

    /**
     * Starts a watcher for events after {@code afterRevision}. Atomic with respect to
     * {@link #apply}: the events already in the ring become its backlog, later ones are
     * offered live. Expired when the ring no longer reaches back that far.
     */
    CacheWatcher watch(String prefix, long afterRevision) {
        lock.lock();
        try {
            if (afterRevision < oldest) {
                throw new StorageException(Code.EXPIRED, prefix, "too old resource version: " + afterRevision
                        + " (" + oldest + ")");
            }
            Deque<WatchEvent> backlog = new ArrayDeque<>();
            Iterator<WatchEvent> it = ring.descendingIterator();
            while (it.hasNext()) {
                WatchEvent e = it.next();
                if (e.revision() <= afterRevision) {
                    break;
                }
                if (e.key().startsWith(prefix)) {
                    backlog.addFirst(e);
                }
            }
            CacheWatcher[] self = new CacheWatcher[1];
            self[0] = new CacheWatcher(prefix, Math.min(afterRevision, revision), backlog, watcherQueue,
                    () -> revision, () -> watchers.remove(self[0]));
            watchers.add(self[0]);
            return self[0];
        } finally {
            lock.unlock();
        }
    }
}

package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.HasMetadata;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The queue between a reflector and its informer, as client-go's DeltaFIFO: per key, the
 * changes seen since the informer last took it (Added, Updated, Deleted, Replaced by a
 * relist, Sync from a resync), in order; keys come out in the order they first changed.
 * A relist that no longer shows a known object queues its deletion with the last state
 * known, as a {@link DeletedFinalStateUnknown}: the watch missed the delete.
 */
public final class DeltaFifo<T extends HasMetadata> {

    public enum Type { ADDED, UPDATED, DELETED, REPLACED, SYNC }

    /** One change: its type and the object (for a missed deletion, a {@link DeletedFinalStateUnknown}). */
    public record Delta<T>(Type type, T object, DeletedFinalStateUnknown<T> tombstone) {
        public static <T> Delta<T> of(Type type, T object) {
            return new Delta<>(type, object, null);
        }
    }

    /** A deletion the watch missed: the key, and the last state the informer knew. */
    public record DeletedFinalStateUnknown<T>(String key, T lastKnown) {
    }

    private final Map<String, List<Delta<T>>> items = new HashMap<>();
    private final ArrayDeque<String> queue = new ArrayDeque<>();
    private final Supplier<Collection<String>> knownKeys;
    private final java.util.function.Function<String, T> known;
    private boolean populated;
    private int initialPopulationCount;
    private boolean closed;
    /** The first list came in and no pop has returned since: a waiting pop returns to say so. */
    private boolean syncNews;

    /**
     * @param knownKeys the keys the informer's indexer holds (for deletions a relist reveals and for resyncs)
     * @param known     the indexer's object for a key
     */
    public DeltaFifo(Supplier<Collection<String>> knownKeys, java.util.function.Function<String, T> known) {
        this.knownKeys = knownKeys;
        this.known = known;
    }

    public synchronized void add(T obj) {
        queueDelta(Delta.of(Type.ADDED, obj));
    }

    public synchronized void update(T obj) {
        queueDelta(Delta.of(Type.UPDATED, obj));
    }

    public synchronized void delete(T obj) {
        queueDelta(Delta.of(Type.DELETED, obj));
    }

    /** A relist: every listed object as Replaced, and every known object not listed as a missed deletion. */
    public synchronized void replace(Collection<T> objects) {
        Set<String> listed = new HashSet<>();
        for (T o : objects) {
            listed.add(Keys.of(o));
            queueDelta(Delta.of(Type.REPLACED, o));
        }
        for (String key : knownKeys.get()) {
            if (listed.contains(key)) {
                continue;
            }
            List<Delta<T>> pending = items.get(key);
            T last = pending != null && !pending.isEmpty() ? pending.get(pending.size() - 1).object() : known.apply(key);
            if (last != null) {
                queueDelta(new Delta<>(Type.DELETED, last, new DeletedFinalStateUnknown<>(key, last)));
            }
        }
        if (!populated) {
            populated = true;
            initialPopulationCount = queue.size();
            syncNews = true; // a popper waiting on an empty list learns that the first list is in
            notifyAll();
        }
    }

    /** A resync: every known object not already waiting, as Sync. */
    public synchronized void resync() {
        for (String key : knownKeys.get()) {
            if (items.containsKey(key)) {
                continue;
            }
            T o = known.apply(key);
            if (o != null) {
                queueDelta(Delta.of(Type.SYNC, o));
            }
        }
    }

    private void queueDelta(Delta<T> d) {
        String key = d.tombstone() != null ? d.tombstone().key() : Keys.of(d.object());
        List<Delta<T>> deltas = items.get(key);
        if (deltas == null) {
            deltas = new ArrayList<>();
            items.put(key, deltas);
            queue.addLast(key);
        }
        // two deletions in a row say the same thing: keep the one with the better state
        if (d.type() == Type.DELETED && !deltas.isEmpty() && deltas.get(deltas.size() - 1).type() == Type.DELETED) {
            if (deltas.get(deltas.size() - 1).tombstone() != null) {
                deltas.set(deltas.size() - 1, d);
            }
        } else {
            deltas.add(d);
        }
        notifyAll();
    }

    /** The next key's deltas, oldest first; waits up to the timeout; null when there are none (or closed). */
    public synchronized List<Delta<T>> pop(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (queue.isEmpty() && !closed && !syncNews) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        syncNews = false;
        String key = queue.pollFirst();
        if (key == null) {
            return null;
        }
        if (initialPopulationCount > 0) {
            initialPopulationCount--;
        }
        return items.remove(key);
    }

    /** Whether the first relist has been queued and taken out entirely. */
    public synchronized boolean hasSynced() {
        return populated && initialPopulationCount == 0;
    }

    public synchronized int size() {
        return queue.size();
    }

    public synchronized void close() {
        closed = true;
        notifyAll();
    }
}

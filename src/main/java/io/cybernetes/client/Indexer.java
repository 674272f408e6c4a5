package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.HasMetadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * A thread-safe local copy of objects by key, with indexes (by namespace always, and any
 * others given: pods by {@code spec.nodeName}, by owner uid, ...). Informers write it;
 * controllers read it instead of asking the API server. Objects handed out are the
 * stored instances: read them, never change them.
 */
public final class Indexer<T extends HasMetadata> {

    public static final String NAMESPACE_INDEX = "namespace";

    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, T> items = new HashMap<>();
    private final Map<String, Function<T, List<String>>> indexers = new HashMap<>();
    private final Map<String, Map<String, Set<String>>> indices = new HashMap<>();

    public Indexer() {
        addIndex(NAMESPACE_INDEX, o -> List.of(o.getMetadata().getNamespace() == null ? ""
                : o.getMetadata().getNamespace()));
    }

    /** Whether an index of that name was added. */
    public boolean hasIndex(String name) {
        lock.readLock().lock();
        try {
            return indexers.containsKey(name);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Adds an index (before objects arrive, or it is built from what is there). */
    public void addIndex(String name, Function<T, List<String>> values) {
        lock.writeLock().lock();
        try {
            indexers.put(name, values);
            Map<String, Set<String>> index = new HashMap<>();
            indices.put(name, index);
            items.forEach((k, o) -> values.apply(o).forEach(v -> index.computeIfAbsent(v, x -> new HashSet<>()).add(k)));
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Adds or replaces the object; returns the one it replaced, if any. */
    public T put(T obj) {
        String key = Keys.of(obj);
        lock.writeLock().lock();
        try {
            T old = items.put(key, obj);
            if (old != null) {
                unindex(key, old);
            }
            index(key, obj);
            return old;
        } finally {
            lock.writeLock().unlock();
        }
    }

    public T remove(String key) {
        lock.writeLock().lock();
        try {
            T old = items.remove(key);
            if (old != null) {
                unindex(key, old);
            }
            return old;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Replaces everything with these objects. */
    public void replace(Collection<T> objects) {
        lock.writeLock().lock();
        try {
            items.clear();
            indices.values().forEach(Map::clear);
            for (T o : objects) {
                String key = Keys.of(o);
                items.put(key, o);
                index(key, o);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    public Optional<T> get(String key) {
        lock.readLock().lock();
        try {
            return Optional.ofNullable(items.get(key));
        } finally {
            lock.readLock().unlock();
        }
    }

    public List<T> list() {
        lock.readLock().lock();
        try {
            return new ArrayList<>(items.values());
        } finally {
            lock.readLock().unlock();
        }
    }

    public List<String> keys() {
        lock.readLock().lock();
        try {
            return new ArrayList<>(items.keySet());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The objects whose index {@code name} has {@code value}. */
    public List<T> byIndex(String name, String value) {
        lock.readLock().lock();
        try {
            Map<String, Set<String>> index = indices.get(name);
            if (index == null) {
                throw new IllegalArgumentException("no index named " + name);
            }
            List<T> out = new ArrayList<>();
            for (String k : index.getOrDefault(value, Set.of())) {
                T o = items.get(k);
                if (o != null) {
                    out.add(o);
                }
            }
            return out;
        } finally {
            lock.readLock().unlock();
        }
    }

    public int size() {
        lock.readLock().lock();
        try {
            return items.size();
        } finally {
            lock.readLock().unlock();
        }
    }

    private void index(String key, T obj) {
        indexers.forEach((name, f) -> {
            Map<String, Set<String>> index = indices.get(name);
            for (String v : f.apply(obj)) {
                index.computeIfAbsent(v, x -> new HashSet<>()).add(key);
            }
        });
    }

    private void unindex(String key, T obj) {
        indexers.forEach((name, f) -> {
            Map<String, Set<String>> index = indices.get(name);
            for (String v : f.apply(obj)) {
                Set<String> keys = index.get(v);
                if (keys != null) {
                    keys.remove(key);
                    if (keys.isEmpty()) {
                        index.remove(v);
                    }
                }
            }
        });
    }
}

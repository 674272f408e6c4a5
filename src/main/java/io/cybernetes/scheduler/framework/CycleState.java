package io.cybernetes.scheduler.framework;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What plugins share during one pod's scheduling cycle: PreFilter and PreScore compute
 * once per pod what Filter and Score read per node (safe to read from the threads that
 * filter and score nodes in parallel). A value a plugin changes after PreFilter (as its
 * {@link Plugin.PreFilterExtensions} do when a pod is added or removed in thought) is
 * {@link StateData}, copied with the state; other values are never changed once written.
 */
public final class CycleState {

    /** A value that can change after it is written, so that a copy of the state needs its own copy of it. */
    public interface StateData {
        StateData copy();
    }

    private final Map<String, Object> data = new ConcurrentHashMap<>();

    public void write(String key, Object value) {
        data.put(key, value);
    }

    public <T> Optional<T> read(String key, Class<T> type) {
        Object v = data.get(key);
        return type.isInstance(v) ? Optional.of(type.cast(v)) : Optional.empty();
    }

    /** A state to change in thought (a node with pods added or taken away) without changing this one. */
    public CycleState copy() {
        CycleState c = new CycleState();
        data.forEach((k, v) -> c.data.put(k, v instanceof StateData s ? s.copy() : v));
        return c;
    }
}

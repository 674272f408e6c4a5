package io.cybernetes.scheduler.framework;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What plugins share during one pod's scheduling cycle: PreFilter and PreScore compute
 * once per pod what Filter and Score read per node (safe to read from the threads that
 * filter and score nodes in parallel).
 */
public final class CycleState {

    private final Map<String, Object> data = new ConcurrentHashMap<>();

    public void write(String key, Object value) {
        data.put(key, value);
    }

    public <T> Optional<T> read(String key, Class<T> type) {
        Object v = data.get(key);
        return type.isInstance(v) ? Optional.of(type.cast(v)) : Optional.empty();
    }
}

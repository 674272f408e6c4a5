package io.cybernetes.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The logs of the containers on one node: for each container of each pod its current run
 * and the one before (what {@code previous} reads after a restart). A run starts when the
 * agent reports the container running, ends when it exits; the pod's deletion drops both.
 */
final class ContainerLogs {

    /** A container's current run and the one before it (null when it has not restarted). */
    private record Runs(ContainerLog current, ContainerLog previous) {
    }

    private final Map<String, Map<String, Runs>> byPod = new ConcurrentHashMap<>();
    private final String node;
    private final Clock clock;
    private volatile Duration interval;
    private final long retained;

    ContainerLogs(String node, Clock clock, Duration interval, long retained) {
        this.node = node;
        this.clock = clock;
        this.interval = interval;
        this.retained = retained;
    }

    void interval(Duration d) {
        interval = d;
    }

    /** The container's run {@code restart} is running since {@code at}: a new log unless it has one. */
    void running(String key, Pod pod, Container c, int restart, Instant at) {
        byPod.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).compute(c.getName(), (name, runs) -> {
            if (runs != null && runs.current().restart() == restart) {
                return runs;
            }
            if (runs != null) {
                runs.current().end(0, at); // ended without the agent seeing how: as if stopped
            }
            Map<String, String> vars = new LinkedHashMap<>();
            vars.put("pod", pod.getMetadata().getName());
            vars.put("namespace", pod.getMetadata().getNamespace());
            vars.put("container", c.getName());
            vars.put("node", node);
            vars.put("image", c.getImage() == null ? "" : c.getImage());
            ContainerLog log = new ContainerLog(at, LogScript.of(pod.getMetadata().getAnnotations(), c.getName(),
                    interval), vars, restart, retained, clock);
            return new Runs(log, runs == null ? null : runs.current());
        });
    }

    /** The container's current run exited with the code. */
    void exited(String key, String container, int code, Instant at) {
        Map<String, Runs> pod = byPod.get(key);
        Runs runs = pod == null ? null : pod.get(container);
        if (runs != null) {
            runs.current().end(code, at);
        }
    }

    /** The pod is gone: its logs with it, and whoever follows them stops. */
    void forget(String key) {
        Map<String, Runs> pod = byPod.remove(key);
        if (pod != null) {
            pod.values().forEach(r -> r.current().discard());
        }
    }

    /** The container's current run, or the one before it. */
    Optional<ContainerLog> log(String key, String container, boolean previous) {
        Map<String, Runs> pod = byPod.get(key);
        Runs runs = pod == null ? null : pod.get(container);
        if (runs == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(previous ? runs.previous() : runs.current());
    }
}

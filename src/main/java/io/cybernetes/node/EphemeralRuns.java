package io.cybernetes.node;

import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.Pod;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ephemeral containers ({@code kubectl debug}) of the pods on one node: each starts once
 * the pod's spec has it, runs until its process exits (it never restarts, whatever the pod's
 * restartPolicy), and is reported in {@code status.ephemeralContainerStatuses}.
 */
final class EphemeralRuns {

    /** When a container started and, once it has, how it ended. */
    private record Run(Instant started, Integer exitCode, Instant ended) {
    }

    private final Map<String, Map<String, Run>> byPod = new ConcurrentHashMap<>();

    static List<EphemeralContainer> of(Pod pod) {
        return Objects.requireNonNullElse(pod.getSpec().getEphemeralContainers(), List.of());
    }

    static boolean isEphemeral(Pod pod, String name) {
        return of(pod).stream().anyMatch(e -> e.getName().equals(name));
    }

    /** Whether the pod's status is behind: an ephemeral container it does not report, or one it reports running that ended. */
    boolean unreported(String key, Pod pod) {
        List<ContainerStatus> reported = Objects.requireNonNullElse(pod.getStatus() == null ? null
                : pod.getStatus().getEphemeralContainerStatuses(), List.of());
        Map<String, Run> runs = byPod.getOrDefault(key, Map.of());
        for (EphemeralContainer e : of(pod)) {
            ContainerStatus s = reported.stream().filter(x -> x.getName().equals(e.getName())).findFirst().orElse(null);
            Run r = runs.get(e.getName());
            boolean reportedRunning = s != null && s.getState() != null && s.getState().getRunning() != null;
            if (s == null || (r != null && r.exitCode() != null && reportedRunning)) {
                return true;
            }
        }
        return false;
    }

    /** The container's process exited with the code. */
    void exited(String key, String name, int code, Instant at) {
        byPod.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).computeIfPresent(name, (n, r) ->
                r.exitCode() != null ? r : new Run(r.started(), code, at));
    }

    void forget(String key) {
        byPod.remove(key);
    }

    /** The statuses of the pod's ephemeral containers, starting those new here; logs started and ended with them. */
    List<ContainerStatus> statuses(String key, Pod pod, Instant now, ContainerLogs logs) {
        Map<String, Run> runs = byPod.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
        List<ContainerStatus> out = new ArrayList<>();
        for (EphemeralContainer e : of(pod)) {
            Run r = runs.computeIfAbsent(e.getName(), n -> new Run(now, null, null));
            Container asContainer = Json.convert(Json.toTree(e), Container.class);
            String started = r.started().truncatedTo(ChronoUnit.SECONDS).toString();
            ContainerStatusBuilder b = new ContainerStatusBuilder().withName(e.getName()).withImage(e.getImage())
                    .withImageID("simulated://" + e.getImage()).withContainerID("simulated://" + key + "/" + e.getName())
                    .withRestartCount(0).withReady(false);
            if (r.exitCode() == null) {
                logs.running(key, pod, asContainer, 0, r.started());
                b.withStarted(true).withNewState().withNewRunning().withStartedAt(started).endRunning().endState();
            } else {
                logs.exited(key, e.getName(), r.exitCode(), r.ended());
                b.withStarted(false).withNewState().withNewTerminated().withExitCode(r.exitCode())
                        .withReason(r.exitCode() == 0 ? "Completed" : "Error").withStartedAt(started)
                        .withFinishedAt(r.ended().truncatedTo(ChronoUnit.SECONDS).toString()).endTerminated()
                        .endState();
            }
            out.add(b.build());
        }
        return out;
    }
}

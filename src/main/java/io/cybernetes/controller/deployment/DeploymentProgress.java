package io.cybernetes.controller.deployment;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static io.cybernetes.controller.deployment.DeploymentController.AVAILABLE;
import static io.cybernetes.controller.deployment.DeploymentController.NEW_RS_AVAILABLE;
import static io.cybernetes.controller.deployment.DeploymentController.PAUSED;
import static io.cybernetes.controller.deployment.DeploymentController.PROGRESSING;
import static io.cybernetes.controller.deployment.DeploymentController.REPLICA_FAILURE;
import static io.cybernetes.controller.deployment.DeploymentController.RESUMED;
import static io.cybernetes.controller.deployment.DeploymentController.TIMED_OUT;
import static io.cybernetes.controller.deployment.DeploymentSpecs.available;
import static io.cybernetes.controller.deployment.DeploymentSpecs.copy;
import static io.cybernetes.controller.deployment.DeploymentSpecs.desired;
import static io.cybernetes.controller.deployment.DeploymentSpecs.maxUnavailable;
import static io.cybernetes.controller.deployment.DeploymentSpecs.n;
import static io.cybernetes.controller.deployment.DeploymentSpecs.progressDeadline;
import static io.cybernetes.controller.deployment.DeploymentSpecs.statusReplicas;

/**
 * A Deployment's status and its progress, as Kubernetes' deployment controller keeps
 * them (its sync and progress parts): replicas counted over the Deployment's sets, the
 * Available, Progressing (ProgressDeadlineExceeded once the deadline passes) and
 * ReplicaFailure conditions, Paused and Resumed, the look again when the deadline is due,
 * and the status written only when it changed.
 */
final class DeploymentProgress {

    private final ApiClient client;
    private final Clock clock;

    DeploymentProgress(ApiClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
    }


    Result syncStatusOnly(Deployment d, Sets sets) {
        DeploymentStatus next = calculateStatus(d, sets);
        writeStatus(d, next);
        return Result.DONE;
    }

    Result syncRolloutStatus(Deployment d, Sets sets) {
        DeploymentStatus next = calculateStatus(d, sets);
        Integer deadline = progressDeadline(d);
        DeploymentCondition progressing = condition(next, PROGRESSING);
        if (deadline == null) {
            removeCondition(next, PROGRESSING);
        }
        boolean alreadyComplete = Objects.equals(next.getReplicas(), next.getUpdatedReplicas())
                && progressing != null && NEW_RS_AVAILABLE.equals(progressing.getReason());
        String rsName = sets.current == null ? "" : sets.current.getMetadata().getName();
        if (deadline != null && !alreadyComplete) {
            if (complete(d, next)) {
                setCondition(next, condition(PROGRESSING, "True", NEW_RS_AVAILABLE,
                        "ReplicaSet \"" + rsName + "\" has successfully progressed."));
            } else if (progressing(d.getStatus(), next)) {
                DeploymentCondition c = condition(PROGRESSING, "True", "ReplicaSetUpdated",
                        "ReplicaSet \"" + rsName + "\" is progressing.");
                if (progressing != null && "True".equals(progressing.getStatus())) {
                    c.setLastTransitionTime(progressing.getLastTransitionTime());
                }
                removeCondition(next, PROGRESSING);
                next.getConditions().add(c);
            } else if (timedOut(d, next)) {
                setCondition(next, condition(PROGRESSING, "False", TIMED_OUT,
                        "ReplicaSet \"" + rsName + "\" has timed out progressing."));
            }
        }
        DeploymentCondition failure = replicaFailure(sets);
        if (failure != null) {
            setCondition(next, failure);
        } else {
            removeCondition(next, REPLICA_FAILURE);
        }
        writeStatus(d, next);
        return requeueForDeadline(d, next);
    }

    /** A Deployment still progressing is looked at again when its deadline passes. */
    Result requeueForDeadline(Deployment d, DeploymentStatus s) {
        Integer deadline = progressDeadline(d);
        DeploymentCondition c = condition(s, PROGRESSING);
        if (deadline == null || c == null || complete(d, s) || TIMED_OUT.equals(c.getReason())
                || NEW_RS_AVAILABLE.equals(c.getReason())) {
            return Result.DONE;
        }
        Instant due = Instant.parse(c.getLastUpdateTime()).plusSeconds(deadline);
        Duration wait = Duration.between(clock.instant(), due);
        return Result.after(wait.isNegative() ? Duration.ofSeconds(1) : wait.plusSeconds(1));
    }

    void writeStatus(Deployment d, DeploymentStatus next) {
        if (sameStatus(d.getStatus(), next)) {
            return;
        }
        d.setStatus(next);
        try {
            client.updateStatus(d);
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                throw e;
            }
            // 409: a newer version is on its way through the informer, which queues this key again
        }
    }

    static boolean sameStatus(DeploymentStatus a, DeploymentStatus b) {
        return a != null && Json.toTree(a).equals(Json.toTree(b));
    }

    DeploymentStatus calculateStatus(Deployment d, Sets sets) {
        List<ReplicaSet> all = sets.all();
        int available = all.stream().mapToInt(DeploymentSpecs::available).sum();
        int want = desired(d);
        DeploymentStatus s = new DeploymentStatus();
        s.setObservedGeneration(d.getMetadata().getGeneration());
        s.setReplicas(all.stream().mapToInt(DeploymentSpecs::statusReplicas).sum());
        s.setUpdatedReplicas(statusReplicas(sets.current));
        s.setReadyReplicas(all.stream().mapToInt(rs -> rs.getStatus() == null ? 0
                : Objects.requireNonNullElse(rs.getStatus().getReadyReplicas(), 0)).sum());
        s.setAvailableReplicas(available);
        s.setUnavailableReplicas(Math.max(0, want - available));
        s.setCollisionCount(d.getStatus() == null ? null : d.getStatus().getCollisionCount());
        List<DeploymentCondition> conditions = new ArrayList<>();
        if (d.getStatus() != null && d.getStatus().getConditions() != null) {
            for (DeploymentCondition c : d.getStatus().getConditions()) {
                conditions.add(copy(c, DeploymentCondition.class));
            }
        }
        s.setConditions(conditions);
        if (available >= want - maxUnavailable(d)) {
            setCondition(s, condition(AVAILABLE, "True", "MinimumReplicasAvailable",
                    "Deployment has minimum availability."));
        } else {
            setCondition(s, condition(AVAILABLE, "False", "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability."));
        }
        return s;
    }

    /** Every replica updated, available and observed. */
    static boolean complete(Deployment d, DeploymentStatus s) {
        int want = desired(d);
        return Objects.equals(s.getUpdatedReplicas(), want) && Objects.equals(s.getReplicas(), want)
                && Objects.equals(s.getAvailableReplicas(), want)
                && Objects.requireNonNullElse(s.getObservedGeneration(), 0L)
                >= Objects.requireNonNullElse(d.getMetadata().getGeneration(), 0L);
    }

    /** Whether the rollout moved since the status last written. */
    static boolean progressing(DeploymentStatus before, DeploymentStatus after) {
        if (before == null) {
            before = new DeploymentStatus();
        }
        int oldBefore = n(before.getReplicas()) - n(before.getUpdatedReplicas());
        int oldAfter = n(after.getReplicas()) - n(after.getUpdatedReplicas());
        return n(after.getUpdatedReplicas()) > n(before.getUpdatedReplicas()) || oldAfter < oldBefore
                || n(after.getReadyReplicas()) > n(before.getReadyReplicas())
                || n(after.getAvailableReplicas()) > n(before.getAvailableReplicas());
    }

    boolean timedOut(Deployment d, DeploymentStatus s) {
        DeploymentCondition c = condition(s, PROGRESSING);
        if (c == null || NEW_RS_AVAILABLE.equals(c.getReason())) {
            return false;
        }
        if (TIMED_OUT.equals(c.getReason())) {
            return true;
        }
        return Instant.parse(c.getLastUpdateTime()).plusSeconds(progressDeadline(d)).isBefore(clock.instant());
    }

    /** The first ReplicaFailure of the sets (pods they could not create), as the Deployment's. */
    static DeploymentCondition replicaFailure(Sets sets) {
        for (ReplicaSet rs : sets.all()) {
            if (rs.getStatus() == null || rs.getStatus().getConditions() == null) {
                continue;
            }
            for (var c : rs.getStatus().getConditions()) {
                if (REPLICA_FAILURE.equals(c.getType()) && "True".equals(c.getStatus())) {
                    DeploymentCondition dc = new DeploymentCondition();
                    dc.setType(REPLICA_FAILURE);
                    dc.setStatus("True");
                    dc.setReason(c.getReason());
                    dc.setMessage(c.getMessage());
                    dc.setLastTransitionTime(c.getLastTransitionTime());
                    dc.setLastUpdateTime(c.getLastTransitionTime());
                    return dc;
                }
            }
        }
        return null;
    }

    /** Paused: Progressing Unknown (DeploymentPaused), so the deadline does not run; resumed: DeploymentResumed. */
    void checkPausedCondition(Deployment d) {
        if (progressDeadline(d) == null) {
            return;
        }
        DeploymentCondition c = condition(d.getStatus(), PROGRESSING);
        if (c != null && TIMED_OUT.equals(c.getReason())) {
            return;
        }
        boolean paused = Boolean.TRUE.equals(d.getSpec().getPaused());
        boolean pausedCondition = c != null && PAUSED.equals(c.getReason());
        DeploymentCondition next = null;
        if (paused && !pausedCondition) {
            next = condition(PROGRESSING, "Unknown", PAUSED, "Deployment is paused");
        } else if (!paused && pausedCondition) {
            next = condition(PROGRESSING, "Unknown", RESUMED, "Deployment is resumed");
        }
        if (next != null) {
            setCondition(status(d), next);
            Deployment updated = client.updateStatus(d);
            d.setMetadata(updated.getMetadata());
            d.setStatus(updated.getStatus());
        }
    }

    DeploymentCondition condition(String type, String status, String reason, String message) {
        String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
        DeploymentCondition c = new DeploymentCondition();
        c.setType(type);
        c.setStatus(status);
        c.setReason(reason);
        c.setMessage(message);
        c.setLastUpdateTime(now);
        c.setLastTransitionTime(now);
        return c;
    }

    static DeploymentCondition condition(DeploymentStatus s, String type) {
        if (s == null || s.getConditions() == null) {
            return null;
        }
        return s.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    }

    /** Sets a condition: unchanged when status and reason are; the transition time kept when only the reason moved. */
    static void setCondition(DeploymentStatus s, DeploymentCondition c) {
        DeploymentCondition current = condition(s, c.getType());
        if (current != null && Objects.equals(current.getStatus(), c.getStatus())
                && Objects.equals(current.getReason(), c.getReason())) {
            return;
        }
        if (current != null && Objects.equals(current.getStatus(), c.getStatus())) {
            c.setLastTransitionTime(current.getLastTransitionTime());
        }
        removeCondition(s, c.getType());
        s.getConditions().add(c);
    }

    static void removeCondition(DeploymentStatus s, String type) {
        if (s.getConditions() == null) {
            s.setConditions(new ArrayList<>());
        }
        s.getConditions().removeIf(c -> type.equals(c.getType()));
    }

    static DeploymentStatus status(Deployment d) {
        if (d.getStatus() == null) {
            d.setStatus(new DeploymentStatus());
        }
        if (d.getStatus().getConditions() == null) {
            d.getStatus().setConditions(new ArrayList<>());
        }
        return d.getStatus();
    }
}

package io.cybernetes.controller.deployment;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Rolls Deployments out through ReplicaSets, as kube-controller-manager's deployment
 * controller: one ReplicaSet per pod template (named by the template's hash, labelled
 * and selected by {@code pod-template-hash}), numbered by the
 * {@code deployment.kubernetes.io/revision} annotation. RollingUpdate scales the new set
 * up within {@code replicas + maxSurge} and the old ones down while
 * {@code replicas - maxUnavailable} pods stay available; Recreate scales every old set to
 * zero and waits for its pods to go before starting the new one. Scaling mid-rollout is
 * spread over the sets in proportion. Reports the status {@code kubectl rollout status}
 * reads, with the Available and Progressing conditions (and ProgressDeadlineExceeded);
 * keeps {@code revisionHistoryLimit} old sets; does nothing but report while paused.
 * {@code kubectl rollout undo} needs no help: it writes an old set's template back into
 * the Deployment, and that set becomes the new one again under the next revision.
 */
public final class DeploymentController implements Reconciler {

    public static final String NAME = "deployment";
    public static final String HASH_LABEL = "pod-template-hash";
    public static final String REVISION = "deployment.kubernetes.io/revision";
    static final String REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
    static final String DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
    static final String MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
    /** Annotations of the Deployment that are not copied to its ReplicaSets (as kubectl's rollback skips them too). */
    static final List<String> NOT_COPIED = List.of("kubectl.kubernetes.io/last-applied-configuration", REVISION,
            REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, "deprecated.deployment.rollback.to");

    static final String AVAILABLE = "Available";
    static final String PROGRESSING = "Progressing";
    static final String REPLICA_FAILURE = "ReplicaFailure";
    static final String NEW_RS_AVAILABLE = "NewReplicaSetAvailable";
    static final String TIMED_OUT = "ProgressDeadlineExceeded";
    static final String PAUSED = "DeploymentPaused";
    static final String RESUMED = "DeploymentResumed";

    private final ApiClient client;
    private final Indexer<Deployment> deployments;
    private final Indexer<ReplicaSet> replicaSets;
    private final Indexer<Pod> pods;
    private final EventRecorder events;
    private final Clock clock;

    public DeploymentController(ApiClient client, Indexer<Deployment> deployments, Indexer<ReplicaSet> replicaSets,
                                Indexer<Pod> pods, EventRecorder events, Clock clock) {
        this.client = client;
        this.deployments = deployments;
        this.replicaSets = replicaSets;
        this.pods = pods;
        this.events = events;
        this.clock = clock;
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        Deployment cached = deployments.get(request.key()).orElse(null);
        if (cached == null) {
            return Result.DONE;
        }
        Deployment d = copy(cached, Deployment.class);
        LabelSelector selector = LabelSelector.fromObject(Json.toTree(d.getSpec().getSelector()));
        if (selector.isEmpty()) {
            events.warning(d, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is"
                    + " required.");
            return Result.DONE;
        }
        Sets sets = claim(d, selector);
        if (d.getMetadata().getDeletionTimestamp() != null) {
            return syncStatusOnly(d, sets);
        }
        checkPausedCondition(d);
        if (Boolean.TRUE.equals(d.getSpec().getPaused()) || isScalingEvent(d, sets)) {
            return sync(d, sets);
        }
        if ("Recreate".equals(strategyType(d))) {
            return rolloutRecreate(d, sets);
        }
        return rolloutRolling(d, sets);
    }

    // ---- the sets of a Deployment

    /** The Deployment's ReplicaSets (copies, safe to change), split into the one of the current template and the rest. */
    private static final class Sets {
        ReplicaSet current;
        final List<ReplicaSet> old = new ArrayList<>();

        List<ReplicaSet> all() {
            List<ReplicaSet> all = new ArrayList<>(old);
            if (current != null) {
                all.add(current);
            }
            return all;
        }
    }

    /** Adopts matching orphans and releases owned sets the selector no longer matches; finds the current one. */
    private Sets claim(Deployment d, LabelSelector selector) {
        Sets sets = new Sets();
        String uid = d.getMetadata().getUid();
        List<ReplicaSet> owned = new ArrayList<>();
        for (ReplicaSet cached : replicaSets.byIndex(Indexer.NAMESPACE_INDEX, d.getMetadata().getNamespace())) {
            OwnerReference ref = OwnerReferences.controllerOf(cached);
            boolean matches = selector.matches(labels(cached));
            if (ref != null && !uid.equals(ref.getUid())) {
                continue;
            }
            if (ref != null && matches) {
                owned.add(copy(cached, ReplicaSet.class));
            } else if (ref != null && cached.getMetadata().getDeletionTimestamp() == null) {
                setOwners(cached, withoutOwner(cached, uid));
            } else if (ref == null && matches && d.getMetadata().getDeletionTimestamp() == null
                    && cached.getMetadata().getDeletionTimestamp() == null) {
                List<OwnerReference> refs = new ArrayList<>(Objects.requireNonNullElse(
                        cached.getMetadata().getOwnerReferences(), List.of()));
                refs.add(OwnerReferences.controlledBy(d));
                owned.add(setOwners(cached, refs));
            }
        }
        owned.sort(BY_CREATION);
        for (ReplicaSet rs : owned) {
            if (sets.current == null && sameTemplate(rs.getSpec().getTemplate(), d.getSpec().getTemplate())) {
                sets.current = rs;
            } else {
                sets.old.add(rs);
            }
        }
        return sets;
    }

    private ReplicaSet setOwners(ReplicaSet rs, List<OwnerReference> refs) {
        return client.patch(ReplicaSet.class, rs.getMetadata().getNamespace(), rs.getMetadata().getName(),
                "{\"metadata\":{\"uid\":\"" + rs.getMetadata().getUid() + "\",\"ownerReferences\":"
                        + Json.write(Json.MAPPER.valueToTree(refs)) + "}}");
    }

    private static List<OwnerReference> withoutOwner(HasMetadata o, String uid) {
        List<OwnerReference> refs = new ArrayList<>(o.getMetadata().getOwnerReferences());
        refs.removeIf(r -> uid.equals(r.getUid()));
        return refs;
    }

    /**
     * Makes sure the current template has its ReplicaSet (when {@code create}) at the next
     * revision, with the Deployment's annotations, and the Deployment carries that revision.
     */
    private void syncRevision(Deployment d, Sets sets, boolean create) {
        long maxOld = sets.old.stream().mapToLong(DeploymentController::revision).max().orElse(0);
        String next = Long.toString(maxOld + 1);
        if (sets.current != null) {
            ReplicaSet rs = sets.current;
            boolean changed = copyAnnotations(d, rs);
            String had = annotation(rs, REVISION);
            if (had == null || revision(rs) < maxOld + 1) {
                if (had != null && !had.isEmpty()) {
                    String history = annotation(rs, REVISION_HISTORY);
                    annotations(rs).put(REVISION_HISTORY, history == null || history.isEmpty() ? had : history + "," + had);
                }
                annotations(rs).put(REVISION, next);
                changed = true;
            }
            int minReady = minReadySeconds(d);
            if (!Objects.equals(rs.getSpec().getMinReadySeconds(), minReady)) {
                rs.getSpec().setMinReadySeconds(minReady);
                changed = true;
            }
            if (changed) {
                sets.current = client.update(rs);
            }
            if (progressDeadline(d) != null && condition(d.getStatus(), PROGRESSING) == null) {
                setCondition(status(d), condition(PROGRESSING, "True", "FoundNewReplicaSet",
                        "Found new replica set \"" + rs.getMetadata().getName() + "\""));
            }
        } else if (create) {
            sets.current = createReplicaSet(d, sets, next);
        }
        if (sets.current != null && !Objects.equals(annotation(d, REVISION), annotation(sets.current, REVISION))) {
            annotations(d).put(REVISION, annotation(sets.current, REVISION));
            Deployment updated = client.update(d);
            d.setMetadata(updated.getMetadata());
        }
    }

    private ReplicaSet createReplicaSet(Deployment d, Sets sets, String revision) {
        int collisions = Objects.requireNonNullElse(status(d).getCollisionCount(), 0);
        String hash = templateHash(d.getSpec().getTemplate(), collisions);
        PodTemplateSpec template = copy(d.getSpec().getTemplate(), PodTemplateSpec.class);
        if (template.getMetadata() == null) {
            template.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
        }
        Map<String, String> podLabels = new LinkedHashMap<>(Objects.requireNonNullElse(
                template.getMetadata().getLabels(), Map.of()));
        podLabels.put(HASH_LABEL, hash);
        template.getMetadata().setLabels(podLabels);
        var selector = copy(d.getSpec().getSelector(), io.fabric8.kubernetes.api.model.LabelSelector.class);
        Map<String, String> matchLabels = new LinkedHashMap<>(Objects.requireNonNullElse(selector.getMatchLabels(),
                Map.of()));
        matchLabels.put(HASH_LABEL, hash);
        selector.setMatchLabels(matchLabels);
        ReplicaSet rs = new ReplicaSet();
        rs.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withNamespace(d.getMetadata().getNamespace())
                .withName(d.getMetadata().getName() + "-" + hash)
                .withLabels(podLabels)
                .withOwnerReferences(OwnerReferences.controlledBy(d)).build());
        copyAnnotations(d, rs);
        annotations(rs).put(REVISION, revision);
        rs.setSpec(new io.fabric8.kubernetes.api.model.apps.ReplicaSetSpecBuilder()
                .withReplicas(0).withMinReadySeconds(minReadySeconds(d)).withSelector(selector)
                .withTemplate(template).build());
        Sets withNew = new Sets();
        withNew.old.addAll(sets.old);
        withNew.current = rs;
        int replicas = newReplicaCount(d, withNew);
        rs.getSpec().setReplicas(replicas);
        setReplicaAnnotations(d, rs);
        try {
            ReplicaSet created = client.create(rs);
            events.normal(d, "ScalingReplicaSet", "Scaled up replica set " + created.getMetadata().getName()
                    + " from 0 to " + replicas);
            if (progressDeadline(d) != null) {
                setCondition(status(d), condition(PROGRESSING, "True", "NewReplicaSetCreated",
                        "Created new replica set \"" + created.getMetadata().getName() + "\""));
            }
            return created;
        } catch (ApiException e) {
            if (e.code() != 409) {
                throw e;
            }
        }
        // The name is taken: ours (the informer has not shown it yet), or another template's whose hash collides.
        ReplicaSet existing = client.get(ReplicaSet.class, d.getMetadata().getNamespace(), rs.getMetadata().getName())
                .orElseThrow(() -> ApiException.conflict("apps", "replicasets", rs.getMetadata().getName(),
                        "the replica set was deleted while it was being created"));
        OwnerReference ref = OwnerReferences.controllerOf(existing);
        if (ref != null && d.getMetadata().getUid().equals(ref.getUid())
                && sameTemplate(existing.getSpec().getTemplate(), d.getSpec().getTemplate())) {
            return existing;
        }
        DeploymentStatus s = status(d);
        s.setCollisionCount(collisions + 1);
        client.updateStatus(d);
        throw new IllegalStateException("hash collision: replica set " + rs.getMetadata().getName()
                + " belongs to another template; trying again with collisionCount " + (collisions + 1));
    }

    // ---- strategies

    private Result rolloutRolling(Deployment d, Sets sets) {
        syncRevision(d, sets, true);
        if (reconcileNewReplicaSet(d, sets) || reconcileOldReplicaSets(d, sets)) {
            return syncRolloutStatus(d, sets);
        }
        if (complete(d, calculateStatus(d, sets))) {
            cleanup(d, sets);
        }
        return syncRolloutStatus(d, sets);
    }

    private Result rolloutRecreate(Deployment d, Sets sets) {
        syncRevision(d, sets, false);
        boolean scaledDown = false;
        for (ReplicaSet rs : sets.old) {
            if (replicas(rs) > 0) {
                scale(d, sets, rs, 0);
                scaledDown = true;
            }
        }
        if (scaledDown || oldPodsRunning(sets)) {
            return syncRolloutStatus(d, sets);
        }
        if (sets.current == null) {
            syncRevision(d, sets, true);
        }
        if (replicas(sets.current) != desired(d)) {
            scale(d, sets, sets.current, desired(d));
        }
        if (complete(d, calculateStatus(d, sets))) {
            cleanup(d, sets);
        }
        return syncRolloutStatus(d, sets);
    }

    /** Pods of old sets that still exist and have not finished (Recreate waits for them). */
    private boolean oldPodsRunning(Sets sets) {
        for (ReplicaSet rs : sets.old) {
            if (rs.getStatus() != null && Objects.requireNonNullElse(rs.getStatus().getReplicas(), 0) > 0) {
                return true;
            }
            for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, rs.getMetadata().getNamespace())) {
                OwnerReference ref = OwnerReferences.controllerOf(p);
                String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
                if (ref != null && rs.getMetadata().getUid().equals(ref.getUid())
                        && !"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Scales the new set toward the target within the surge allowance; true when it scaled. */
    private boolean reconcileNewReplicaSet(Deployment d, Sets sets) {
        ReplicaSet rs = sets.current;
        int want = desired(d);
        if (replicas(rs) == want) {
            return false;
        }
        if (replicas(rs) > want) {
            return scale(d, sets, rs, want);
        }
        return scale(d, sets, rs, newReplicaCount(d, sets));
    }

    /** What the new set may grow to: RollingUpdate within replicas + maxSurge in total, Recreate all at once. */
    private static int newReplicaCount(Deployment d, Sets sets) {
        int want = desired(d);
        if (!"RollingUpdate".equals(strategyType(d))) {
            return want;
        }
        int current = replicas(sets.current);
        int total = sets.all().stream().mapToInt(DeploymentController::replicas).sum();
        int maxTotal = want + maxSurge(d);
        if (total >= maxTotal) {
            return current;
        }
        return current + Math.max(0, Math.min(maxTotal - total, want - current));
    }

    /** Scales old sets down as far as availability allows, unhealthy replicas first; true when anything scaled. */
    private boolean reconcileOldReplicaSets(Deployment d, Sets sets) {
        int oldCount = sets.old.stream().mapToInt(DeploymentController::replicas).sum();
        if (oldCount == 0) {
            return false;
        }
        int allCount = sets.all().stream().mapToInt(DeploymentController::replicas).sum();
        int minAvailable = desired(d) - maxUnavailable(d);
        ReplicaSet current = sets.current;
        int newUnavailable = replicas(current) - availableNow(current);
        int maxScaledDown = allCount - minAvailable - newUnavailable;
        if (maxScaledDown <= 0) {
            return false;
        }
        // first the old replicas that are not available anyway
        int cleaned = 0;
        List<ReplicaSet> old = new ArrayList<>(sets.old);
        old.sort(BY_CREATION);
        for (ReplicaSet rs : old) {
            if (cleaned >= maxScaledDown) {
                break;
            }
            int unhealthy = replicas(rs) - availableNow(rs);
            if (replicas(rs) == 0 || unhealthy <= 0) {
                continue;
            }
            int down = Math.min(maxScaledDown - cleaned, unhealthy);
            scale(d, sets, rs, replicas(rs) - down);
            cleaned += down;
        }
        // then available ones, oldest first, while enough stay available
        int availableNow = sets.all().stream().mapToInt(DeploymentController::availableNow).sum();
        int scaledDown = 0;
        if (availableNow > minAvailable) {
            int budget = availableNow - minAvailable;
            old = new ArrayList<>(sets.old);
            old.sort(BY_CREATION);
            for (ReplicaSet rs : old) {
                if (scaledDown >= budget) {
                    break;
                }
                if (replicas(rs) == 0) {
                    continue;
                }
                int down = Math.min(replicas(rs), budget - scaledDown);
                scale(d, sets, rs, replicas(rs) - down);
                scaledDown += down;
            }
        }
        return cleaned + scaledDown > 0;
    }

    // ---- scaling (paused, or replicas changed mid-rollout)

    /** Whether some active set was sized for another replica count than the Deployment's. */
    private static boolean isScalingEvent(Deployment d, Sets sets) {
        for (ReplicaSet rs : sets.all()) {
            if (replicas(rs) == 0) {
                continue;
            }
            String want = annotation(rs, DESIRED_REPLICAS);
            if (want != null && !want.equals(Integer.toString(desired(d)))) {
                return true;
            }
        }
        return false;
    }

    private Result sync(Deployment d, Sets sets) {
        syncRevision(d, sets, false);
        scaleProportionally(d, sets);
        if (Boolean.TRUE.equals(d.getSpec().getPaused())) {
            cleanup(d, sets);
        }
        return syncStatusOnly(d, sets);
    }

    /** Spreads a change of replicas over the active sets in proportion to their sizes, as Kubernetes does. */
    private void scaleProportionally(Deployment d, Sets sets) {
        List<ReplicaSet> active = new ArrayList<>(sets.all().stream().filter(rs -> replicas(rs) > 0).toList());
        int want = desired(d);
        if (active.size() <= 1) {
            ReplicaSet only = !active.isEmpty() ? active.get(0) : sets.current != null ? sets.current
                    : sets.old.stream().max(BY_CREATION).orElse(null);
            if (only != null) {
                scale(d, sets, only, want); // writes only when its size or sizing annotations differ
            }
            return;
        }
        ReplicaSet current = sets.current;
        if (current != null && replicas(current) == want && available(current) == want
                && Integer.toString(want).equals(annotation(current, DESIRED_REPLICAS))) {
            for (ReplicaSet rs : sets.old) {
                if (replicas(rs) > 0) {
                    scale(d, sets, rs, 0);
                }
            }
            return;
        }
        if (!"RollingUpdate".equals(strategyType(d))) {
            return;
        }
        int total = active.stream().mapToInt(DeploymentController::replicas).sum();
        int allowed = want > 0 ? want + maxSurge(d) : 0;
        int toAdd = allowed - total;
        Comparator<ReplicaSet> bySize = Comparator.comparingInt(DeploymentController::replicas);
        active.sort(toAdd > 0 ? bySize.reversed().thenComparing(BY_CREATION.reversed())
                : bySize.reversed().thenComparing(BY_CREATION));
        Map<String, Integer> sizes = new HashMap<>();
        int added = 0;
        for (ReplicaSet rs : active) {
            int proportion = 0;
            if (toAdd != 0 && toAdd != added) {
                int fraction = fraction(rs, d);
                proportion = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
            }
            sizes.put(rs.getMetadata().getName(), replicas(rs) + proportion);
            added += proportion;
        }
        if (toAdd != 0 && !active.isEmpty()) {
            String first = active.get(0).getMetadata().getName();
            sizes.put(first, Math.max(0, sizes.get(first) + toAdd - added));
        }
        for (ReplicaSet rs : active) {
            scale(d, sets, rs, sizes.get(rs.getMetadata().getName()));
        }
    }

    /** How much of a change a set takes: its share of the new size, by the size it was last given. */
    private static int fraction(ReplicaSet rs, Deployment d) {
        if (desired(d) == 0) {
            return -replicas(rs);
        }
        int deploymentReplicas = desired(d) + maxSurge(d);
        int annotated;
        try {
            annotated = Integer.parseInt(Objects.requireNonNullElse(annotation(rs, MAX_REPLICAS), ""));
        } catch (NumberFormatException e) {
            annotated = Objects.requireNonNullElse(status(d).getReplicas(), 0);
        }
        if (annotated <= 0) {
            return 0;
        }
        double newSize = (double) replicas(rs) * deploymentReplicas / annotated;
        return (int) Math.round(newSize) - replicas(rs);
    }

    /** Sets a set's replicas (and the sizing annotations); true when it wrote. */
    private boolean scale(Deployment d, Sets sets, ReplicaSet rs, int replicas) {
        int before = replicas(rs);
        boolean annotationsChanged = setReplicaAnnotations(d, rs);
        if (before == replicas && !annotationsChanged) {
            return false;
        }
        rs.getSpec().setReplicas(replicas);
        ReplicaSet updated = client.update(rs);
        if (sets.current == rs) {
            sets.current = updated;
        } else {
            sets.old.replaceAll(o -> o == rs ? updated : o);
        }
        if (before != replicas) {
            events.normal(d, "ScalingReplicaSet", "Scaled " + (replicas > before ? "up" : "down") + " replica set "
                    + rs.getMetadata().getName() + " from " + before + " to " + replicas);
        }
        return before != replicas;
    }

    private static boolean setReplicaAnnotations(Deployment d, ReplicaSet rs) {
        Map<String, String> a = annotations(rs);
        String want = Integer.toString(desired(d));
        String max = Integer.toString(desired(d) + maxSurge(d));
        boolean changed = !want.equals(a.get(DESIRED_REPLICAS)) || !max.equals(a.get(MAX_REPLICAS));
        a.put(DESIRED_REPLICAS, want);
        a.put(MAX_REPLICAS, max);
        return changed;
    }

    /** Deletes the oldest unused sets beyond revisionHistoryLimit. */
    private void cleanup(Deployment d, Sets sets) {
        Integer limit = d.getSpec().getRevisionHistoryLimit();
        if (limit == null) {
            return;
        }
        List<ReplicaSet> alive = new ArrayList<>(sets.old.stream()
                .filter(rs -> rs.getMetadata().getDeletionTimestamp() == null).toList());
        int extra = alive.size() - limit;
        if (extra <= 0) {
            return;
        }
        alive.sort(Comparator.comparingLong(DeploymentController::revision).thenComparing(BY_CREATION));
        for (int i = 0; i < extra; i++) {
            ReplicaSet rs = alive.get(i);
            boolean idle = replicas(rs) == 0 && (rs.getStatus() == null
                    || Objects.requireNonNullElse(rs.getStatus().getReplicas(), 0) == 0)
                    && Objects.requireNonNullElse(rs.getMetadata().getGeneration(), 0L)
                    <= (rs.getStatus() == null ? 0L : Objects.requireNonNullElse(rs.getStatus().getObservedGeneration(), 0L));
            if (!idle) {
                continue;
            }
            try {
                client.delete(ReplicaSet.class, rs.getMetadata().getNamespace(), rs.getMetadata().getName(), null);
            } catch (ApiException e) {
                if (e.code() != 404) {
                    throw e;
                }
            }
        }
    }

    // ---- status

    private Result syncStatusOnly(Deployment d, Sets sets) {
        DeploymentStatus next = calculateStatus(d, sets);
        writeStatus(d, next);
        return Result.DONE;
    }

    private Result syncRolloutStatus(Deployment d, Sets sets) {
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
    private Result requeueForDeadline(Deployment d, DeploymentStatus s) {
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

    private void writeStatus(Deployment d, DeploymentStatus next) {
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

    private static boolean sameStatus(DeploymentStatus a, DeploymentStatus b) {
        return a != null && Json.toTree(a).equals(Json.toTree(b));
    }

    private DeploymentStatus calculateStatus(Deployment d, Sets sets) {
        List<ReplicaSet> all = sets.all();
        int available = all.stream().mapToInt(DeploymentController::available).sum();
        int want = desired(d);
        DeploymentStatus s = new DeploymentStatus();
        s.setObservedGeneration(d.getMetadata().getGeneration());
        s.setReplicas(all.stream().mapToInt(DeploymentController::statusReplicas).sum());
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
    private static boolean progressing(DeploymentStatus before, DeploymentStatus after) {
        if (before == null) {
            before = new DeploymentStatus();
        }
        int oldBefore = n(before.getReplicas()) - n(before.getUpdatedReplicas());
        int oldAfter = n(after.getReplicas()) - n(after.getUpdatedReplicas());
        return n(after.getUpdatedReplicas()) > n(before.getUpdatedReplicas()) || oldAfter < oldBefore
                || n(after.getReadyReplicas()) > n(before.getReadyReplicas())
                || n(after.getAvailableReplicas()) > n(before.getAvailableReplicas());
    }

    private boolean timedOut(Deployment d, DeploymentStatus s) {
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
    private static DeploymentCondition replicaFailure(Sets sets) {
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
    private void checkPausedCondition(Deployment d) {
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

    private DeploymentCondition condition(String type, String status, String reason, String message) {
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
    private static void setCondition(DeploymentStatus s, DeploymentCondition c) {
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

    private static void removeCondition(DeploymentStatus s, String type) {
        if (s.getConditions() == null) {
            s.setConditions(new ArrayList<>());
        }
        s.getConditions().removeIf(c -> type.equals(c.getType()));
    }

    private static DeploymentStatus status(Deployment d) {
        if (d.getStatus() == null) {
            d.setStatus(new DeploymentStatus());
        }
        if (d.getStatus().getConditions() == null) {
            d.getStatus().setConditions(new ArrayList<>());
        }
        return d.getStatus();
    }

    // ---- spec helpers

    static int desired(Deployment d) {
        return Objects.requireNonNullElse(d.getSpec().getReplicas(), 1);
    }

    static String strategyType(Deployment d) {
        return d.getSpec().getStrategy() == null || d.getSpec().getStrategy().getType() == null ? "RollingUpdate"
                : d.getSpec().getStrategy().getType();
    }

    private static int minReadySeconds(Deployment d) {
        return Objects.requireNonNullElse(d.getSpec().getMinReadySeconds(), 0);
    }

    private static Integer progressDeadline(Deployment d) {
        return d.getSpec().getProgressDeadlineSeconds();
    }

    /** maxSurge resolved against replicas (percentages rounded up); 0 for Recreate. */
    static int maxSurge(Deployment d) {
        if (!"RollingUpdate".equals(strategyType(d))) {
            return 0;
        }
        return fenceposts(d)[0];
    }

    /** maxUnavailable resolved against replicas (percentages rounded down), at most replicas; 0 for Recreate. */
    static int maxUnavailable(Deployment d) {
        if (!"RollingUpdate".equals(strategyType(d)) || desired(d) == 0) {
            return 0;
        }
        return Math.min(fenceposts(d)[1], desired(d));
    }

    /** maxSurge and maxUnavailable; both zero is read as unavailable 1, so a rollout can move. */
    private static int[] fenceposts(Deployment d) {
        var ru = d.getSpec().getStrategy() == null ? null : d.getSpec().getStrategy().getRollingUpdate();
        int replicas = desired(d);
        int surge = ru == null ? IntOrPercent.resolve(null, "25%", replicas, true)
                : IntOrPercent.resolve(ru.getMaxSurge(), "25%", replicas, true);
        int unavailable = ru == null ? IntOrPercent.resolve(null, "25%", replicas, false)
                : IntOrPercent.resolve(ru.getMaxUnavailable(), "25%", replicas, false);
        if (surge == 0 && unavailable == 0) {
            unavailable = 1;
        }
        return new int[] {surge, unavailable};
    }

    static int replicas(ReplicaSet rs) {
        return rs == null ? 0 : Objects.requireNonNullElse(rs.getSpec().getReplicas(), 1);
    }

    private static int statusReplicas(ReplicaSet rs) {
        return rs == null || rs.getStatus() == null ? 0 : Objects.requireNonNullElse(rs.getStatus().getReplicas(), 0);
    }

    private static int available(ReplicaSet rs) {
        return rs == null || rs.getStatus() == null ? 0
                : Objects.requireNonNullElse(rs.getStatus().getAvailableReplicas(), 0);
    }

    /**
     * Available replicas a set can still have: its status, but never more than it was just
     * scaled to — a status written before a scale-down may still count pods being deleted.
     */
    private static int availableNow(ReplicaSet rs) {
        return Math.min(replicas(rs), available(rs));
    }

    private static int n(Integer v) {
        return v == null ? 0 : v;
    }

    static long revision(ReplicaSet rs) {
        try {
            return Long.parseLong(Objects.requireNonNullElse(annotation(rs, REVISION), "0"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String annotation(HasMetadata o, String key) {
        return o.getMetadata().getAnnotations() == null ? null : o.getMetadata().getAnnotations().get(key);
    }

    private static Map<String, String> annotations(HasMetadata o) {
        if (o.getMetadata().getAnnotations() == null) {
            o.getMetadata().setAnnotations(new LinkedHashMap<>());
        }
        return o.getMetadata().getAnnotations();
    }

    /** Copies the Deployment's own annotations onto the set (change-cause and the like); true when any changed. */
    private static boolean copyAnnotations(Deployment d, ReplicaSet rs) {
        boolean changed = false;
        Map<String, String> target = annotations(rs);
        for (Map.Entry<String, String> e : Objects.requireNonNullElse(d.getMetadata().getAnnotations(),
                Map.<String, String>of()).entrySet()) {
            if (NOT_COPIED.contains(e.getKey()) || e.getValue().equals(target.get(e.getKey()))) {
                continue;
            }
            target.put(e.getKey(), e.getValue());
            changed = true;
        }
        return changed;
    }

    private static Map<String, String> labels(HasMetadata o) {
        return o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels();
    }

    private static final Comparator<ReplicaSet> BY_CREATION = Comparator
            .comparing((ReplicaSet rs) -> Objects.requireNonNullElse(rs.getMetadata().getCreationTimestamp(), ""))
            .thenComparing(rs -> rs.getMetadata().getName());

    /**
     * Whether a set's template is the Deployment's, the set's {@code pod-template-hash} label
     * aside, compared as Kubernetes compares the Go structs: a field that Go cannot tell
     * from its zero value (a plain {@code bool} or number) counts the same written as
     * {@code false}/0 or left out — kubectl's rollback writes templates without them, a
     * protobuf body carries them.
     */
    static boolean sameTemplate(PodTemplateSpec ofSet, PodTemplateSpec ofDeployment) {
        ObjectNode a = Json.toTree(ofSet);
        ObjectNode b = Json.toTree(ofDeployment);
        for (ObjectNode t : List.of(a, b)) {
            if (t.path("metadata").path("labels") instanceof ObjectNode labels) {
                labels.remove(HASH_LABEL);
                if (labels.isEmpty()) {
                    ((ObjectNode) t.get("metadata")).remove("labels");
                }
            }
            dropZero(t.get("metadata"), "generation");
            if (t.path("metadata") instanceof ObjectNode meta && meta.isEmpty()) {
                t.remove("metadata");
            }
            JsonNode spec = t.get("spec");
            dropZero(spec, "hostNetwork", "hostPID", "hostIPC");
            for (String list : List.of("containers", "initContainers", "ephemeralContainers")) {
                for (JsonNode c : spec == null ? Json.MAPPER.createArrayNode() : spec.path(list)) {
                    dropZero(c, "stdin", "stdinOnce", "tty");
                    c.path("ports").forEach(p -> dropZero(p, "hostPort"));
                    c.path("volumeMounts").forEach(m -> dropZero(m, "readOnly"));
                    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                        dropZero(c.get(probe), "initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                "successThreshold", "failureThreshold");
                    }
                }
            }
        }
        return a.equals(b);
    }

    /** Removes the fields that hold their type's zero value (false, 0). */
    private static void dropZero(JsonNode node, String... fields) {
        if (!(node instanceof ObjectNode o)) {
            return;
        }
        for (String f : fields) {
            JsonNode v = o.get(f);
            if (v != null && ((v.isBoolean() && !v.asBoolean()) || (v.isNumber() && v.asLong() == 0))) {
                o.remove(f);
            }
        }
    }

    /** The template's hash as Kubernetes spells it: FNV-1a of the template and the collision count, in safe letters. */
    static String templateHash(PodTemplateSpec template, int collisionCount) {
        TemplateHash h = new TemplateHash();
        h.add(Json.toTree(template));
        if (collisionCount > 0) {
            h.addInt(collisionCount);
        }
        return h.safeEncoded();
    }

    private static <T> T copy(Object o, Class<T> type) {
        return Json.convert(Json.toTree(o), type);
    }

    // ---- informer handlers

    /** Deployment changes queue the Deployment. */
    public ResourceEventHandler<Deployment> deploymentHandler(Controller controller) {
        return controller.enqueueOnEveryChange();
    }

    /** ReplicaSet changes queue their Deployment, or for orphans every Deployment that could adopt them. */
    public ResourceEventHandler<ReplicaSet> replicaSetHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(ReplicaSet rs) {
                enqueueOwner(rs, controller);
            }

            @Override
            public void onUpdate(ReplicaSet oldRs, ReplicaSet newRs) {
                OwnerReference before = OwnerReferences.controllerOf(oldRs);
                OwnerReference after = OwnerReferences.controllerOf(newRs);
                if (before != null && (after == null || !before.getUid().equals(after.getUid()))) {
                    enqueueOwner(oldRs, controller);
                }
                enqueueOwner(newRs, controller);
            }

            @Override
            public void onDelete(ReplicaSet lastKnown, boolean finalStateUnknown) {
                OwnerReference ref = OwnerReferences.controllerOf(lastKnown);
                if (ref != null && "Deployment".equals(ref.getKind())) {
                    controller.enqueue(lastKnown.getMetadata().getNamespace() + "/" + ref.getName());
                }
            }
        };
    }

    /** A deleted pod queues its Deployment (through its ReplicaSet): Recreate waits for the last one to go. */
    public ResourceEventHandler<Pod> podHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                OwnerReference ref = OwnerReferences.controllerOf(pod);
                if (ref == null || !"ReplicaSet".equals(ref.getKind())) {
                    return;
                }
                replicaSets.get(pod.getMetadata().getNamespace() + "/" + ref.getName()).ifPresent(rs -> {
                    OwnerReference owner = OwnerReferences.controllerOf(rs);
                    if (owner != null && "Deployment".equals(owner.getKind())) {
                        controller.enqueue(rs.getMetadata().getNamespace() + "/" + owner.getName());
                    }
                });
            }
        };
    }

    private void enqueueOwner(ReplicaSet rs, Controller controller) {
        OwnerReference ref = OwnerReferences.controllerOf(rs);
        if (ref != null) {
            if ("Deployment".equals(ref.getKind())) {
                controller.enqueue(rs.getMetadata().getNamespace() + "/" + ref.getName());
            }
            return;
        }
        for (Deployment d : deployments.byIndex(Indexer.NAMESPACE_INDEX, rs.getMetadata().getNamespace())) {
            LabelSelector s = LabelSelector.fromObject(Json.toTree(d.getSpec().getSelector()));
            if (!s.isEmpty() && s.matches(labels(rs))) {
                controller.enqueue(Keys.of(d));
            }
        }
    }
}

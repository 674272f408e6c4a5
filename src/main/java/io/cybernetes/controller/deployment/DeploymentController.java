package io.cybernetes.controller.deployment;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static io.cybernetes.controller.deployment.DeploymentProgress.complete;
import static io.cybernetes.controller.deployment.DeploymentProgress.condition;
import static io.cybernetes.controller.deployment.DeploymentProgress.setCondition;
import static io.cybernetes.controller.deployment.DeploymentProgress.status;
import static io.cybernetes.controller.deployment.DeploymentSpecs.BY_CREATION;
import static io.cybernetes.controller.deployment.DeploymentSpecs.annotation;
import static io.cybernetes.controller.deployment.DeploymentSpecs.annotations;
import static io.cybernetes.controller.deployment.DeploymentSpecs.available;
import static io.cybernetes.controller.deployment.DeploymentSpecs.availableNow;
import static io.cybernetes.controller.deployment.DeploymentSpecs.copy;
import static io.cybernetes.controller.deployment.DeploymentSpecs.copyAnnotations;
import static io.cybernetes.controller.deployment.DeploymentSpecs.desired;
import static io.cybernetes.controller.deployment.DeploymentSpecs.labels;
import static io.cybernetes.controller.deployment.DeploymentSpecs.maxSurge;
import static io.cybernetes.controller.deployment.DeploymentSpecs.maxUnavailable;
import static io.cybernetes.controller.deployment.DeploymentSpecs.minReadySeconds;
import static io.cybernetes.controller.deployment.DeploymentSpecs.progressDeadline;
import static io.cybernetes.controller.deployment.DeploymentSpecs.replicas;
import static io.cybernetes.controller.deployment.DeploymentSpecs.revision;
import static io.cybernetes.controller.deployment.DeploymentSpecs.sameTemplate;
import static io.cybernetes.controller.deployment.DeploymentSpecs.strategyType;
import static io.cybernetes.controller.deployment.DeploymentSpecs.templateHash;

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
    private final DeploymentProgress progress;

    public DeploymentController(ApiClient client, Indexer<Deployment> deployments, Indexer<ReplicaSet> replicaSets,
                                Indexer<Pod> pods, EventRecorder events, Clock clock) {
        this.client = client;
        this.deployments = deployments;
        this.replicaSets = replicaSets;
        this.pods = pods;
        this.events = events;
        this.clock = clock;
        this.progress = new DeploymentProgress(client, clock);
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
            return progress.syncStatusOnly(d, sets);
        }
        progress.checkPausedCondition(d);
        if (Boolean.TRUE.equals(d.getSpec().getPaused()) || isScalingEvent(d, sets)) {
            return sync(d, sets);
        }
        if ("Recreate".equals(strategyType(d))) {
            return rolloutRecreate(d, sets);
        }
        return rolloutRolling(d, sets);
    }

    // ---- the sets of a Deployment

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
        long maxOld = sets.old.stream().mapToLong(DeploymentSpecs::revision).max().orElse(0);
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
                setCondition(status(d), progress.condition(PROGRESSING, "True", "FoundNewReplicaSet",
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
                setCondition(status(d), progress.condition(PROGRESSING, "True", "NewReplicaSetCreated",
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
            return progress.syncRolloutStatus(d, sets);
        }
        if (complete(d, progress.calculateStatus(d, sets))) {
            cleanup(d, sets);
        }
        return progress.syncRolloutStatus(d, sets);
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
            return progress.syncRolloutStatus(d, sets);
        }
        if (sets.current == null) {
            syncRevision(d, sets, true);
        }
        if (replicas(sets.current) != desired(d)) {
            scale(d, sets, sets.current, desired(d));
        }
        if (complete(d, progress.calculateStatus(d, sets))) {
            cleanup(d, sets);
        }
        return progress.syncRolloutStatus(d, sets);
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
        int total = sets.all().stream().mapToInt(DeploymentSpecs::replicas).sum();
        int maxTotal = want + maxSurge(d);
        if (total >= maxTotal) {
            return current;
        }
        return current + Math.max(0, Math.min(maxTotal - total, want - current));
    }

    /** Scales old sets down as far as availability allows, unhealthy replicas first; true when anything scaled. */
    private boolean reconcileOldReplicaSets(Deployment d, Sets sets) {
        int oldCount = sets.old.stream().mapToInt(DeploymentSpecs::replicas).sum();
        if (oldCount == 0) {
            return false;
        }
        int allCount = sets.all().stream().mapToInt(DeploymentSpecs::replicas).sum();
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
        int availableNow = sets.all().stream().mapToInt(DeploymentSpecs::availableNow).sum();
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
        return progress.syncStatusOnly(d, sets);
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
        int total = active.stream().mapToInt(DeploymentSpecs::replicas).sum();
        int allowed = want > 0 ? want + maxSurge(d) : 0;
        int toAdd = allowed - total;
        Comparator<ReplicaSet> bySize = Comparator.comparingInt(DeploymentSpecs::replicas);
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
        alive.sort(Comparator.comparingLong(DeploymentSpecs::revision).thenComparing(BY_CREATION));
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

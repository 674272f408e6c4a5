package io.cybernetes.controller.statefulset;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.ControllerHistory;
import io.cybernetes.controller.IntOrPercent;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.PodClaims;
import io.cybernetes.controller.Pods;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.cybernetes.controller.TemplateHash;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Keeps each StatefulSet's pods as Kubernetes' stateful set controller does: pod
 * {@code NAME-i} for each ordinal in range, made with its claims; with OrderedReady, one at
 * a time in order, each after the one before is running and ready, and removed from the
 * highest ordinal down, one at a time; with Parallel, all at once. The template's
 * revisions are kept as ControllerRevisions; a changed template rolls out from the highest
 * ordinal down to the partition, one pod (or maxUnavailable) at a time, a pod replaced
 * only once the ones above it are healthy; OnDelete waits for pods to be deleted. Claims
 * are kept or deleted with the set and on scale-down as its retention policy says. Status:
 * replicas, ready, available, current and updated with their revisions.
 */
public final class StatefulSetController implements Reconciler {

    public static final String NAME = "statefulset";
    static final String HASH_LABEL = "controller.kubernetes.io/hash";

    private final ApiClient client;
    private final Indexer<StatefulSet> sets;
    private final Indexer<Pod> pods;
    private final Indexer<PersistentVolumeClaim> claims;
    private final ControllerHistory history;
    private final EventRecorder events;
    private final Clock clock;

    public StatefulSetController(ApiClient client, Indexer<StatefulSet> sets, Indexer<Pod> pods,
                                 Indexer<PersistentVolumeClaim> claims, Indexer<ControllerRevision> revisions,
                                 EventRecorder events, Clock clock) {
        this.client = client;
        this.sets = sets;
        this.pods = pods;
        this.claims = claims;
        this.history = new ControllerHistory(client, revisions);
        this.events = events;
        this.clock = clock;
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        StatefulSet set = sets.get(request.key()).orElse(null);
        if (set == null || set.getMetadata().getDeletionTimestamp() != null) {
            return Result.DONE;
        }
        LabelSelector selector = LabelSelector.fromObject(Json.toTree(set.getSpec().getSelector()));
        StatefulSetStatus was = set.getStatus() == null ? new StatefulSetStatus() : set.getStatus();
        int collisions = Objects.requireNonNullElse(was.getCollisionCount(), 0);
        ControllerHistory.History revisions;
        try {
            revisions = history.sync(set, selector, ControllerHistory.templateRevision(set, set.getSpec().getTemplate(),
                    HASH_LABEL, TemplateHash.of(ControllerHistory.templatePatch(set.getSpec().getTemplate()),
                            collisions)));
        } catch (ControllerHistory.Collision c) {
            StatefulSet counted = copy(set);
            status(counted).setCollisionCount(collisions + 1);
            client.updateStatus(counted);
            return Result.REQUEUE;
        }
        ControllerRevision update = revisions.current();
        ControllerRevision current = revisions.old().stream()
                .filter(r -> r.getMetadata().getName().equals(was.getCurrentRevision())).findFirst().orElse(update);
        StatefulSet currentSet = applyRevision(set, current);
        List<Pod> owned = claimPods(set, selector);
        Instant now = clock.instant();
        Step step = new Step(set, currentSet, current.getMetadata().getName(), update.getMetadata().getName(), now);
        Duration recheck = step.run(owned);
        StatefulSetStatus status = computeStatus(set, claimPods(set, selector), current.getMetadata().getName(),
                update.getMetadata().getName(), collisions, now);
        Set<String> live = new HashSet<>(List.of(status.getCurrentRevision(), status.getUpdateRevision()));
        owned.forEach(p -> live.add(Objects.requireNonNullElse(p.getMetadata().getLabels(), Map.<String, String>of())
                .getOrDefault(ControllerHistory.REVISION_LABEL, "")));
        history.truncate(revisions, live, Objects.requireNonNullElse(set.getSpec().getRevisionHistoryLimit(), 10));
        if (!Json.toTree(status).equals(Json.toTree(was))) {
            StatefulSet next = copy(set);
            next.setStatus(status);
            client.updateStatus(next);
        }
        return recheck == null ? Result.DONE : Result.after(recheck);
    }

    /** The set with the template of a revision (the current pods' template while a rollout goes on). */
    private static StatefulSet applyRevision(StatefulSet set, ControllerRevision revision) {
        StatefulSet copy = copy(set);
        JsonNode template = Json.toTree(revision.getData()).path("spec").path("template");
        if (template.isObject()) {
            ObjectNode t = ((ObjectNode) template).deepCopy();
            t.remove("$patch");
            copy.getSpec().setTemplate(Json.convert(t, io.fabric8.kubernetes.api.model.PodTemplateSpec.class));
        }
        return copy;
    }

    /** The set's pods, after adopting matching orphans of its names and releasing those it no longer matches. */
    private List<Pod> claimPods(StatefulSet set, LabelSelector selector) {
        return PodClaims.claim(client, pods, set, p -> selector.matches(Objects.requireNonNullElse(
                p.getMetadata().getLabels(), Map.of())) && StatefulPods.ordinal(set, p) >= 0);
    }

    /** One pass over the set's pods: what it creates, deletes and mends, in Kubernetes' order. */
    private final class Step {
        private final StatefulSet set;
        private final StatefulSet currentSet;
        private final String currentRevision;
        private final String updateRevision;
        private final Instant now;
        private final boolean ordered;
        private final int minReady;
        private Duration recheck;

        Step(StatefulSet set, StatefulSet currentSet, String currentRevision, String updateRevision, Instant now) {
            this.set = set;
            this.currentSet = currentSet;
            this.currentRevision = currentRevision;
            this.updateRevision = updateRevision;
            this.now = now;
            this.ordered = !"Parallel".equals(set.getSpec().getPodManagementPolicy());
            this.minReady = Objects.requireNonNullElse(set.getSpec().getMinReadySeconds(), 0);
        }

        /** Returns when to look again (a pod about to become available), or null. */
        Duration run(List<Pod> owned) {
            int start = StatefulPods.start(set);
            int replicas = Objects.requireNonNullElse(set.getSpec().getReplicas(), 1);
            Pod[] slots = new Pod[replicas];
            List<Pod> condemned = new ArrayList<>();
            for (Pod p : owned) {
                int ord = StatefulPods.ordinal(set, p);
                if (ord >= start && ord < start + replicas) {
                    slots[ord - start] = p;
                } else {
                    condemned.add(p);
                }
            }
            condemned.sort((a, b) -> Integer.compare(StatefulPods.ordinal(set, a), StatefulPods.ordinal(set, b)));
            Pod firstUnhealthy = null;
            for (Pod p : slots) {
                if (p != null && !healthy(p) && firstUnhealthy == null) {
                    firstUnhealthy = p;
                }
            }
            for (Pod p : condemned) {
                if (firstUnhealthy == null && !healthy(p)) {
                    firstUnhealthy = p;
                }
            }
            // the pods of the range: made in order, failed ones replaced, identities kept
            for (int i = 0; i < replicas; i++) {
                int ord = start + i;
                Pod p = slots[i];
                if (p != null && finished(p) && p.getMetadata().getDeletionTimestamp() == null) {
                    delete(p, deleted(p));
                    if (ordered) {
                        return recheck;
                    }
                    continue;
                }
                if (p == null) {
                    create(ord);
                    if (ordered) {
                        return recheck;
                    }
                    continue;
                }
                if ("Pending".equals(phase(p)) && p.getMetadata().getDeletionTimestamp() == null) {
                    createClaims(p.getMetadata().getName()); // a claim deleted under a waiting pod is made again
                }
                if (ordered && (p.getMetadata().getDeletionTimestamp() != null || !available(p))) {
                    return recheck;
                }
                if (!StatefulPods.identityMatches(set, p, ord) && p.getMetadata().getDeletionTimestamp() == null) {
                    Pod mended = Json.convert(Json.toTree(p), Pod.class);
                    StatefulPods.establishIdentity(set, mended, ord);
                    client.update(mended);
                }
            }
            // the pods beyond it: removed from the highest ordinal down
            for (int i = condemned.size() - 1; i >= 0; i--) {
                Pod p = condemned.get(i);
                if (p.getMetadata().getDeletionTimestamp() != null) {
                    if (ordered) {
                        return recheck;
                    }
                    continue;
                }
                if (ordered && !healthy(p) && p != firstUnhealthy) {
                    return recheck;
                }
                retainOrRelease(p);
                delete(p, deleted(p));
                if (ordered) {
                    return recheck;
                }
            }
            if ("RollingUpdate".equals(set.getSpec().getUpdateStrategy().getType())) {
                rollingUpdate(slots);
            }
            return recheck;
        }

        /**
         * From the highest ordinal down to the partition, old pods are deleted (the pass that
         * follows makes them again from the update revision): one at a time, each after the
         * ones above are healthy; with maxUnavailable, as many as leave no more than that
         * many pods of the set unhealthy.
         */
        private void rollingUpdate(Pod[] slots) {
            var ru = set.getSpec().getUpdateStrategy().getRollingUpdate();
            int updateMin = Math.max(0, partition());
            if (ru == null || ru.getMaxUnavailable() == null) {
                for (int i = slots.length - 1; i >= updateMin; i--) {
                    Pod p = slots[i];
                    if (p == null) {
                        return;
                    }
                    if (!updateRevision.equals(revision(p)) && p.getMetadata().getDeletionTimestamp() == null) {
                        delete(p, deleted(p));
                        return;
                    }
                    if (!healthy(p)) {
                        return;
                    }
                }
                return;
            }
            int maxUnavailable = Math.max(1, IntOrPercent.resolve(ru.getMaxUnavailable(), "1", slots.length, false));
            int unhealthy = 0;
            for (Pod p : slots) {
                unhealthy += p == null || !healthy(p) ? 1 : 0;
            }
            int room = maxUnavailable - unhealthy;
            for (int i = slots.length - 1; i >= updateMin && room > 0; i--) {
                Pod p = slots[i];
                if (p != null && !updateRevision.equals(revision(p)) && p.getMetadata().getDeletionTimestamp() == null) {
                    delete(p, deleted(p));
                    room--;
                }
            }
        }

        private String deleted(Pod p) {
            return "delete Pod " + p.getMetadata().getName() + " in StatefulSet " + name() + " successful";
        }

        private void create(int ord) {
            String podName = StatefulPods.podName(set, ord);
            if (!createClaims(podName)) {
                return;
            }
            boolean fromCurrent = ord < StatefulPods.start(set) + partition();
            Pod pod = StatefulPods.newPod(set, fromCurrent ? currentSet : set, fromCurrent ? currentRevision
                    : updateRevision, ord);
            try {
                client.create(pod);
                events.normal(set, "SuccessfulCreate", "create Pod " + pod.getMetadata().getName() + " in StatefulSet "
                        + name() + " successful");
            } catch (ApiException e) {
                if (e.code() != 409) {
                    events.warning(set, "FailedCreate", "create Pod " + pod.getMetadata().getName()
                            + " in StatefulSet " + name() + " failed error: " + e.getMessage());
                    throw e;
                }
            }
        }

        /**
         * Makes the claims the pod needs that do not exist; false when one is being deleted
         * (a claim from before a quick scale-down and up): the pod waits for it to go.
         */
        private boolean createClaims(String podName) {
            for (PersistentVolumeClaim c : StatefulPods.claims(set, podName)) {
                var existing = claims.get(set.getMetadata().getNamespace() + "/" + c.getMetadata().getName());
                if (existing.isPresent()) {
                    if (existing.get().getMetadata().getDeletionTimestamp() != null) {
                        Duration wait = Duration.ofSeconds(1);
                        recheck = recheck == null || wait.compareTo(recheck) < 0 ? wait : recheck;
                        return false;
                    }
                    continue;
                }
                try {
                    client.create(c);
                    events.normal(set, "SuccessfulCreate", "create Claim " + c.getMetadata().getName() + " Pod "
                            + podName + " in StatefulSet " + name() + " success");
                } catch (ApiException e) {
                    if (e.code() != 409) {
                        events.warning(set, "FailedCreate", "create Claim " + c.getMetadata().getName()
                                + " for Pod " + podName + " in StatefulSet " + name() + " failed error: "
                                + e.getMessage());
                        throw e;
                    }
                }
            }
            return true;
        }

        /** The ordinals below the partition keep the current revision (RollingUpdate only). */
        private int partition() {
            var strategy = set.getSpec().getUpdateStrategy();
            if (!"RollingUpdate".equals(strategy.getType()) || strategy.getRollingUpdate() == null) {
                return 0;
            }
            return Objects.requireNonNullElse(strategy.getRollingUpdate().getPartition(), 0);
        }

        /** On scale-down, a claim whose set deletes claims when scaled is owned by the pod alone, to go with it. */
        private void retainOrRelease(Pod p) {
            var policy = set.getSpec().getPersistentVolumeClaimRetentionPolicy();
            if (policy == null || !"Delete".equals(policy.getWhenScaled())) {
                return;
            }
            for (PersistentVolumeClaim t : Objects.requireNonNullElse(set.getSpec().getVolumeClaimTemplates(),
                    List.<PersistentVolumeClaim>of())) {
                String name = StatefulPods.claimName(t, p.getMetadata().getName());
                claims.get(set.getMetadata().getNamespace() + "/" + name).ifPresent(c -> {
                    // the claim goes with its pod alone: the set no longer owns it
                    List<OwnerReference> refs = new ArrayList<>(Objects.requireNonNullElse(
                            c.getMetadata().getOwnerReferences(), List.of()));
                    boolean setOwned = refs.removeIf(r -> r.getUid().equals(set.getMetadata().getUid()));
                    if (setOwned || refs.stream().noneMatch(r -> r.getUid().equals(p.getMetadata().getUid()))) {
                        refs.add(StatefulPods.owner(p));
                        client.patch(PersistentVolumeClaim.class, c.getMetadata().getNamespace(), name,
                                "{\"metadata\":{\"ownerReferences\":" + Json.write(Json.MAPPER.valueToTree(refs))
                                        + "}}");
                    }
                });
            }
        }

        private void delete(Pod p, String message) {
            try {
                client.delete(Pod.class, p.getMetadata().getNamespace(), p.getMetadata().getName(), null);
                events.normal(set, "SuccessfulDelete", message);
            } catch (ApiException e) {
                if (e.code() != 404) {
                    throw e;
                }
            }
        }

        private boolean healthy(Pod p) {
            return p.getMetadata().getDeletionTimestamp() == null && !finished(p) && available(p);
        }

        private boolean available(Pod p) {
            if (!"Running".equals(phase(p)) || !Pods.ready(p)) {
                return false;
            }
            if (minReady <= 0) {
                return true;
            }
            Instant since = Pods.readySince(p);
            if (since == null) {
                return false;
            }
            Instant at = since.plusSeconds(minReady);
            if (at.isAfter(now)) {
                Duration wait = Duration.between(now, at);
                recheck = recheck == null || wait.compareTo(recheck) < 0 ? wait : recheck;
                return false;
            }
            return true;
        }

        private String name() {
            return set.getMetadata().getName();
        }
    }

    private static String revision(Pod p) {
        return Objects.requireNonNullElse(p.getMetadata().getLabels(), Map.<String, String>of())
                .get(ControllerHistory.REVISION_LABEL);
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }

    private static boolean finished(Pod p) {
        return "Failed".equals(phase(p)) || "Succeeded".equals(phase(p));
    }

    /**
     * The counts as Kubernetes makes them; once every pod is of the update revision and
     * ready, the update revision becomes the current one.
     */
    private StatefulSetStatus computeStatus(StatefulSet set, List<Pod> owned, String current, String update,
                                            int collisions, Instant now) {
        int minReady = Objects.requireNonNullElse(set.getSpec().getMinReadySeconds(), 0);
        StatefulSetStatus st = new StatefulSetStatus();
        st.setObservedGeneration(set.getMetadata().getGeneration());
        st.setCollisionCount(collisions);
        st.setCurrentRevision(current);
        st.setUpdateRevision(update);
        int replicas = 0;
        int ready = 0;
        int available = 0;
        int currentCount = 0;
        int updated = 0;
        for (Pod p : owned) {
            replicas++;
            if ("Running".equals(phase(p)) && Pods.ready(p)) {
                ready++;
                available += Pods.available(p, minReady, now) ? 1 : 0;
            }
            if (p.getMetadata().getDeletionTimestamp() == null) {
                String revision = Objects.requireNonNullElse(p.getMetadata().getLabels(), Map.<String, String>of())
                        .get(ControllerHistory.REVISION_LABEL);
                currentCount += current.equals(revision) ? 1 : 0;
                updated += update.equals(revision) ? 1 : 0;
            }
        }
        st.setReplicas(replicas);
        st.setReadyReplicas(ready);
        st.setAvailableReplicas(available);
        st.setCurrentReplicas(currentCount);
        st.setUpdatedReplicas(updated);
        int want = Objects.requireNonNullElse(set.getSpec().getReplicas(), 1);
        if ("RollingUpdate".equals(set.getSpec().getUpdateStrategy().getType()) && updated == want && ready == want
                && replicas == want) {
            st.setCurrentReplicas(updated);
            st.setCurrentRevision(update);
        }
        return st;
    }

    private static StatefulSetStatus status(StatefulSet set) {
        if (set.getStatus() == null) {
            set.setStatus(new StatefulSetStatus());
        }
        return set.getStatus();
    }

    private static StatefulSet copy(StatefulSet set) {
        return Json.convert(Json.toTree(set), StatefulSet.class);
    }

    // ---- informer handlers: only enqueue

    public ResourceEventHandler<StatefulSet> setHandler(Controller c) {
        return c.enqueueOnAddAndUpdate();
    }

    /** A pod queues the set that controls it. */
    public ResourceEventHandler<Pod> podHandler(Controller c) {
        return c.enqueueMapped(StatefulSetController::owner);
    }

    /** A revision queues the set that owns it. */
    public ResourceEventHandler<ControllerRevision> revisionHandler(Controller c) {
        return c.enqueueMapped(StatefulSetController::owner);
    }

    private static String owner(io.fabric8.kubernetes.api.model.HasMetadata o) {
        return OwnerReferences.controllerKey(o, "StatefulSet");
    }
}

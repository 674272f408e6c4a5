package io.cybernetes.controller.replicaset;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.Expectations;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.PodClaims;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Keeps each ReplicaSet's number of pods: creates from the template what is missing (in
 * slow-start batches of 1, 2, 4, ..., at most 500 at a time, stopping at the first
 * failure) and deletes what is too many (unscheduled, pending, unready and newest
 * first); adopts orphan pods its selector matches and releases owned pods it no longer
 * matches; reports replicas, fullyLabeledReplicas, readyReplicas, availableReplicas and
 * observedGeneration. Expectations keep a lagging pod cache from causing double work.
 */
public final class ReplicaSetController implements Reconciler {

    public static final String NAME = "replicaset";
    static final String REPLICA_FAILURE = "ReplicaFailure";
    static final int BURST = 500;

    private final ApiClient client;
    private final Indexer<ReplicaSet> replicaSets;
    private final Indexer<Pod> pods;
    private final EventRecorder events;
    private final Expectations expectations = new Expectations();
    private final String ownerKind;
    private final java.util.function.UnaryOperator<ReplicaSet> statusWriter;

    public ReplicaSetController(ApiClient client, Indexer<ReplicaSet> replicaSets, Indexer<Pod> pods,
                                EventRecorder events) {
        this(client, replicaSets, pods, events, "ReplicaSet", client::updateStatus);
    }

    /**
     * The same controller for another kind of the same shape, as Kubernetes runs its
     * ReplicationController manager: the objects given as ReplicaSets of that kind (and
     * apiVersion, which the pods' owner references and events name), their status written
     * back through {@code statusWriter}.
     */
    public ReplicaSetController(ApiClient client, Indexer<ReplicaSet> replicaSets, Indexer<Pod> pods,
                                EventRecorder events, String ownerKind,
                                java.util.function.UnaryOperator<ReplicaSet> statusWriter) {
        this.client = client;
        this.replicaSets = replicaSets;
        this.pods = pods;
        this.events = events;
        this.ownerKind = ownerKind;
        this.statusWriter = statusWriter;
    }

    Expectations expectations() {
        return expectations;
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        String key = request.key();
        ReplicaSet rs = replicaSets.get(key).orElse(null);
        if (rs == null) {
            expectations.forget(key);
            return Result.DONE;
        }
        // Asked before the pods are counted: an observation landing in between would otherwise
        // satisfy the expectations while the count still misses the pod it observed.
        boolean needsSync = expectations.satisfied(key);
        LabelSelector selector = LabelSelector.fromObject(Json.toTree(rs.getSpec().getSelector()));
        List<Pod> owned = claimPods(rs, selector);
        List<Pod> active = owned.stream().filter(ReplicaSetController::isActive).toList();
        int want = Objects.requireNonNullElse(rs.getSpec().getReplicas(), 1);
        Failure failure = null;
        if (needsSync && rs.getMetadata().getDeletionTimestamp() == null) {
            int diff = active.size() - want;
            if (diff < 0) {
                failure = createPods(rs, key, Math.min(-diff, BURST));
            } else if (diff > 0) {
                failure = deletePods(rs, key, active, diff);
            }
        }
        Duration recheck = updateStatus(rs, owned, active, failure);
        if (failure != null) {
            return Result.REQUEUE;
        }
        return recheck == null ? Result.DONE : Result.after(recheck);
    }

    /** The pods this ReplicaSet controls, after adopting matching orphans and releasing owned pods it no longer matches. */
    private List<Pod> claimPods(ReplicaSet rs, LabelSelector selector) {
        return PodClaims.claim(client, pods, rs, p -> !selector.isEmpty() && selector.matches(labels(p)));
    }

    /**
     * Creates pods in slow-start batches of 1, 2, 4, ..., each batch in parallel, stopping
     * after a batch with a failure (a quota or admission refusal would refuse the rest too);
     * returns what went wrong, or null.
     */
    private Failure createPods(ReplicaSet rs, String key, int count) throws InterruptedException {
        expectations.expect(key, count, 0);
        int created = 0;
        int batch = 1;
        while (created < count) {
            int n = Math.min(batch, count - created);
            List<Future<ApiException>> results = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                results.add(WRITERS.submit(() -> {
                    try {
                        Pod pod = client.create(podFor(rs));
                        events.normal(rs, "SuccessfulCreate", "Created pod: " + pod.getMetadata().getName());
                        return null;
                    } catch (ApiException e) {
                        return e;
                    }
                }));
            }
            ApiException failure = null;
            int failed = 0;
            for (Future<ApiException> f : results) {
                ApiException e = outcome(f);
                if (e != null) {
                    failure = e;
                    failed++;
                }
            }
            created += n - failed;
            if (failure != null) {
                for (int j = 0; j < count - created; j++) {
                    expectations.creationObserved(key);
                }
                events.warning(rs, "FailedCreate", "Error creating: " + failure.getMessage());
                return new Failure("FailedCreate", failure.getMessage());
            }
            batch *= 2;
        }
        return null;
    }

    /** Why pods could not be created or deleted: the ReplicaFailure condition's reason and message. */
    private record Failure(String reason, String message) {
    }

    /** A write's outcome: null when it went through, the refusal otherwise. */
    private static ApiException outcome(Future<ApiException> f) throws InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** Threads that send a batch's writes in parallel, shared by every ReplicaSet (as a controller's goroutines). */
    private static final ExecutorService WRITERS = Executors.newFixedThreadPool(32, r -> {
        Thread t = new Thread(r, "replicaset-writer");
        t.setDaemon(true);
        return t;
    });

    private Failure deletePods(ReplicaSet rs, String key, List<Pod> active, int count) throws InterruptedException {
        List<Pod> victims = new ArrayList<>(active);
        victims.sort(DELETE_FIRST);
        victims = victims.subList(0, count);
        expectations.expect(key, 0, count);
        List<Future<ApiException>> results = new ArrayList<>(victims.size());
        for (Pod p : victims) {
            results.add(WRITERS.submit(() -> {
                try {
                    client.delete(Pod.class, p.getMetadata().getNamespace(), p.getMetadata().getName(), null);
                    return null;
                } catch (ApiException e) {
                    return e;
                }
            }));
        }
        Failure failed = null;
        List<String> deleted = new ArrayList<>();
        for (int i = 0; i < victims.size(); i++) {
            ApiException e = outcome(results.get(i));
            if (e == null) {
                deleted.add(victims.get(i).getMetadata().getName());
                continue;
            }
            expectations.deletionObserved(key);
            if (e.code() != 404) {
                failed = new Failure("FailedDelete", e.getMessage());
                events.warning(rs, "FailedDelete", "Error deleting: " + e.getMessage());
            }
        }
        // one event a pod, as Kubernetes' pod control records them
        deleted.forEach(name -> events.normal(rs, "SuccessfulDelete", "Deleted pod: " + name));
        return failed;
    }

    /** Which pods go first when there are too many: not scheduled, then pending, then not ready, then the newest. */
    static final Comparator<Pod> DELETE_FIRST = Comparator
            .comparing((Pod p) -> p.getSpec() != null && p.getSpec().getNodeName() != null
                    && !p.getSpec().getNodeName().isEmpty())
            .thenComparing(p -> !"Pending".equals(phase(p)))
            .thenComparing(ReplicaSetController::isReady)
            .thenComparing((Pod p) -> Objects.requireNonNullElse(p.getMetadata().getCreationTimestamp(), ""),
                    Comparator.reverseOrder());

    private Pod podFor(ReplicaSet rs) {
        var template = rs.getSpec().getTemplate();
        Map<String, String> labels = template.getMetadata() == null || template.getMetadata().getLabels() == null
                ? Map.of() : template.getMetadata().getLabels();
        Map<String, String> annotations = template.getMetadata() == null
                || template.getMetadata().getAnnotations() == null ? Map.of() : template.getMetadata().getAnnotations();
        return new PodBuilder().withNewMetadata().withNamespace(rs.getMetadata().getNamespace())
                .withGenerateName(rs.getMetadata().getName() + "-").withLabels(new HashMap<>(labels))
                .withAnnotations(new HashMap<>(annotations)).withOwnerReferences(OwnerReferences.controlledBy(rs)).endMetadata()
                .withSpec(Json.convert(Json.toTree(template.getSpec()), io.fabric8.kubernetes.api.model.PodSpec.class))
                .build();
    }

    /**
     * Writes the counts, and the ReplicaFailure condition while pods cannot be created or
     * deleted, if they changed; returns when to look again for pods about to become available.
     */
    private Duration updateStatus(ReplicaSet rs, List<Pod> owned, List<Pod> active, Failure failure) {
        int minReady = Objects.requireNonNullElse(rs.getSpec().getMinReadySeconds(), 0);
        Map<String, String> templateLabels = rs.getSpec().getTemplate().getMetadata() == null ? Map.of()
                : Objects.requireNonNullElse(rs.getSpec().getTemplate().getMetadata().getLabels(), Map.of());
        int fullyLabeled = 0;
        int ready = 0;
        int available = 0;
        Duration recheck = null;
        Instant now = Instant.now();
        for (Pod p : active) {
            if (labels(p).entrySet().containsAll(templateLabels.entrySet())) {
                fullyLabeled++;
            }
            Instant readySince = readySince(p);
            if (readySince != null) {
                ready++;
                Instant availableAt = readySince.plusSeconds(minReady);
                if (!availableAt.isAfter(now)) {
                    available++;
                } else {
                    Duration wait = Duration.between(now, availableAt).plusMillis(100);
                    recheck = recheck == null || wait.compareTo(recheck) < 0 ? wait : recheck;
                }
            }
        }
        ReplicaSetStatus status = new ReplicaSetStatusBuilder().withReplicas(active.size())
                .withFullyLabeledReplicas(fullyLabeled).withReadyReplicas(ready).withAvailableReplicas(available)
                .withObservedGeneration(rs.getMetadata().getGeneration())
                .withConditions(conditions(rs, failure)).build();
        if (!status.equals(rs.getStatus())) {
            ReplicaSet copy = Json.convert(Json.toTree(rs), ReplicaSet.class);
            copy.setStatus(status);
            try {
                statusWriter.apply(copy);
            } catch (ApiException e) {
                if (e.code() != 404 && e.code() != 409) {
                    throw e;
                }
                // 409: a newer version is on its way through the informer, which queues this key again
            }
        }
        return recheck;
    }

    /** The conditions with ReplicaFailure set while the last attempt failed, and gone once one succeeds. */
    private static List<ReplicaSetCondition> conditions(ReplicaSet rs, Failure failure) {
        List<ReplicaSetCondition> conditions = new ArrayList<>(rs.getStatus() == null
                || rs.getStatus().getConditions() == null ? List.of() : rs.getStatus().getConditions());
        boolean present = conditions.stream().anyMatch(c -> REPLICA_FAILURE.equals(c.getType()));
        if (failure == null) {
            conditions.removeIf(c -> REPLICA_FAILURE.equals(c.getType()));
        } else if (!present) {
            conditions.add(new ReplicaSetConditionBuilder().withType(REPLICA_FAILURE).withStatus("True")
                    .withReason(failure.reason()).withMessage(failure.message())
                    .withLastTransitionTime(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString())
                    .build());
        }
        return conditions.isEmpty() ? null : conditions;
    }

    /** Informer handlers: ReplicaSet changes, and pod changes mapped to their ReplicaSet (or to those that may adopt them). */
    public ResourceEventHandler<ReplicaSet> replicaSetHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(ReplicaSet obj) {
                controller.enqueue(Keys.of(obj));
            }

            @Override
            public void onUpdate(ReplicaSet oldObj, ReplicaSet newObj) {
                controller.enqueue(Keys.of(newObj));
            }

            @Override
            public void onDelete(ReplicaSet lastKnown, boolean finalStateUnknown) {
                expectations.forget(Keys.of(lastKnown));
                controller.enqueue(Keys.of(lastKnown));
            }
        };
    }

    public ResourceEventHandler<Pod> podHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                String owner = ownerKey(pod);
                if (owner != null) {
                    expectations.creationObserved(owner);
                    controller.enqueue(owner);
                } else {
                    enqueueMatching(pod, controller);
                }
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                String before = ownerKey(oldPod);
                String after = ownerKey(newPod);
                if (before != null && !before.equals(after)) {
                    controller.enqueue(before);
                }
                if (after != null) {
                    controller.enqueue(after);
                } else {
                    enqueueMatching(newPod, controller);
                }
            }

            @Override
            public void onDelete(Pod lastKnown, boolean finalStateUnknown) {
                String owner = ownerKey(lastKnown);
                if (owner != null) {
                    expectations.deletionObserved(owner);
                    controller.enqueue(owner);
                }
            }
        };
    }

    private void enqueueMatching(Pod pod, Controller controller) {
        for (ReplicaSet rs : replicaSets.byIndex(Indexer.NAMESPACE_INDEX, pod.getMetadata().getNamespace())) {
            LabelSelector s = LabelSelector.fromObject(Json.toTree(rs.getSpec().getSelector()));
            if (!s.isEmpty() && s.matches(labels(pod))) {
                controller.enqueue(Keys.of(rs));
            }
        }
    }

    private String ownerKey(Pod p) {
        OwnerReference ref = OwnerReferences.controllerOf(p);
        return ref == null || !ownerKind.equals(ref.getKind()) ? null
                : p.getMetadata().getNamespace() + "/" + ref.getName();
    }

    private static Map<String, String> labels(Pod p) {
        return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
    }

    private static String phase(Pod p) {
        return p.getStatus() == null || p.getStatus().getPhase() == null ? "Pending" : p.getStatus().getPhase();
    }

    static boolean isActive(Pod p) {
        String phase = phase(p);
        return p.getMetadata().getDeletionTimestamp() == null && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    static boolean isReady(Pod p) {
        return readySince(p) != null;
    }

    private static Instant readySince(Pod p) {
        if (p.getStatus() == null || p.getStatus().getConditions() == null) {
            return null;
        }
        for (PodCondition c : p.getStatus().getConditions()) {
            if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
                return c.getLastTransitionTime() == null ? Instant.EPOCH : Instant.parse(c.getLastTransitionTime());
            }
        }
        return null;
    }
}

package io.cybernetes.controller.disruption;

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
import io.cybernetes.controller.Pods;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps each PodDisruptionBudget's status, as Kubernetes' disruption controller: the pods
 * its selector matches; how many are expected (the pods themselves for a number of
 * minAvailable, else the replicas their controllers want — Deployments, ReplicaSets,
 * ReplicationControllers); how many must stay healthy (minAvailable, or the expected count
 * less maxUnavailable, percentages rounded up); how many are healthy now (Ready, not being
 * deleted, not evicted in the last two minutes); and so how many disruptions are allowed,
 * with the DisruptionAllowed condition. Evictions recorded under disruptedPods are
 * forgotten once their pod is deleted, or after two minutes.
 */
public final class DisruptionController implements Reconciler {

    public static final String NAME = "disruption";
    static final Duration DELETION_TIMEOUT = Duration.ofMinutes(2);

    private final ApiClient client;
    private final Indexer<PodDisruptionBudget> budgets;
    private final Indexer<Pod> pods;
    private final Workloads workloads;
    private final EventRecorder events;
    private final Clock clock;

    /** The caches of the controllers whose scale a percentage counts against. */
    public record Workloads(Indexer<ReplicaSet> replicaSets, Indexer<Deployment> deployments,
                            Indexer<ReplicationController> replicationControllers,
                            Indexer<StatefulSet> statefulSets) {
    }

    public DisruptionController(ApiClient client, Indexer<PodDisruptionBudget> budgets, Indexer<Pod> pods,
                                Workloads workloads, EventRecorder events, Clock clock) {
        this.client = client;
        this.budgets = budgets;
        this.pods = pods;
        this.workloads = workloads;
        this.events = events;
        this.clock = clock;
    }

    @Override
    public Result reconcile(Request request) {
        PodDisruptionBudget pdb = budgets.get(request.key()).orElse(null);
        if (pdb == null || pdb.getMetadata().getDeletionTimestamp() != null) {
            return Result.DONE;
        }
        Instant now = clock.instant();
        List<Pod> matched = selected(pdb);
        PodDisruptionBudgetStatus status = new PodDisruptionBudgetStatus();
        status.setObservedGeneration(pdb.getMetadata().getGeneration());
        Map<String, String> disrupted = new LinkedHashMap<>();
        Duration recheck = null;
        Map<String, Pod> byName = new HashMap<>();
        matched.forEach(p -> byName.put(p.getMetadata().getName(), p));
        Map<String, String> old = pdb.getStatus() == null ? Map.of()
                : Objects.requireNonNullElse(pdb.getStatus().getDisruptedPods(), Map.of());
        for (Map.Entry<String, String> e : old.entrySet()) {
            Pod p = byName.get(e.getKey());
            Instant expires = Instant.parse(e.getValue()).plus(DELETION_TIMEOUT);
            if (p != null && p.getMetadata().getDeletionTimestamp() == null && now.isBefore(expires)) {
                disrupted.put(e.getKey(), e.getValue());
                Duration wait = Duration.between(now, expires).plusMillis(100);
                recheck = recheck == null || wait.compareTo(recheck) < 0 ? wait : recheck;
            }
        }
        int healthy = 0;
        for (Pod p : matched) {
            if (p.getMetadata().getDeletionTimestamp() == null && Pods.ready(p)
                    && !disrupted.containsKey(p.getMetadata().getName())) {
                healthy++;
            }
        }
        int expected;
        int desired;
        String failure = null;
        IntOrString min = pdb.getSpec().getMinAvailable();
        IntOrString max = pdb.getSpec().getMaxUnavailable();
        try {
            if (max != null) {
                expected = expectedScale(matched);
                desired = Math.max(0, expected - scaled(max, expected));
            } else if (min != null && min.getIntVal() != null) {
                expected = matched.size();
                desired = min.getIntVal();
            } else if (min != null) {
                expected = expectedScale(matched);
                desired = scaled(min, expected);
            } else {
                expected = matched.size();
                desired = 0;
            }
        } catch (IllegalStateException e) {
            failure = e.getMessage();
            expected = 0;
            desired = 0;
        }
        int allowed = failure != null || expected <= 0 ? 0 : Math.max(0, healthy - desired);
        status.setExpectedPods(expected);
        status.setDesiredHealthy(desired);
        status.setCurrentHealthy(healthy);
        status.setDisruptionsAllowed(allowed);
        status.setDisruptedPods(disrupted.isEmpty() ? null : disrupted);
        String reason = failure != null ? "SyncFailed" : allowed > 0 ? "SufficientPods" : "InsufficientPods";
        status.setConditions(new ArrayList<>(List.of(condition(pdb, allowed > 0 ? "True" : "False", reason,
                failure == null ? "" : failure, now))));
        if (failure != null) {
            events.warning(pdb, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: "
                    + failure);
        }
        if (!Json.toTree(status).equals(Json.toTree(pdb.getStatus() == null ? new PodDisruptionBudgetStatus()
                : pdb.getStatus()))) {
            PodDisruptionBudget copy = Json.convert(Json.toTree(pdb), PodDisruptionBudget.class);
            copy.setStatus(status);
            try {
                client.updateStatus(copy);
            } catch (ApiException e) {
                if (e.code() != 404 && e.code() != 409) {
                    throw e;
                }
                return e.code() == 409 ? Result.REQUEUE : Result.DONE; // an eviction took one meanwhile
            }
        }
        return recheck == null ? Result.DONE : Result.after(recheck);
    }

    /** The condition, keeping its transition time while its status stays. */
    private static io.fabric8.kubernetes.api.model.Condition condition(PodDisruptionBudget pdb, String value,
                                                                       String reason, String message, Instant now) {
        io.fabric8.kubernetes.api.model.Condition c = new io.fabric8.kubernetes.api.model.Condition();
        c.setType("DisruptionAllowed");
        c.setStatus(value);
        c.setReason(reason);
        c.setMessage(message);
        c.setObservedGeneration(pdb.getMetadata().getGeneration());
        String since = now.truncatedTo(ChronoUnit.SECONDS).toString();
        if (pdb.getStatus() != null && pdb.getStatus().getConditions() != null) {
            for (var old : pdb.getStatus().getConditions()) {
                if ("DisruptionAllowed".equals(old.getType()) && value.equals(old.getStatus())) {
                    since = old.getLastTransitionTime();
                }
            }
        }
        c.setLastTransitionTime(since);
        return c;
    }

    /** A number, or a percentage of the total rounded up. */
    static int scaled(IntOrString v, int total) {
        if (v.getIntVal() != null) {
            return v.getIntVal();
        }
        String s = v.getStrVal();
        int pct = Integer.parseInt(s.substring(0, s.length() - 1));
        return (int) Math.ceil(pct * (double) total / 100.0);
    }

    /** What the matched pods' controllers want in all: each controller's replicas, counted once. */
    private int expectedScale(List<Pod> matched) {
        Map<String, Integer> byController = new HashMap<>();
        for (Pod p : matched) {
            OwnerReference ref = OwnerReferences.controllerOf(p);
            if (ref == null) {
                continue; // a pod of no controller is not counted, as Kubernetes leaves it out
            }
            String ns = p.getMetadata().getNamespace();
            switch (ref.getKind()) {
                case "ReplicaSet" -> {
                    ReplicaSet rs = workloads.replicaSets().get(ns + "/" + ref.getName()).orElse(null);
                    if (rs == null || !rs.getMetadata().getUid().equals(ref.getUid())) {
                        throw new IllegalStateException("replicasets.apps \"" + ref.getName() + "\" not found");
                    }
                    OwnerReference dref = OwnerReferences.controllerOf(rs);
                    Deployment d = dref == null || !"Deployment".equals(dref.getKind()) ? null
                            : workloads.deployments().get(ns + "/" + dref.getName()).orElse(null);
                    if (d != null) {
                        byController.put(d.getMetadata().getUid(), Objects.requireNonNullElse(d.getSpec().getReplicas(),
                                1));
                    } else {
                        byController.put(rs.getMetadata().getUid(), Objects.requireNonNullElse(
                                rs.getSpec().getReplicas(), 1));
                    }
                }
                case "ReplicationController" -> {
                    ReplicationController rc = workloads.replicationControllers().get(ns + "/" + ref.getName()).orElse(null);
                    if (rc == null || !rc.getMetadata().getUid().equals(ref.getUid())) {
                        throw new IllegalStateException("replicationcontrollers \"" + ref.getName() + "\" not found");
                    }
                    byController.put(rc.getMetadata().getUid(), Objects.requireNonNullElse(rc.getSpec().getReplicas(),
                            1));
                }
                case "StatefulSet" -> {
                    StatefulSet set = workloads.statefulSets().get(ns + "/" + ref.getName()).orElse(null);
                    if (set == null || !set.getMetadata().getUid().equals(ref.getUid())) {
                        throw new IllegalStateException("statefulsets.apps \"" + ref.getName() + "\" not found");
                    }
                    byController.put(set.getMetadata().getUid(), Objects.requireNonNullElse(
                            set.getSpec().getReplicas(), 1));
                }
                default -> throw new IllegalStateException("found no controllers for pod \""
                        + p.getMetadata().getName() + "\"");
            }
        }
        return byController.values().stream().mapToInt(Integer::intValue).sum();
    }

    private List<Pod> selected(PodDisruptionBudget pdb) {
        if (pdb.getSpec().getSelector() == null) {
            return List.of(); // policy/v1: no selector selects nothing
        }
        LabelSelector selector = LabelSelector.fromObject(Json.toTree(pdb.getSpec().getSelector()));
        List<Pod> out = new ArrayList<>();
        for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, pdb.getMetadata().getNamespace())) {
            Map<String, String> labels = Objects.requireNonNullElse(p.getMetadata().getLabels(), Map.of());
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            if (selector.matches(labels) && !"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                out.add(p);
            }
        }
        return out;
    }

    public ResourceEventHandler<PodDisruptionBudget> budgetHandler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }

    /** A pod that changes queues the budgets that select it, before and after. */
    public ResourceEventHandler<Pod> podHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                queue(pod, controller);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                queue(oldPod, controller);
                queue(newPod, controller);
            }

            @Override
            public void onDelete(Pod lastKnown, boolean finalStateUnknown) {
                queue(lastKnown, controller);
            }
        };
    }

    private void queue(Pod pod, Controller controller) {
        Map<String, String> labels = Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
        for (PodDisruptionBudget pdb : budgets.byIndex(Indexer.NAMESPACE_INDEX, pod.getMetadata().getNamespace())) {
            if (pdb.getSpec().getSelector() != null
                    && LabelSelector.fromObject(Json.toTree(pdb.getSpec().getSelector())).matches(labels)) {
                controller.enqueue(Keys.of(pdb));
            }
        }
    }

    /** A workload scaled changes what budgets over its pods expect: every budget of its namespace looks again. */
    public <T extends io.fabric8.kubernetes.api.model.HasMetadata> ResourceEventHandler<T> scaleHandler(
            Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onUpdate(T oldObj, T newObj) {
                for (PodDisruptionBudget pdb : budgets.byIndex(Indexer.NAMESPACE_INDEX,
                        newObj.getMetadata().getNamespace())) {
                    controller.enqueue(Keys.of(pdb));
                }
            }
        };
    }
}

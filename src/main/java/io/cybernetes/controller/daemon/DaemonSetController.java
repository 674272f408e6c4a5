package io.cybernetes.controller.daemon;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.ControllerHistory;
import io.cybernetes.controller.Expectations;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.PodClaims;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.cybernetes.controller.TemplateHash;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Runs one pod of each DaemonSet on every node that should run it, as Kubernetes' daemon
 * controller does: a node whose labels, affinity and taints admit the template gets a pod
 * pinned to it (the scheduler binds it), a node that no longer admits it loses it (an
 * untolerated NoSchedule taint keeps what runs, NoExecute does not), failed pods are
 * replaced, duplicates removed; the template's revisions are kept as ControllerRevisions
 * and a changed template rolls out node by node ({@link RollingUpdate}), or waits for pods
 * to be deleted (OnDelete); status counts desired, current, ready, available, updated and
 * misscheduled pods. Expectations keep a lagging pod cache from making it act twice.
 */
public final class DaemonSetController implements Reconciler {

    public static final String NAME = "daemonset";
    static final int BURST = 500;

    private final ApiClient client;
    private final Indexer<DaemonSet> sets;
    private final Indexer<Pod> pods;
    private final Indexer<Node> nodes;
    private final ControllerHistory history;
    private final EventRecorder events;
    private final Clock clock;
    private final Expectations expectations = new Expectations();

    public DaemonSetController(ApiClient client, Indexer<DaemonSet> sets, Indexer<Pod> pods, Indexer<Node> nodes,
                               Indexer<ControllerRevision> revisions, EventRecorder events, Clock clock) {
        this.client = client;
        this.sets = sets;
        this.pods = pods;
        this.nodes = nodes;
        this.history = new ControllerHistory(client, revisions);
        this.events = events;
        this.clock = clock;
    }

    /** What one sync decided: pods to create (by node) and pods to delete. */
    record Plan(List<String> create, List<Pod> delete) {
        Plan() {
            this(new ArrayList<>(), new ArrayList<>());
        }

        boolean isEmpty() {
            return create.isEmpty() && delete.isEmpty();
        }
    }

    /** One node's view: whether it should run the pod, and the DaemonSet's pods there (not being deleted). */
    record NodeState(Node node, DaemonPods.Placement placement, List<Pod> pods) {
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        String key = request.key();
        DaemonSet ds = sets.get(key).orElse(null);
        if (ds == null) {
            expectations.forget(key);
            return Result.DONE;
        }
        if (ds.getMetadata().getDeletionTimestamp() != null) {
            return Result.DONE;
        }
        boolean satisfied = expectations.satisfied(key);
        LabelSelector selector = LabelSelector.fromObject(Json.toTree(ds.getSpec().getSelector()));
        int collisions = ds.getStatus() == null ? 0 : Objects.requireNonNullElse(ds.getStatus().getCollisionCount(), 0);
        String hash = TemplateHash.of(Json.toTree(ds.getSpec().getTemplate()), collisions);
        ControllerHistory.History revisions;
        try {
            revisions = history.sync(ds, selector, ControllerHistory.templateRevision(ds, ds.getSpec().getTemplate(),
                    ControllerHistory.REVISION_LABEL, hash));
        } catch (ControllerHistory.Collision c) {
            DaemonSet counted = copy(ds);
            status(counted).setCollisionCount(collisions + 1);
            client.updateStatus(counted);
            return Result.REQUEUE;
        }
        Map<String, List<Pod>> byNode = claimPods(ds, selector);
        Instant now = clock.instant();
        Pod template = DaemonPods.templatePod(ds, null);
        List<NodeState> states = new ArrayList<>();
        for (Node node : nodes.list()) {
            List<Pod> here = byNode.getOrDefault(node.getMetadata().getName(), List.of());
            states.add(new NodeState(node, DaemonPods.placement(template, node), here));
        }
        if (satisfied) {
            Plan plan = manage(ds, states, byNode, hash);
            if (plan.isEmpty() && "RollingUpdate".equals(ds.getSpec().getUpdateStrategy().getType())) {
                plan = RollingUpdate.plan(ds, states, hash, now);
            }
            execute(ds, key, plan, hash);
        }
        Set<String> live = new HashSet<>();
        byNode.values().forEach(ps -> ps.forEach(p -> live.add(labels(p).getOrDefault(ControllerHistory.REVISION_LABEL,
                ""))));
        history.truncate(revisions, live, Objects.requireNonNullElse(ds.getSpec().getRevisionHistoryLimit(), 10));
        Duration recheck = updateStatus(ds, states, hash, satisfied, now);
        return recheck == null ? Result.DONE : Result.after(recheck);
    }

    /**
     * The DaemonSet's pods by the node they are for, after adopting matching orphans and
     * releasing owned pods it no longer matches; pods for no node are deleted.
     */
    private Map<String, List<Pod>> claimPods(DaemonSet ds, LabelSelector selector) {
        Map<String, List<Pod>> byNode = new HashMap<>();
        for (Pod p : PodClaims.claim(client, pods, ds, pod -> selector.matches(labels(pod)))) {
            String node = DaemonPods.targetNode(p);
            if (node != null) {
                byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(p);
            }
        }
        return byNode;
    }

    /**
     * What the nodes need, whatever the template: a pod where one should run and none does,
     * none where none may stay, failed pods replaced, one pod per node (with surge, one new
     * and one old); pods for nodes that are gone deleted.
     */
    private Plan manage(DaemonSet ds, List<NodeState> states, Map<String, List<Pod>> byNode, String hash) {
        Plan plan = new Plan();
        boolean surge = RollingUpdate.allowsSurge(ds);
        Set<String> known = new HashSet<>();
        for (NodeState s : states) {
            String name = s.node().getMetadata().getName();
            known.add(name);
            if (s.placement().shouldRun() && s.pods().isEmpty()) {
                plan.create().add(name); // a pod still being deleted there is waited for
                continue;
            }
            List<Pod> alive = s.pods().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
            if (!s.placement().shouldContinueRunning()) {
                plan.delete().addAll(alive);
                continue;
            }
            List<Pod> running = new ArrayList<>();
            for (Pod p : alive) {
                if (DaemonPods.finished(p)) {
                    boolean failed = "Failed".equals(p.getStatus().getPhase());
                    String pod = p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
                    if (failed) {
                        events.warning(ds, "FailedDaemonPod", "Found failed daemon pod " + pod + " on node " + name
                                + ", will try to kill it");
                    } else {
                        events.normal(ds, "SucceededDaemonPod", "Found succeeded daemon pod " + pod + " on node "
                                + name + ", will try to delete it");
                    }
                    plan.delete().add(p);
                } else {
                    running.add(p);
                }
            }
            // one pod a node, the oldest; with surge, the oldest new one and the oldest old one
            running.sort(OLDEST_FIRST);
            Set<Boolean> kept = new HashSet<>();
            for (Pod p : running) {
                boolean isNew = hash.equals(labels(p).get(ControllerHistory.REVISION_LABEL));
                if (!kept.add(!surge || isNew)) {
                    plan.delete().add(p);
                }
            }
        }
        byNode.forEach((node, ps) -> {
            if (!known.contains(node)) {
                ps.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null
                        && (p.getSpec().getNodeName() == null || p.getSpec().getNodeName().isEmpty()))
                        .forEach(plan.delete()::add);
            }
        });
        return plan;
    }

    static final Comparator<Pod> OLDEST_FIRST = Comparator
            .comparing((Pod p) -> Objects.requireNonNullElse(p.getMetadata().getCreationTimestamp(), ""))
            .thenComparing(p -> p.getMetadata().getName());

    /**
     * Creates in slow-start batches (1, 2, 4, ..., stopping at the first refusal: quota or
     * admission would refuse the rest too) and deletes, each expected before it is done.
     */
    private void execute(DaemonSet ds, String key, Plan plan, String hash) {
        if (plan.isEmpty()) {
            return;
        }
        expectations.expect(key, plan.create().size(), plan.delete().size());
        int batch = 1;
        int i = 0;
        ApiException failed = null;
        while (i < plan.create().size() && failed == null) {
            int end = Math.min(plan.create().size(), i + batch);
            for (; i < end; i++) {
                try {
                    Pod pod = client.create(DaemonPods.newPod(ds, plan.create().get(i), hash));
                    events.normal(ds, "SuccessfulCreate", "Created pod: " + pod.getMetadata().getName());
                } catch (ApiException e) {
                    expectations.creationObserved(key);
                    events.warning(ds, "FailedCreate", "Error creating: " + e.getMessage());
                    failed = e;
                    i++;
                    break;
                }
            }
            batch = Math.min(batch * 2, BURST);
        }
        for (; i < plan.create().size(); i++) {
            expectations.creationObserved(key); // not tried: nothing to wait for
        }
        for (Pod p : plan.delete()) {
            try {
                client.delete(Pod.class, p.getMetadata().getNamespace(), p.getMetadata().getName(), null);
                events.normal(ds, "SuccessfulDelete", "Deleted pod: " + p.getMetadata().getName());
            } catch (ApiException e) {
                expectations.deletionObserved(key);
                if (e.code() != 404) {
                    events.warning(ds, "FailedDelete", "Error deleting: " + e.getMessage());
                    failed = failed == null ? e : failed;
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** Writes the counts as Kubernetes makes them; returns when to look again for a pod about to become available. */
    private Duration updateStatus(DaemonSet ds, List<NodeState> states, String hash, boolean observed, Instant now) {
        int minReady = Objects.requireNonNullElse(ds.getSpec().getMinReadySeconds(), 0);
        String generation = DaemonPods.templateGeneration(ds);
        int desired = 0;
        int current = 0;
        int ready = 0;
        int available = 0;
        int updated = 0;
        int misscheduled = 0;
        Duration recheck = null;
        for (NodeState s : states) {
            boolean scheduled = !s.pods().isEmpty();
            if (!s.placement().shouldRun()) {
                misscheduled += scheduled ? 1 : 0;
                continue;
            }
            desired++;
            if (!scheduled) {
                continue;
            }
            current++;
            Pod pod = s.pods().stream().min(OLDEST_FIRST).orElseThrow();
            if (io.cybernetes.controller.Pods.ready(pod)) {
                ready++;
                if (DaemonPods.available(pod, minReady, now)) {
                    available++;
                } else if (minReady > 0) {
                    recheck = Duration.ofSeconds(minReady);
                }
            }
            Map<String, String> l = labels(pod);
            if (hash.equals(l.get(ControllerHistory.REVISION_LABEL))
                    || generation.equals(l.get(DaemonPods.TEMPLATE_GENERATION))) {
                updated++;
            }
        }
        DaemonSetStatus was = ds.getStatus() == null ? new DaemonSetStatus() : ds.getStatus();
        DaemonSet next = copy(ds);
        DaemonSetStatus st = status(next);
        st.setDesiredNumberScheduled(desired);
        st.setCurrentNumberScheduled(current);
        st.setNumberReady(ready);
        st.setNumberAvailable(available);
        st.setNumberUnavailable(desired - available);
        st.setUpdatedNumberScheduled(updated);
        st.setNumberMisscheduled(misscheduled);
        if (observed) {
            st.setObservedGeneration(ds.getMetadata().getGeneration());
        }
        if (!Json.toTree(st).equals(Json.toTree(was))) {
            client.updateStatus(next);
        }
        return recheck;
    }

    private static DaemonSetStatus status(DaemonSet ds) {
        if (ds.getStatus() == null) {
            ds.setStatus(new DaemonSetStatus());
        }
        return ds.getStatus();
    }

    private static DaemonSet copy(DaemonSet ds) {
        return Json.convert(Json.toTree(ds), DaemonSet.class);
    }

    private static Map<String, String> labels(io.fabric8.kubernetes.api.model.HasMetadata o) {
        return Objects.requireNonNullElse(o.getMetadata().getLabels(), Map.of());
    }

    // ---- informer handlers: only enqueue

    public ResourceEventHandler<DaemonSet> daemonSetHandler(Controller c) {
        return c.enqueueOnEveryChange();
    }

    /** A pod's DaemonSet is queued; its creation or deletion is what the expectations wait for. */
    public ResourceEventHandler<Pod> podHandler(Controller c) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                String key = owner(pod);
                if (key != null) {
                    expectations.creationObserved(key);
                    c.enqueue(key);
                }
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                String key = owner(newPod);
                if (key != null) {
                    c.enqueue(key);
                }
                String was = owner(oldPod);
                if (was != null && !was.equals(key)) {
                    c.enqueue(was);
                }
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                String key = owner(pod);
                if (key != null) {
                    expectations.deletionObserved(key);
                    c.enqueue(key);
                }
            }
        };
    }

    private static String owner(io.fabric8.kubernetes.api.model.HasMetadata o) {
        return OwnerReferences.controllerKey(o, "DaemonSet");
    }

    /** A node that comes, goes, or changes what decides placement queues every DaemonSet. */
    public ResourceEventHandler<Node> nodeHandler(Controller c) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                all();
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                if (!samePlacement(oldNode, newNode)) {
                    all();
                }
            }

            @Override
            public void onDelete(Node node, boolean finalStateUnknown) {
                all();
            }

            private void all() {
                for (DaemonSet ds : sets.list()) {
                    c.enqueue(Keys.of(ds));
                }
            }
        };
    }

    /** Whether what of a node decides where daemons run is the same: labels, taints, whether it is cordoned. */
    private static boolean samePlacement(Node a, Node b) {
        return labels(a).equals(labels(b)) && Objects.equals(taints(a), taints(b))
                && cordoned(a) == cordoned(b);
    }

    private static List<io.fabric8.kubernetes.api.model.Taint> taints(Node n) {
        return n.getSpec() == null ? List.of() : Objects.requireNonNullElse(n.getSpec().getTaints(), List.of());
    }

    private static boolean cordoned(Node n) {
        return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    }

    /** A revision queues the DaemonSet that owns it (history changed under it: a rollback, a deletion). */
    public ResourceEventHandler<ControllerRevision> revisionHandler(Controller c) {
        return c.enqueueMapped(DaemonSetController::owner);
    }
}

package io.cybernetes.controller.nodelifecycle;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.Times;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.Conflicts;
import io.cybernetes.controller.Controller;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.PodIndexes;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Watches nodes' heartbeats (their Leases in {@code kube-node-lease}) and Ready
 * conditions: a node whose lease has not changed for the grace period (by this
 * controller's own clock) gets Ready Unknown and the {@code node.kubernetes.io/unreachable}
 * taints (NoExecute and NoSchedule); a node that heartbeats but reports Ready False gets
 * the {@code node.kubernetes.io/not-ready} taints. Pods that do not tolerate the NoExecute
 * taint are evicted at once, those that tolerate it for a while when their
 * tolerationSeconds have passed since the taint appeared. A node whose lease moves again,
 * or that reports Ready again, loses the taints (its agent reports Ready itself).
 */
public final class NodeLifecycleController implements Reconciler {

    public static final String NAME = "node-lifecycle";
    public static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    public static final String NOT_READY = "node.kubernetes.io/not-ready";
    public static final String LEASE_NAMESPACE = "kube-node-lease";
    public static final String NODE_NAME_INDEX = PodIndexes.BY_NODE_NAME;

    private final ApiClient client;
    private final Indexer<Node> nodes;
    private final Indexer<Lease> leases;
    private final Indexer<Pod> pods;
    private final EventRecorder events;
    private final Duration grace;
    private final Clock clock;
    private final Map<String, Observed> observed = new ConcurrentHashMap<>();

    private record Observed(String renewTime, Instant at) {
    }

    public NodeLifecycleController(ApiClient client, Indexer<Node> nodes, Indexer<Lease> leases, Indexer<Pod> pods,
                                   EventRecorder events, Duration grace, Clock clock) {
        this.client = client;
        this.nodes = nodes;
        this.leases = leases;
        this.pods = pods;
        this.events = events;
        this.grace = grace;
        this.clock = clock;
    }

    /** The pods index this controller needs: by the node they are bound to. */
    public static void addIndexes(Indexer<Pod> pods) {
        PodIndexes.addByNodeName(pods);
    }

    @Override
    public Result reconcile(Request request) {
        String name = request.name();
        Node node = nodes.get(name).orElse(null);
        if (node == null) {
            observed.remove(name);
            return Result.DONE;
        }
        Instant now = clock.instant();
        Instant lastSeen = heartbeat(name, now);
        boolean late = Duration.between(lastSeen, now).compareTo(grace) > 0;
        Taint unreachable = noExecuteTaint(node, UNREACHABLE);
        if (late && unreachable == null) {
            markUnreachable(node, now);
            return Result.after(Duration.ofSeconds(1));
        }
        if (!late && unreachable != null) {
            changeTaints(node, taints -> taints.removeIf(t -> UNREACHABLE.equals(t.getKey())));
            events.normal(node, "NodeReady", "Node " + name + " status is now: NodeReady");
            return Result.after(Duration.ofSeconds(1));
        }
        Taint notReady = noExecuteTaint(node, NOT_READY);
        if (!late) {
            boolean reportsNotReady = "False".equals(readyStatus(node));
            if (reportsNotReady && notReady == null) {
                changeTaints(node, taints -> {
                    taints.removeIf(t -> NOT_READY.equals(t.getKey()));
                    taints.add(new TaintBuilder().withKey(NOT_READY).withEffect("NoSchedule").build());
                    taints.add(new TaintBuilder().withKey(NOT_READY).withEffect("NoExecute")
                            .withTimeAdded(seconds(now)).build());
                });
                events.normal(node, "NodeNotReady", "Node " + name + " status is now: NodeNotReady");
                return Result.after(Duration.ofSeconds(1));
            }
            if (!reportsNotReady && notReady != null) {
                changeTaints(node, taints -> taints.removeIf(t -> NOT_READY.equals(t.getKey())));
                events.normal(node, "NodeReady", "Node " + name + " status is now: NodeReady");
                return Result.after(Duration.ofSeconds(1));
            }
        }
        Taint active = unreachable != null ? unreachable : notReady;
        if (active != null) {
            return evict(name, active, now);
        }
        Duration untilLate = grace.minus(Duration.between(lastSeen, now)).plusMillis(100);
        return Result.after(untilLate.isNegative() ? Duration.ofSeconds(1) : untilLate);
    }

    /** A taint's timeAdded as Kubernetes writes it: RFC 3339 in whole seconds. */
    private static String seconds(Instant t) {
        return t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }

    private static String readyStatus(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return null;
        }
        return node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
                .map(NodeCondition::getStatus).findFirst().orElse(null);
    }

    /** When the node's lease last changed, as this controller saw it. */
    private Instant heartbeat(String node, Instant now) {
        String renew = leases.get(LEASE_NAMESPACE + "/" + node)
                .map(l -> l.getSpec() == null ? "" : String.valueOf(l.getSpec().getRenewTime())).orElse("");
        Observed o = observed.get(node);
        if (o == null || !o.renewTime().equals(renew)) {
            o = new Observed(renew, now);
            observed.put(node, o);
        }
        return o.at();
    }

    private void markUnreachable(Node node, Instant now) {
        List<NodeCondition> conditions = new ArrayList<>(node.getStatus() == null || node.getStatus().getConditions() == null
                ? List.of() : node.getStatus().getConditions());
        conditions.removeIf(c -> "Ready".equals(c.getType()));
        conditions.add(new NodeConditionBuilder().withType("Ready").withStatus("Unknown").withReason("NodeStatusUnknown")
                .withMessage("Kubelet stopped posting node status.").withLastTransitionTime(now.toString())
                .withLastHeartbeatTime(now.toString()).build());
        Node withStatus = copy(node);
        if (withStatus.getStatus() == null) {
            withStatus.setStatus(new io.fabric8.kubernetes.api.model.NodeStatus());
        }
        withStatus.getStatus().setConditions(conditions);
        try {
            withStatus = client.updateStatus(withStatus);
        } catch (ApiException e) {
            if (e.code() == 404) {
                return;
            }
            throw e;
        }
        changeTaints(withStatus, taints -> {
            taints.removeIf(t -> UNREACHABLE.equals(t.getKey()) || NOT_READY.equals(t.getKey()));
            taints.add(new TaintBuilder().withKey(UNREACHABLE).withEffect("NoSchedule").build());
            taints.add(new TaintBuilder().withKey(UNREACHABLE).withEffect("NoExecute").withTimeAdded(seconds(now))
                    .build());
        });
        events.normal(node, "NodeNotReady", "Node " + node.getMetadata().getName() + " status is now: NodeNotReady");
    }

    /** Evicts the pods whose time under the NoExecute taint is up; returns when to look again for the others. */
    private Result evict(String node, Taint taint, Instant now) {
        Instant tainted = taint.getTimeAdded() == null ? now : Instant.parse(taint.getTimeAdded());
        Duration next = null;
        for (Pod p : pods.byIndex(NODE_NAME_INDEX, node)) {
            if (p.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            Duration tolerated = toleratedFor(p, taint.getKey());
            if (tolerated == null) {
                continue;
            }
            Instant due = Times.plus(tainted, tolerated);
            if (!due.isAfter(now)) {
                try {
                    client.delete(Pod.class, p.getMetadata().getNamespace(), p.getMetadata().getName(), null);
                    events.normal(p, "TaintManagerEviction", "Marking for deletion Pod " + p.getMetadata().getNamespace()
                            + "/" + p.getMetadata().getName());
                } catch (ApiException e) {
                    if (e.code() != 404) {
                        throw e;
                    }
                }
            } else {
                Duration wait = Duration.between(now, due);
                next = next == null || wait.compareTo(next) < 0 ? wait : next;
            }
        }
        return Result.after(next == null ? Duration.ofSeconds(5) : next.plusMillis(100));
    }

    /** How long the pod stays on a node with the NoExecute taint: zero without a matching toleration, null for ever. */
    static Duration toleratedFor(Pod p, String taintKey) {
        if (p.getSpec() == null || p.getSpec().getTolerations() == null) {
            return Duration.ZERO;
        }
        Duration best = Duration.ZERO;
        for (Toleration t : p.getSpec().getTolerations()) {
            boolean keyMatches = taintKey.equals(t.getKey())
                    || ((t.getKey() == null || t.getKey().isEmpty()) && "Exists".equals(t.getOperator()));
            boolean effectMatches = t.getEffect() == null || t.getEffect().isEmpty() || "NoExecute".equals(t.getEffect());
            if (keyMatches && effectMatches) {
                if (t.getTolerationSeconds() == null) {
                    return null;
                }
                Duration d = Times.ofSeconds(t.getTolerationSeconds());
                best = d.compareTo(best) > 0 ? d : best;
            }
        }
        return best;
    }

    private static Taint noExecuteTaint(Node node, String key) {
        if (node.getSpec() == null || node.getSpec().getTaints() == null) {
            return null;
        }
        for (Taint t : node.getSpec().getTaints()) {
            if (key.equals(t.getKey()) && "NoExecute".equals(t.getEffect())) {
                return t;
            }
        }
        return null;
    }

    /**
     * Changes the node's taints, starting from the version at hand; when someone else wrote
     * the node meanwhile (409), reads it again and applies the change to that.
     */
    private void changeTaints(Node node, Consumer<List<Taint>> change) {
        AtomicReference<Node> base = new AtomicReference<>(node);
        String name = node.getMetadata().getName();
        Conflicts.retry(() -> {
            Node current = base.get();
            if (current == null) {
                return null;
            }
            Node changed = copy(current);
            if (changed.getSpec() == null) {
                changed.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
            }
            List<Taint> taints = new ArrayList<>(Objects.requireNonNullElse(changed.getSpec().getTaints(), List.of()));
            change.accept(taints);
            changed.getSpec().setTaints(taints);
            try {
                return client.update(changed);
            } catch (ApiException e) {
                if (e.code() == 404) {
                    return null;
                }
                if (e.code() == 409) {
                    base.set(client.get(Node.class, null, name).orElse(null));
                }
                throw e;
            }
        });
    }

    private static Node copy(Node node) {
        return Json.convert(Json.toTree(node), Node.class);
    }

    /** Nodes added or changed are looked at (a new node starts its grace period). */
    public ResourceEventHandler<Node> nodeHandler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }

    /** A node's heartbeat (its Lease in kube-node-lease) queues the node. */
    public ResourceEventHandler<Lease> leaseHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Lease lease) {
                onUpdate(null, lease);
            }

            @Override
            public void onUpdate(Lease oldLease, Lease lease) {
                if (LEASE_NAMESPACE.equals(lease.getMetadata().getNamespace())) {
                    controller.enqueue(lease.getMetadata().getName());
                }
            }

            @Override
            public void onDelete(Lease lease, boolean finalStateUnknown) {
                onUpdate(null, lease);
            }
        };
    }
}

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * or that reports Ready again, loses the taints (its agent reports Ready itself). The
 * zones' health ({@link ZoneStates}) decides whether nodes are tainted NoExecute and their
 * pods evicted at all: not while every node is not ready, as after the API itself was down.
 * A node first seen gets a whole grace period, so a restarted controller waits too.
 */
public final class NodeLifecycleController implements Reconciler {

    private static final Logger log = LoggerFactory.getLogger(NodeLifecycleController.class);

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
    /** How often the zones' states are judged again at most (Kubernetes: its node monitor period). */
    static final Duration ZONE_INTERVAL = Duration.ofSeconds(1);
    private ZoneStates zones;
    private Instant zonesAt;
    private boolean fullDisruption;

    /** A node's lease as last seen: since when, and whether it was seen to move then (not just first seen). */
    private record Observed(String renewTime, Instant at, boolean moved) {
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
        Disruption disruption = disruption(zones(now), node);
        if (late(name, now)) {
            return unreachable(node, disruption, now);
        }
        boolean marked = taint(node, UNREACHABLE, "NoExecute") != null || taint(node, UNREACHABLE, "NoSchedule") != null;
        if (marked && !observed.get(name).moved()) {
            // not late only because its grace began anew (this controller started, or a full disruption ended)
            return Result.after(grace.minus(Duration.between(observed.get(name).at(), now)).plusMillis(100));
        }
        if (marked) {
            changeTaints(node, taints -> taints.removeIf(t -> UNREACHABLE.equals(t.getKey())));
            events.normal(node, "NodeReady", "Node " + name + " status is now: NodeReady");
            return Result.after(Duration.ofSeconds(1));
        }
        Taint notReady = taint(node, NOT_READY, "NoExecute");
        boolean tainted = notReady != null || taint(node, NOT_READY, "NoSchedule") != null;
        if ("False".equals(readyStatus(node))) {
            if (!tainted) {
                changeTaints(node, taints -> {
                    taints.add(new TaintBuilder().withKey(NOT_READY).withEffect("NoSchedule").build());
                    if (!disruption.noNewTaints()) {
                        taints.add(noExecute(NOT_READY, now));
                    }
                });
                events.normal(node, "NodeNotReady", "Node " + name + " status is now: NodeNotReady");
                return Result.after(Duration.ofSeconds(1));
            }
            return noExecuteAsZoneAllows(node, NOT_READY, notReady, disruption, now);
        }
        if (tainted) {
            changeTaints(node, taints -> taints.removeIf(t -> NOT_READY.equals(t.getKey())));
            events.normal(node, "NodeReady", "Node " + name + " status is now: NodeReady");
            return Result.after(Duration.ofSeconds(1));
        }
        Duration untilLate = grace.minus(Duration.between(observed.get(name).at(), now)).plusMillis(100);
        return Result.after(untilLate.isNegative() ? Duration.ofSeconds(1) : untilLate);
    }

    /** A node whose heartbeats stopped: Ready Unknown and unreachable taints, then evictions as its zone allows. */
    private Result unreachable(Node node, Disruption disruption, Instant now) {
        if (taint(node, UNREACHABLE, "NoSchedule") == null) {
            markUnreachable(node, disruption, now);
            return Result.after(Duration.ofSeconds(1));
        }
        return noExecuteAsZoneAllows(node, UNREACHABLE, taint(node, UNREACHABLE, "NoExecute"), disruption,
                now);
    }

    /**
     * What the zones' health allows on a node: no new NoExecute taint while evictions are
     * paused in its zone, and none at all (taken off where there is one: evictions stop) while
     * every zone is fully disrupted, as Kubernetes marks every node reachable then.
     */
    private record Disruption(boolean noNewTaints, boolean noTaints) {
    }

    private static Disruption disruption(ZoneStates zones, Node node) {
        return new Disruption(zones.evictionsPaused(ZoneStates.zoneOf(node)), zones.allFullyDisrupted());
    }

    /**
     * The NoExecute taint with the key as the zones allow ({@link Disruption}): added (its
     * time counting from now) when it may be, and pods evicted under it.
     */
    private Result noExecuteAsZoneAllows(Node node, String key, Taint noExecute, Disruption disruption, Instant now) {
        if (disruption.noTaints()) {
            if (noExecute != null) {
                changeTaints(node, taints -> taints.removeIf(t -> key.equals(t.getKey())
                        && "NoExecute".equals(t.getEffect())));
            }
            return Result.after(Duration.ofSeconds(5));
        }
        if (noExecute == null) {
            if (disruption.noNewTaints()) {
                return Result.after(Duration.ofSeconds(5));
            }
            changeTaints(node, taints -> taints.add(noExecute(key, now)));
            return Result.after(Duration.ofSeconds(1));
        }
        return evict(node.getMetadata().getName(), noExecute, now);
    }

    private static Taint noExecute(String key, Instant now) {
        return new TaintBuilder().withKey(key).withEffect("NoExecute").withTimeAdded(seconds(now)).build();
    }

    /** Whether the node's lease has not changed for the grace period, by this controller's clock. */
    private boolean late(String node, Instant now) {
        return Duration.between(heartbeat(node, now), now).compareTo(grace) > 0;
    }

    /**
     * The zones' states, judged again at most every {@link #ZONE_INTERVAL} from every node's
     * heartbeat and Ready condition. Leaving full disruption gives every node a new grace
     * period from now, as Kubernetes does: their heartbeats could not arrive before.
     */
    private synchronized ZoneStates zones(Instant now) {
        if (zones != null && !now.isBefore(zonesAt) && Duration.between(zonesAt, now).compareTo(ZONE_INTERVAL) < 0) {
            return zones;
        }
        ZoneStates z = ZoneStates.of(nodes.list(), n -> !late(n.getMetadata().getName(), now)
                && "True".equals(readyStatus(n)));
        boolean full = z.allFullyDisrupted();
        if (full && !fullDisruption) {
            log.warn("no node is ready: full disruption, most likely the control plane's own (heartbeats that could"
                    + " not arrive); nodes are not tainted for eviction and no pod is evicted until one is ready again");
        } else if (!full && fullDisruption) {
            log.info("a node is ready again: full disruption is over, every node has a new grace period of {}", grace);
            observed.replaceAll((n, o) -> o.at().equals(now) ? o : new Observed(o.renewTime(), now, false));
        }
        fullDisruption = full;
        zones = z;
        zonesAt = now;
        return z;
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
            o = new Observed(renew, now, o != null);
            observed.put(node, o);
        }
        return o.at();
    }

    private void markUnreachable(Node node, Disruption disruption, Instant now) {
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
            if (!disruption.noNewTaints()) {
                taints.add(noExecute(UNREACHABLE, now));
            }
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
        // looked at again within 5 s whatever the tolerations: the zones' health may take the taint off meanwhile
        Duration again = next == null ? Duration.ofSeconds(5) : next.plusMillis(100);
        return Result.after(again.compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : again);
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

    private static Taint taint(Node node, String key, String effect) {
        if (node.getSpec() == null || node.getSpec().getTaints() == null) {
            return null;
        }
        for (Taint t : node.getSpec().getTaints()) {
            if (key.equals(t.getKey()) && effect.equals(t.getEffect())) {
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

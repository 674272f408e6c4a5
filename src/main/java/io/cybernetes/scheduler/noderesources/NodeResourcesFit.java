package io.cybernetes.scheduler.noderesources;

import io.cybernetes.scheduler.framework.ClusterEvent;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Resources;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether the node has room for the pod's requests — cpu, memory, every extended
 * resource, and one more pod — and how well it fits: LeastAllocated prefers the emptiest
 * nodes (spreading), MostAllocated the fullest (bin packing), weighing cpu and memory
 * alike, on the pods' requests with cpu and memory never counted as zero.
 */
public final class NodeResourcesFit implements Plugin.PreFilter, Plugin.Filter, Plugin.Score,
        Plugin.EnqueueExtensions {

    public static final String NAME = "NodeResourcesFit";
    private static final String KEY = NAME + "/requests";
    /** The pod's requests with cpu and memory never zero, for scoring (as the PreFilter found them). */
    public static final String NON_ZERO_KEY = "NodeResourcesFit/nonZeroRequests";

    /** How nodes are scored. */
    public enum Strategy { LEAST_ALLOCATED, MOST_ALLOCATED }

    private final Strategy strategy;

    public NodeResourcesFit(Strategy strategy) {
        this.strategy = strategy;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * A pod deleted from a node leaves room (a pod slot at least, as Kubernetes counts it); a
     * node added helps when the pod fits its allocatable (its pods aside), a node changed
     * when it does and the change gave more of something the pod asks for.
     */
    private final java.util.Map<ClusterEvent, QueueingHint> events = java.util.Map.of(
            ClusterEvent.ASSIGNED_POD_DELETE, QueueingHint.ALWAYS,
            ClusterEvent.NODE_ADD, QueueingHint.nodeNowPasses(this),
            ClusterEvent.NODE_UPDATE, (pod, before, after) -> QueueingHint.nodeNowPasses(this).mayHelp(pod, null, after)
                    && moreOfWhatItNeeds(pod, (io.fabric8.kubernetes.api.model.Node) before,
                    (io.fabric8.kubernetes.api.model.Node) after));

    @Override
    public java.util.Map<ClusterEvent, QueueingHint> eventsToRegister() {
        return events;
    }

    private static boolean moreOfWhatItNeeds(Pod pod, io.fabric8.kubernetes.api.model.Node before,
                                             io.fabric8.kubernetes.api.model.Node after) {
        Resources was = NodeInfo.of(before, List.of()).allocatable();
        Resources is = NodeInfo.of(after, List.of()).allocatable();
        if (is.get("pods") > was.get("pods")) {
            return true;
        }
        for (Map.Entry<String, Long> r : Resources.requestedBy(pod).amounts().entrySet()) {
            if (r.getValue() > 0 && is.get(r.getKey()) > was.get(r.getKey())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
        Resources requested = Resources.requestedBy(pod);
        state.write(KEY, requested);
        state.write(NON_ZERO_KEY, Resources.nonZero(requested));
        return Status.SUCCESS;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        Resources want = state.read(KEY, Resources.class).orElseGet(() -> Resources.requestedBy(pod));
        List<String> reasons = new ArrayList<>();
        long allowedPods = node.allocatable().get("pods");
        if (node.pods().size() + 1 > allowedPods) {
            reasons.add("Too many pods");
        }
        for (Map.Entry<String, Long> r : want.amounts().entrySet()) {
            if (r.getValue() <= 0) {
                continue;
            }
            long free = node.allocatable().get(r.getKey()) - node.requested().get(r.getKey());
            if (r.getValue() > free) {
                reasons.add("Insufficient " + r.getKey());
            }
        }
        reasons.sort(null);
        return reasons.isEmpty() ? Status.SUCCESS : Status.unschedulable(reasons.toArray(String[]::new));
    }

    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
        Resources want = state.read(NON_ZERO_KEY, Resources.class).orElseGet(() -> Resources.nonZeroRequestedBy(pod));
        long total = 0;
        int counted = 0;
        for (String r : List.of(Resources.CPU, Resources.MEMORY)) {
            long capacity = node.allocatable().get(r);
            if (capacity <= 0) {
                continue;
            }
            long used = Math.min(capacity, node.nonZeroRequested().get(r) + want.get(r));
            total += strategy == Strategy.LEAST_ALLOCATED ? (capacity - used) * MAX_SCORE / capacity
                    : used * MAX_SCORE / capacity;
            counted++;
        }
        return counted == 0 ? 0 : total / counted;
    }
}

package io.cybernetes.scheduler.framework;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The nodes of one scheduling cycle, and which of them hold pods with required pod
 * anti-affinity (kube-scheduler's snapshot keeps the same list). Every pod's
 * InterPodAffinity PreFilter counts those pods, and at 5,000 nodes walking them all to
 * find the few that have any took more of a cycle than the rest of its PreFilters did.
 */
public final class Snapshot extends AbstractList<NodeInfo> implements RandomAccess {

    private final List<NodeInfo> nodes;
    private final List<NodeInfo> withRequiredAntiAffinity;

    /** @param withRequiredAntiAffinity those of {@code nodes} with pods of required anti-affinity */
    public Snapshot(List<NodeInfo> nodes, List<NodeInfo> withRequiredAntiAffinity) {
        this.nodes = List.copyOf(nodes);
        this.withRequiredAntiAffinity = List.copyOf(withRequiredAntiAffinity);
    }

    /** The nodes with pods of required anti-affinity: as the snapshot knows them, else found by walking them all. */
    public static List<NodeInfo> withRequiredAntiAffinity(List<NodeInfo> nodes) {
        if (nodes instanceof Snapshot s) {
            return s.withRequiredAntiAffinity;
        }
        return nodes.stream().filter(n -> !n.podsWithRequiredAntiAffinity().isEmpty()).toList();
    }

    @Override
    public NodeInfo get(int index) {
        return nodes.get(index);
    }

    @Override
    public int size() {
        return nodes.size();
    }
}

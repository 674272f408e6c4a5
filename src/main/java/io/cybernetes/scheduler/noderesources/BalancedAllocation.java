package io.cybernetes.scheduler.noderesources;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Resources;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * NodeResourcesBalancedAllocation: prefers nodes whose cpu and memory would be used in
 * the same proportion with the pod on them — the score falls with the spread (standard
 * deviation) of the two fractions.
 */
public final class BalancedAllocation implements Plugin.Score {

    public static final String NAME = "NodeResourcesBalancedAllocation";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
        Resources want = state.read(NodeResourcesFit.NON_ZERO_KEY, Resources.class)
                .orElseGet(() -> Resources.nonZeroRequestedBy(pod));
        double cpu = fraction(node, want, Resources.CPU);
        double memory = fraction(node, want, Resources.MEMORY);
        double mean = (cpu + memory) / 2;
        double deviation = Math.sqrt(((cpu - mean) * (cpu - mean) + (memory - mean) * (memory - mean)) / 2);
        return (long) ((1 - deviation) * MAX_SCORE);
    }

    private static double fraction(NodeInfo node, Resources want, String resource) {
        long capacity = node.allocatable().get(resource);
        if (capacity <= 0) {
            return 1;
        }
        return Math.min(1, (double) (node.nonZeroRequested().get(resource) + want.get(resource)) / capacity);
    }
}

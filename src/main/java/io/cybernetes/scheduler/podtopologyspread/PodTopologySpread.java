package io.cybernetes.scheduler.podtopologyspread;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.cybernetes.scheduler.nodeaffinity.NodeAffinity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Spreads matching pods across topology domains (zones, hosts ...): for each of the pod's
 * {@code topologySpreadConstraints}, the pods its labelSelector matches in its namespace
 * are counted per value of {@code topologyKey} over the nodes the pod could go to (those
 * its node selector and required affinity allow). With {@code DoNotSchedule}, a node is out
 * when putting the pod there would make its domain exceed the least populated one by more
 * than {@code maxSkew}, or when it lacks the key; with {@code ScheduleAnyway}, emptier
 * domains score higher.
 */
public final class PodTopologySpread implements Plugin.PreFilter, Plugin.Filter, Plugin.Score {

    public static final String NAME = "PodTopologySpread";
    public static final String REASON = "node(s) didn't match pod topology spread constraints";
    public static final String MISSING_LABEL = REASON + " (missing required label)";
    private static final String KEY = NAME + "/counts";

    /** One constraint with the counts of matching pods per domain. */
    private record Counted(TopologySpreadConstraint constraint, boolean selfMatch, Map<String, Integer> counts,
                           int min) {

        Counted(TopologySpreadConstraint constraint, boolean selfMatch, Map<String, Integer> counts) {
            this(constraint, selfMatch, counts, counts.values().stream().mapToInt(Integer::intValue).min().orElse(0));
        }
    }

    private static final class Counts {
        final List<Counted> constraints = new ArrayList<>();
    }

    @Override
    public String name() {
        return NAME;
    }

    private static List<TopologySpreadConstraint> constraints(Pod pod) {
        return pod.getSpec() == null ? List.of()
                : Objects.requireNonNullElse(pod.getSpec().getTopologySpreadConstraints(), List.of());
    }

    /**
     * Counts, for every constraint, the matching pods per domain over all nodes: the one
     * pass over the cluster a cycle makes. It stays cheap per node — no node-affinity check
     * for a pod without node rules, a counter per domain rather than a boxed sum, the pods of
     * a node looked at only when it has any.
     */
    @Override
    public Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
        Counts counts = new Counts();
        NodeAffinity affinity = new NodeAffinity();
        boolean nodeRules = hasNodeRules(pod);
        String namespace = pod.getMetadata().getNamespace();
        for (TopologySpreadConstraint c : constraints(pod)) {
            LabelSelector selector = LabelSelector.fromObject(Json.toTree(c.getLabelSelector()));
            Map<String, String> podLabels = Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
            Map<String, int[]> perDomain = new HashMap<>();
            for (NodeInfo node : nodes) {
                String domain = labels(node).get(c.getTopologyKey());
                if (domain == null || nodeRules && !affinity.filter(state, pod, node).isSuccess()) {
                    continue;
                }
                int[] count = perDomain.computeIfAbsent(domain, d -> new int[1]);
                List<Pod> pods = node.pods();
                for (int i = 0; i < pods.size(); i++) {
                    var meta = pods.get(i).getMetadata();
                    if (Objects.equals(meta.getNamespace(), namespace) && meta.getDeletionTimestamp() == null
                            && selector.matches(Objects.requireNonNullElse(meta.getLabels(), Map.of()))) {
                        count[0]++;
                    }
                }
            }
            Map<String, Integer> totals = new HashMap<>();
            perDomain.forEach((domain, count) -> totals.put(domain, count[0]));
            counts.constraints.add(new Counted(c, selector.matches(podLabels), totals));
        }
        state.write(KEY, counts);
        return Status.SUCCESS;
    }

    /** Whether the pod restricts its nodes (a node selector or required node affinity). */
    private static boolean hasNodeRules(Pod pod) {
        var spec = pod.getSpec();
        if (spec == null) {
            return false;
        }
        if (spec.getNodeSelector() != null && !spec.getNodeSelector().isEmpty()) {
            return true;
        }
        var affinity = spec.getAffinity() == null ? null : spec.getAffinity().getNodeAffinity();
        return affinity != null && affinity.getRequiredDuringSchedulingIgnoredDuringExecution() != null;
    }

    private static Map<String, String> labels(NodeInfo node) {
        return Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.of());
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        Counts counts = state.read(KEY, Counts.class).orElse(null);
        if (counts == null) {
            return Status.SUCCESS;
        }
        for (Counted c : counts.constraints) {
            if (!"DoNotSchedule".equals(c.constraint().getWhenUnsatisfiable())) {
                continue;
            }
            String domain = labels(node).get(c.constraint().getTopologyKey());
            if (domain == null) {
                return Status.unresolvable(MISSING_LABEL);
            }
            int skew = c.counts().getOrDefault(domain, 0) + (c.selfMatch() ? 1 : 0) - c.min();
            if (skew > Objects.requireNonNullElse(c.constraint().getMaxSkew(), 1)) {
                return Status.unschedulable(REASON);
            }
        }
        return Status.SUCCESS;
    }

    /** The matching pods already in the node's domains, over the ScheduleAnyway constraints (fewer is better). */
    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
        Counts counts = state.read(KEY, Counts.class).orElse(null);
        if (counts == null) {
            return 0;
        }
        long sum = 0;
        for (Counted c : counts.constraints) {
            if ("ScheduleAnyway".equals(c.constraint().getWhenUnsatisfiable())) {
                String domain = labels(node).get(c.constraint().getTopologyKey());
                sum += domain == null ? 0 : c.counts().getOrDefault(domain, 0);
            }
        }
        return sum;
    }

    @Override
    public void normalize(CycleState state, Pod pod, long[] scores) {
        long max = java.util.Arrays.stream(scores).max().orElse(0);
        long min = java.util.Arrays.stream(scores).min().orElse(0);
        for (int i = 0; i < scores.length; i++) {
            scores[i] = max == min ? MAX_SCORE : MAX_SCORE * (max - scores[i]) / (max - min);
        }
    }
}

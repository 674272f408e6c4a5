package io.cybernetes.scheduler.podtopologyspread;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.scheduler.framework.ClusterEvent;
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
 * domains score higher. The counts are kept up to date as pods are added or taken away in
 * thought (nominated pods, preemption's dry run).
 */
public final class PodTopologySpread implements Plugin.PreFilterExtensions, Plugin.Filter, Plugin.Score,
        Plugin.EnqueueExtensions {

    public static final String NAME = "PodTopologySpread";
    public static final String REASON = "node(s) didn't match pod topology spread constraints";
    public static final String MISSING_LABEL = REASON + " (missing required label)";
    private static final String KEY = NAME + "/counts";

    /**
     * One constraint with the counts of matching pods per domain and the smallest of them;
     * counts change as pods are added or taken away in thought.
     */
    private static final class Counted {
        final TopologySpreadConstraint constraint;
        final LabelSelector selector;
        final boolean selfMatch;
        final Map<String, int[]> counts;
        int min;

        Counted(TopologySpreadConstraint constraint, LabelSelector selector, boolean selfMatch,
                Map<String, int[]> counts) {
            this.constraint = constraint;
            this.selector = selector;
            this.selfMatch = selfMatch;
            this.counts = counts;
            this.min = smallest();
        }

        Counted copy() {
            Map<String, int[]> c = new HashMap<>(counts.size() * 2);
            counts.forEach((domain, n) -> c.put(domain, n.clone()));
            return new Counted(constraint, selector, selfMatch, c);
        }

        int count(String domain) {
            int[] n = counts.get(domain);
            return n == null ? 0 : n[0];
        }

        private int smallest() {
            int m = Integer.MAX_VALUE;
            for (int[] n : counts.values()) {
                m = Math.min(m, n[0]);
            }
            return counts.isEmpty() ? 0 : m;
        }

        /** One more or one less matching pod in the domain (a domain the pod could not go to is not counted). */
        void add(String domain, int delta) {
            int[] n = counts.get(domain);
            if (n == null) {
                return;
            }
            int before = n[0];
            n[0] += delta;
            if (delta < 0) {
                min = Math.min(min, n[0]);
            } else if (before == min) {
                min = smallest();
            }
        }
    }

    private static final class Counts implements CycleState.StateData {
        final List<Counted> constraints = new ArrayList<>();
        boolean nodeRules;

        @Override
        public Counts copy() {
            Counts c = new Counts();
            constraints.forEach(k -> c.constraints.add(k.copy()));
            c.nodeRules = nodeRules;
            return c;
        }
    }

    /**
     * A pod of the same namespace that a constraint selects, placed, changed or deleted,
     * moves the counts; a node added or deleted that has every topology key, or one changed
     * in those labels or its taints, changes the domains.
     */
    private static final java.util.Map<ClusterEvent, QueueingHint> EVENTS = java.util.Map.of(
            ClusterEvent.ASSIGNED_POD_ADD, (pod, before, after) -> spreads(pod, (Pod) after),
            ClusterEvent.ASSIGNED_POD_UPDATE, (pod, before, after) -> spreads(pod, (Pod) before) || spreads(pod, (Pod) after),
            ClusterEvent.ASSIGNED_POD_DELETE, (pod, before, after) -> spreads(pod, (Pod) before),
            ClusterEvent.NODE_ADD, (pod, before, after) -> hasKeys(pod, (io.fabric8.kubernetes.api.model.Node) after),
            ClusterEvent.NODE_DELETE, (pod, before, after) -> hasKeys(pod, (io.fabric8.kubernetes.api.model.Node) before),
            ClusterEvent.NODE_UPDATE, (pod, before, after) -> nodeChangeMatters(pod,
                    (io.fabric8.kubernetes.api.model.Node) before, (io.fabric8.kubernetes.api.model.Node) after));

    @Override
    public java.util.Map<ClusterEvent, QueueingHint> eventsToRegister() {
        return EVENTS;
    }

    /** Whether {@code other} counts for one of the pod's constraints. */
    private static boolean spreads(Pod pod, Pod other) {
        return constraints(pod).stream().anyMatch(c -> counts(pod,
                LabelSelector.fromObject(Json.toTree(c.getLabelSelector())), other));
    }

    private static boolean hasKeys(Pod pod, io.fabric8.kubernetes.api.model.Node node) {
        Map<String, String> labels = Objects.requireNonNullElse(node.getMetadata().getLabels(), Map.of());
        List<TopologySpreadConstraint> constraints = constraints(pod);
        return !constraints.isEmpty() && constraints.stream().allMatch(c -> labels.containsKey(c.getTopologyKey()));
    }

    private static boolean nodeChangeMatters(Pod pod, io.fabric8.kubernetes.api.model.Node before,
                                             io.fabric8.kubernetes.api.model.Node after) {
        if (!hasKeys(pod, before) && !hasKeys(pod, after)) {
            return false;
        }
        Map<String, String> was = Objects.requireNonNullElse(before.getMetadata().getLabels(), Map.of());
        Map<String, String> is = Objects.requireNonNullElse(after.getMetadata().getLabels(), Map.of());
        boolean keysChanged = constraints(pod).stream().anyMatch(c ->
                !Objects.equals(was.get(c.getTopologyKey()), is.get(c.getTopologyKey())));
        return keysChanged || !Objects.equals(before.getSpec() == null ? null : before.getSpec().getTaints(),
                after.getSpec() == null ? null : after.getSpec().getTaints());
    }

    @Override
    public String name() {
        return NAME;
    }

    private static List<TopologySpreadConstraint> constraints(Pod pod) {
        return pod.getSpec() == null ? List.of()
                : Objects.requireNonNullElse(pod.getSpec().getTopologySpreadConstraints(), List.of());
    }

    /** Whether {@code other} counts for a constraint of the pod: its namespace, not leaving, selected. */
    private static boolean counts(Pod pod, LabelSelector selector, Pod other) {
        var meta = other.getMetadata();
        return Objects.equals(meta.getNamespace(), pod.getMetadata().getNamespace())
                && meta.getDeletionTimestamp() == null
                && selector.matches(Objects.requireNonNullElse(meta.getLabels(), Map.of()));
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
        counts.nodeRules = hasNodeRules(pod);
        for (TopologySpreadConstraint c : constraints(pod)) {
            LabelSelector selector = LabelSelector.fromObject(Json.toTree(c.getLabelSelector()));
            Map<String, String> podLabels = Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
            Map<String, int[]> perDomain = new HashMap<>();
            for (NodeInfo node : nodes) {
                String domain = labels(node).get(c.getTopologyKey());
                if (domain == null || counts.nodeRules && !affinity.filter(state, pod, node).isSuccess()) {
                    continue;
                }
                int[] count = perDomain.computeIfAbsent(domain, d -> new int[1]);
                List<Pod> pods = node.pods();
                for (int i = 0; i < pods.size(); i++) {
                    if (counts(pod, selector, pods.get(i))) {
                        count[0]++;
                    }
                }
            }
            counts.constraints.add(new Counted(c, selector, selector.matches(podLabels), perDomain));
        }
        state.write(KEY, counts);
        return Status.SUCCESS;
    }

    @Override
    public void addPod(CycleState state, Pod pod, Pod added, NodeInfo node) {
        change(state, pod, added, node, 1);
    }

    @Override
    public void removePod(CycleState state, Pod pod, Pod removed, NodeInfo node) {
        change(state, pod, removed, node, -1);
    }

    private static void change(CycleState state, Pod pod, Pod other, NodeInfo node, int delta) {
        Counts counts = state.read(KEY, Counts.class).orElse(null);
        if (counts == null || counts.constraints.isEmpty()
                || counts.nodeRules && !new NodeAffinity().filter(state, pod, node).isSuccess()) {
            return;
        }
        for (Counted c : counts.constraints) {
            String domain = labels(node).get(c.constraint.getTopologyKey());
            if (domain != null && counts(pod, c.selector, other)) {
                c.add(domain, delta);
            }
        }
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
            if (!"DoNotSchedule".equals(c.constraint.getWhenUnsatisfiable())) {
                continue;
            }
            String domain = labels(node).get(c.constraint.getTopologyKey());
            if (domain == null) {
                return Status.unresolvable(MISSING_LABEL);
            }
            int skew = c.count(domain) + (c.selfMatch ? 1 : 0) - c.min;
            if (skew > Objects.requireNonNullElse(c.constraint.getMaxSkew(), 1)) {
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
            if ("ScheduleAnyway".equals(c.constraint.getWhenUnsatisfiable())) {
                String domain = labels(node).get(c.constraint.getTopologyKey());
                sum += domain == null ? 0 : c.count(domain);
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

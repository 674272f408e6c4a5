package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * One scheduling cycle over a profile: PreFilter; the node the pod was nominated to by an
 * earlier preemption first, taken if it fits; else Filter on the nodes (from a
 * round-robin start, stopping once enough feasible nodes are found, as
 * percentageOfNodesToScore asks), then PreScore and Score with normalisation and
 * weights; the highest total wins (ties to the first found). When no node fits, the
 * PostFilter plugins (preemption) say what could change that. Filter and Score run across
 * a pool of threads once there are enough nodes; plugins must be safe to call so. A node's
 * filters also count the pods nominated to it with at least the pod's priority, so that
 * room made by preemption is not taken by a lesser pod. What each node was told is kept
 * for explaining the decision, and for the "0/N nodes are available" message.
 */
public final class Framework implements Plugin.Handle {

    /** Below this many nodes, filtering and scoring run on the calling thread: handing work out would cost more. */
    static final int PARALLEL_FROM = 64;

    /** How many of the scored nodes a decision keeps the per-plugin breakdown of (the best ones). */
    public static final int SCORES_KEPT = 100;

    private final Profile profile;
    private final int percentageOfNodesToScore;
    private final AtomicInteger nextStart = new AtomicInteger();
    private final ForkJoinPool pool;
    private volatile Supplier<List<PodDisruptionBudget>> budgets = List::of;
    private volatile ClusterVolumes volumes = ClusterVolumes.NONE;
    private volatile java.util.function.Predicate<Pod> preempting = pod -> false;
    /** Each plugin's registered events and hints, asked once (plugins without any are absent). */
    private final Map<String, Map<ClusterEvent, Plugin.QueueingHint>> hints = new java.util.HashMap<>();
    private final java.util.Set<ClusterEvent> interesting;

    /** @param percentageOfNodesToScore 0 for Kubernetes' adaptive default */
    public Framework(Profile profile, int percentageOfNodesToScore) {
        this(profile, percentageOfNodesToScore, Runtime.getRuntime().availableProcessors());
    }

    /** @param parallelism how many threads filter and score nodes at once */
    public Framework(Profile profile, int percentageOfNodesToScore, int parallelism) {
        this.profile = profile;
        this.percentageOfNodesToScore = percentageOfNodesToScore;
        this.pool = new ForkJoinPool(Math.max(1, parallelism));
        profile.byName.forEach((name, p) -> {
            if (p instanceof Plugin.EnqueueExtensions e) {
                hints.put(name, Map.copyOf(e.eventsToRegister()));
            }
        });
        this.interesting = interesting(profile);
        profile.handleAware.forEach(p -> p.handle(this));
    }

    /** Where preemption reads the disruption budgets from: the scheduler's informer. */
    public void disruptionBudgets(Supplier<List<PodDisruptionBudget>> source) {
        this.budgets = source;
    }

    @Override
    public List<PodDisruptionBudget> disruptionBudgets() {
        return budgets.get();
    }

    /** Which pods have evictions of their preemption under way (the scheduler knows). */
    public void preemptionsRunning(java.util.function.Predicate<Pod> running) {
        this.preempting = running;
    }

    @Override
    public boolean preemptionRunning(Pod pod) {
        return preempting.test(pod);
    }

    /** Where the volume plugins read claims and volumes from: the scheduler's informers. */
    public void volumes(ClusterVolumes source) {
        this.volumes = source;
    }

    @Override
    public ClusterVolumes volumes() {
        return volumes;
    }

    /** The profile's QueueSort plugin, which orders the scheduling queue. */
    public Plugin.QueueSort queueSort() {
        return profile.queueSort();
    }

    /**
     * Whether any plugin that can reject a pod registered the event (a filtering plugin
     * that registers none is taken to want them all).
     */
    public boolean anyInterestIn(ClusterEvent event) {
        return interesting.contains(event);
    }

    private java.util.Set<ClusterEvent> interesting(Profile profile) {
        java.util.Set<ClusterEvent> events = java.util.EnumSet.noneOf(ClusterEvent.class);
        for (Plugin p : profile.byName.values()) {
            if (!(p instanceof Plugin.Filter) && !(p instanceof Plugin.PreFilter)) {
                continue;
            }
            Map<ClusterEvent, Plugin.QueueingHint> registered = hints.get(p.name());
            if (registered == null) {
                return java.util.EnumSet.allOf(ClusterEvent.class);
            }
            events.addAll(registered.keySet());
        }
        return events;
    }

    /**
     * Whether the event may let a pod that {@code rejectedBy} (plugin names) found
     * unschedulable fit: yes when no plugin is named (it failed otherwise), when one of them
     * does not say which events help it, or when one registered the event and its hint says
     * yes (a hint that fails says yes too, as in Kubernetes).
     */
    public boolean mayHelp(Pod pod, java.util.Set<String> rejectedBy, ClusterEvent event, Object before,
                           Object after) {
        if (rejectedBy.isEmpty()) {
            return true;
        }
        for (String name : rejectedBy) {
            Map<ClusterEvent, Plugin.QueueingHint> registered = hints.get(name);
            if (registered == null) {
                return true;
            }
            Plugin.QueueingHint hint = registered.get(event);
            try {
                if (hint != null && hint.mayHelp(pod, before, after)) {
                    return true;
                }
            } catch (RuntimeException failed) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code work} for 0..n-1, across the pool when there is enough of it. */
    @Override
    public void parallel(int n, IntConsumer work) {
        if (n < PARALLEL_FROM) {
            for (int i = 0; i < n; i++) {
                work.accept(i);
            }
            return;
        }
        pool.submit(() -> IntStream.range(0, n).parallel().forEach(work)).join();
    }

    /**
     * How one attempt went: the chosen node (null when none fits), every filtered node's
     * verdict, the scores, and when nothing fit what the PostFilter plugins found (null
     * when none ran); for a chosen node the cycle's state, which Reserve and Bind plugins
     * read (not kept for explaining).
     */
    public record Decision(String node, int nodesConsidered, Map<String, Status> filtered,
                           Map<String, Map<String, Long>> scores, Status preFilter,
                           Plugin.PostFilterResult postFilter, int omittedVerdicts, int omittedScores,
                           CycleState state) {

        Decision(String node, int nodesConsidered, Map<String, Status> filtered, Map<String, Map<String, Long>> scores,
                 Status preFilter, Plugin.PostFilterResult postFilter) {
            this(node, nodesConsidered, filtered, scores, preFilter, postFilter, 0, 0, null);
        }

        /**
         * The decision with at most {@code max} verdicts and scored nodes (the scores come
         * best first, the chosen one first of all), to keep it for explaining without keeping
         * thousands.
         */
        public Decision trimmed(int max) {
            if (filtered.size() <= max && scores.size() <= max) {
                return state == null ? this : new Decision(node, nodesConsidered, filtered, scores, preFilter,
                        postFilter, omittedVerdicts, omittedScores, null);
            }
            Map<String, Status> someVerdicts = new LinkedHashMap<>();
            filtered.entrySet().stream().limit(max).forEach(e -> someVerdicts.put(e.getKey(), e.getValue()));
            Map<String, Map<String, Long>> best = new LinkedHashMap<>();
            scores.entrySet().stream().limit(max).forEach(e -> best.put(e.getKey(), e.getValue()));
            return new Decision(node, nodesConsidered, someVerdicts, best, preFilter, postFilter,
                    omittedVerdicts + filtered.size() - someVerdicts.size(), omittedScores + scores.size() - best.size(),
                    null);
        }

        public boolean scheduled() {
            return node != null;
        }

        /** The plugins that rejected the pod: the PreFilter that did, or every Filter that refused a node. */
        public java.util.Set<String> rejectedBy() {
            java.util.Set<String> plugins = new java.util.TreeSet<>();
            if (preFilter != null && !preFilter.isSuccess()) {
                plugins.add(preFilter.plugin());
            }
            filtered.values().forEach(s -> plugins.add(s.plugin()));
            plugins.remove("");
            return plugins;
        }

        /** Preemption found a node for the pod once the victims are gone. */
        public boolean preempting() {
            return postFilter != null && postFilter.status().isSuccess() && postFilter.nominatedNode() != null
                    && !postFilter.nominatedNode().isEmpty();
        }

        /** "0/5 nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}." */
        public String message() {
            if (preFilter != null && !preFilter.isSuccess()) {
                return "0/" + nodesConsidered + " nodes are available: " + String.join(", ", preFilter.reasons()) + ".";
            }
            Map<String, Integer> counts = new TreeMap<>();
            for (Status s : filtered.values()) {
                for (String r : s.reasons()) {
                    counts.merge(r, 1, Integer::sum);
                }
            }
            List<String> parts = new ArrayList<>();
            counts.forEach((reason, n) -> parts.add(n + " " + reason));
            String message = "0/" + nodesConsidered + " nodes are available: " + String.join(", ", parts) + ".";
            if (postFilter != null && !postFilter.status().isSuccess()) {
                message += " preemption: " + String.join(", ", postFilter.status().reasons());
            }
            return message;
        }
    }

    /** How many feasible nodes are enough to stop filtering, as Kubernetes computes it. */
    int feasibleNodesToFind(int nodes) {
        if (nodes < 100) {
            return nodes;
        }
        int percentage = percentageOfNodesToScore;
        if (percentage <= 0) {
            percentage = Math.max(5, 50 - nodes / 125);
        }
        return Math.max(100, nodes * Math.min(percentage, 100) / 100);
    }

    public Decision schedule(Pod pod, List<NodeInfo> nodes) {
        CycleState state = new CycleState();
        Status pre = preFilter(state, pod, nodes);
        if (!pre.isSuccess()) {
            return new Decision(null, nodes.size(), Map.of(), Map.of(), pre, null);
        }
        String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
        if (nominated != null && !nominated.isEmpty()) {
            for (NodeInfo node : nodes) {
                if (node.name().equals(nominated) && filter(state, pod, node).isSuccess()) {
                    return new Decision(nominated, nodes.size(), Map.of(), Map.of(), null, null, 0, 0, state);
                }
            }
        }
        // Filter from a round-robin start, in parallel, until enough nodes are feasible.
        int want = feasibleNodesToFind(nodes.size());
        // Each pod starts one node further than the one before, so that every node comes first as often.
        // kube-scheduler starts the next pod where this one stopped, so each pod looks at 500 other nodes (at
        // 5,000); tried here, the scheduler phase's cycles took 1.4-1.8 times as long in SchedulingBasic,
        // SchedulingPreemption, Unschedulable and SchedulingWithMixedChurn, where one pod's nodes are otherwise
        // mostly the next one's (docs/benchmarks.md, 2026-12-04 night).
        int start = nodes.isEmpty() ? 0 : Math.floorMod(nextStart.getAndIncrement(), nodes.size());
        Status[] verdicts = new Status[nodes.size()];
        AtomicInteger found = new AtomicInteger();
        parallel(nodes.size(), i -> {
            if (found.get() >= want) {
                return;
            }
            NodeInfo node = nodes.get((start + i) % nodes.size());
            Status verdict = filter(state, pod, node);
            verdicts[i] = verdict;
            if (verdict.isSuccess()) {
                found.incrementAndGet();
            }
        });
        Map<String, Status> filtered = new LinkedHashMap<>();
        List<NodeInfo> feasible = new ArrayList<>();
        for (int i = 0; i < nodes.size() && feasible.size() < want; i++) {
            if (verdicts[i] == null) {
                continue;
            }
            NodeInfo node = nodes.get((start + i) % nodes.size());
            if (verdicts[i].isSuccess()) {
                feasible.add(node);
            } else {
                filtered.put(node.name(), verdicts[i]);
            }
        }
        if (feasible.isEmpty()) {
            return new Decision(null, nodes.size(), filtered, Map.of(), null, postFilter(state, pod, nodes, filtered));
        }
        for (Plugin.PreScore p : profile.preScores) {
            p.preScore(state, pod, feasible);
        }
        int n = feasible.size();
        List<Map.Entry<Plugin.Score, Long>> plugins = new ArrayList<>(profile.scores.entrySet());
        long[][] weighted = new long[plugins.size()][n];
        long[] totals = new long[n];
        // every plugin scores a node in the same pass, so that the nodes are handed out once
        parallel(n, i -> {
            for (int k = 0; k < plugins.size(); k++) {
                weighted[k][i] = plugins.get(k).getKey().score(state, pod, feasible.get(i));
            }
        });
        for (int k = 0; k < plugins.size(); k++) {
            plugins.get(k).getKey().normalize(state, pod, weighted[k]);
            long weight = plugins.get(k).getValue();
            for (int i = 0; i < n; i++) {
                weighted[k][i] *= weight;
                totals[i] += weighted[k][i];
            }
        }
        int best = 0;
        for (int i = 1; i < n; i++) {
            if (totals[i] > totals[best]) {
                best = i;
            }
        }
        // the breakdown of the best-scored nodes, the chosen one first, for explaining
        int chosen = best;
        List<Integer> order = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        order.sort((x, y) -> x == chosen ? -1 : y == chosen ? 1 : Long.compare(totals[y], totals[x]));
        Map<String, Map<String, Long>> breakdown = new LinkedHashMap<>();
        for (int i : order.subList(0, Math.min(n, SCORES_KEPT))) {
            Map<String, Long> byPlugin = new LinkedHashMap<>();
            for (int k = 0; k < plugins.size(); k++) {
                byPlugin.put(plugins.get(k).getKey().name(), weighted[k][i]);
            }
            breakdown.put(feasible.get(i).name(), byPlugin);
        }
        return new Decision(feasible.get(best).name(), nodes.size(), filtered, breakdown, null, null, 0,
                n - breakdown.size(), state);
    }

    /**
     * Runs the Reserve plugins for the chosen node; when one refuses, every Reserve plugin
     * is told to unreserve (in reverse order, as Kubernetes does) and its refusal returned.
     */
    public Status reserve(CycleState state, Pod pod, String node) {
        for (Plugin.Reserve r : profile.reserves) {
            Status s = r.reserve(state, pod, node);
            if (!s.isSuccess()) {
                unreserve(state, pod, node);
                return s.from(r.name());
            }
        }
        return Status.SUCCESS;
    }

    /** The choice is undone (a refused reserve, a failed binding): every Reserve plugin, in reverse order. */
    public void unreserve(CycleState state, Pod pod, String node) {
        for (int i = profile.reserves.size() - 1; i >= 0; i--) {
            profile.reserves.get(i).unreserve(state, pod, node);
        }
    }

    /** The first Bind plugin's binding; empty when the profile has none (the scheduler binds through pods/binding). */
    public Optional<Status> bind(CycleState state, Pod pod, String node) {
        if (profile.binds.isEmpty()) {
            return Optional.empty();
        }
        Plugin.Bind b = profile.binds.get(0);
        return Optional.of(b.bind(state, pod, node).from(b.name()));
    }

    private Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
        for (Plugin.PreFilter p : profile.preFilters) {
            Status s = p.preFilter(state, pod, nodes);
            if (!s.isSuccess()) {
                return s.from(p.name());
            }
        }
        return Status.SUCCESS;
    }

    /** The first PostFilter plugin that succeeds decides; else the last one's verdict stands. */
    private Plugin.PostFilterResult postFilter(CycleState state, Pod pod, List<NodeInfo> nodes,
                                              Map<String, Status> filtered) {
        Plugin.PostFilterResult result = null;
        for (Plugin.PostFilter p : profile.postFilters) {
            result = p.postFilter(state, pod, nodes, filtered, this);
            if (result.status().isSuccess()) {
                return result;
            }
        }
        return result;
    }

    @Override
    public Status runFilters(CycleState state, Pod pod, NodeInfo node) {
        return filter(state, pod, node);
    }

    @Override
    public void addPod(CycleState state, Pod pod, Pod added, NodeInfo node) {
        for (Plugin.PreFilterExtensions p : profile.preFilterExtensions) {
            p.addPod(state, pod, added, node);
        }
    }

    @Override
    public void removePod(CycleState state, Pod pod, Pod removed, NodeInfo node) {
        for (Plugin.PreFilterExtensions p : profile.preFilterExtensions) {
            p.removePod(state, pod, removed, node);
        }
    }

    /**
     * The node's verdict: with the pods nominated to it that are at least as important as
     * this one counted in (when there are any; the PreFilter state told of them on a copy),
     * and without them — both must pass, as in Kubernetes, since a nominated pod may leave
     * room or fail to come.
     */
    private Status filter(CycleState state, Pod pod, NodeInfo node) {
        if (!node.nominatedPods().isEmpty()) {
            int priority = Priorities.of(pod);
            NodeInfo with = node;
            CycleState withState = null;
            for (Pod n : node.nominatedPods()) {
                if (Priorities.of(n) >= priority && !sameObject(n, pod)) {
                    if (withState == null) {
                        withState = state.copy();
                    }
                    addPod(withState, pod, n, with);
                    with = with.withPod(n);
                }
            }
            if (with != node) {
                Status s = runFilterPlugins(withState, pod, with);
                if (!s.isSuccess()) {
                    return s;
                }
            }
        }
        return runFilterPlugins(state, pod, node);
    }

    private static boolean sameObject(Pod a, Pod b) {
        return a.getMetadata().getName().equals(b.getMetadata().getName())
                && java.util.Objects.equals(a.getMetadata().getNamespace(), b.getMetadata().getNamespace());
    }

    /** The first filter that refuses the node decides its verdict. */
    private Status runFilterPlugins(CycleState state, Pod pod, NodeInfo node) {
        for (Plugin.Filter f : profile.filters) {
            Status s = f.filter(state, pod, node);
            if (!s.isSuccess()) {
                return s.from(f.name());
            }
        }
        return Status.SUCCESS;
    }
}

package io.cybernetes.scheduler.defaultpreemption;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Priorities;
import io.cybernetes.scheduler.framework.Status;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * PostFilter: when a pod fits nowhere, find a node where evicting pods of lower priority
 * makes room, as kube-scheduler's DefaultPreemption does. On every node whose refusal
 * preemption could change (Unschedulable, not UnschedulableAndUnresolvable), all pods of
 * lower priority are taken away in thought; if the pod then fits, they are put back one by
 * one, the most important first (higher priority, then earlier start), and each that still
 * leaves room stays — the rest are the victims. Pods whose eviction would take a
 * PodDisruptionBudget below zero disruptions allowed are put back before the others, so a
 * budget is broken only when nothing else makes room (Kubernetes' best effort: the budgets
 * count, but do not forbid). The dry run goes over the nodes preemption could help until it has
 * found a tenth of them as candidates (at least 100), one of them breaking no budget; of those
 * the one chosen breaks the fewest budgets, then has the least important most important
 * victim, then the smallest sum of victim priorities, then the fewest victims, then the
 * latest-started most important victims. The scheduler evicts the victims and nominates the node.
 *
 * <p>A pod with {@code preemptionPolicy: Never} preempts nothing, nor does a pod whose
 * nominated node still has lower-priority pods terminating (they are leaving for it).
 */
public final class DefaultPreemption implements Plugin.PostFilter {

    public static final String NAME = "DefaultPreemption";
    static final String NO_VICTIMS = "No preemption victims found for incoming pod";
    static final String NOT_HELPFUL = "Preemption is not helpful for scheduling";
    static final int MIN_CANDIDATES_PERCENTAGE = 10;
    static final int MIN_CANDIDATES = 100;
    /** How many nodes the dry run tries at once (across the framework's threads). */
    static final int BATCH = 128;

    /** A node where the pod fits once the victims are gone, and how many of them a budget does not allow to go. */
    record Candidate(String node, List<Pod> victims, int violations) {
    }

    /** A disruption budget as preemption weighs it: which pods it covers and how many may still go. */
    record Budget(String namespace, LabelSelector selector, int allowed, Set<String> disrupted) {

        static List<Budget> of(List<PodDisruptionBudget> pdbs) {
            List<Budget> out = new ArrayList<>();
            for (PodDisruptionBudget pdb : pdbs) {
                if (pdb.getSpec() == null || pdb.getSpec().getSelector() == null) {
                    continue; // a budget without a selector covers nothing
                }
                LabelSelector selector;
                try {
                    selector = LabelSelector.fromObject(Json.toTree(pdb.getSpec().getSelector()));
                } catch (ApiException e) {
                    continue; // an invalid selector covers nothing
                }
                if (selector.isEmpty()) {
                    continue; // nor does an empty one, in policy/v1 as the scheduler reads it
                }
                PodDisruptionBudgetStatus status = pdb.getStatus();
                int allowed = status == null || status.getDisruptionsAllowed() == null ? 0
                        : status.getDisruptionsAllowed();
                Set<String> disrupted = status == null || status.getDisruptedPods() == null ? Set.of()
                        : status.getDisruptedPods().keySet();
                out.add(new Budget(pdb.getMetadata().getNamespace(), selector, allowed, disrupted));
            }
            return out;
        }

        boolean covers(Pod p) {
            Map<String, String> labels = p.getMetadata().getLabels();
            return labels != null && !labels.isEmpty() && namespace.equals(p.getMetadata().getNamespace())
                    && !disrupted.contains(p.getMetadata().getName()) && selector.matches(labels);
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public PostFilterResult postFilter(CycleState state, Pod pod, List<NodeInfo> nodes, Map<String, Status> filtered,
                                       Handle handle) {
        Optional<String> ineligible = handle.preemptionRunning(pod)
                ? Optional.of("waiting for the preemption for this pod to be finished") : ineligible(pod, nodes);
        if (ineligible.isPresent()) {
            return PostFilterResult.failed(Status.unschedulable(ineligible.get()), null);
        }
        List<Budget> budgets = Budget.of(handle.disruptionBudgets());
        Map<String, Integer> counts = new TreeMap<>();
        List<NodeInfo> potential = new ArrayList<>();
        for (NodeInfo node : nodes) {
            Status verdict = filtered.get(node.name());
            if (verdict == null || verdict.code() == Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
                counts.merge(NOT_HELPFUL, 1, Integer::sum);
            } else {
                potential.add(node);
            }
        }
        int wanted = Math.min(potential.size(),
                Math.max(MIN_CANDIDATES, potential.size() * MIN_CANDIDATES_PERCENTAGE / 100));
        // The dry run, in parallel as kube-scheduler's, a batch of nodes at a time in the nodes' order, until
        // enough candidates are found, one of them breaking no budget: the same candidates whatever the threads
        // did, and at most a batch tried in vain.
        List<Candidate> candidates = new ArrayList<>();
        int spared = 0;
        for (int from = 0; from < potential.size() && !enough(spared, candidates.size(), wanted); from += BATCH) {
            List<NodeInfo> batch = potential.subList(from, Math.min(potential.size(), from + BATCH));
            @SuppressWarnings("unchecked")
            Optional<Candidate>[] tried = new Optional[batch.size()];
            handle.parallel(batch.size(), i -> tried[i] = selectVictims(state, pod, batch.get(i), budgets, handle));
            for (int i = 0; i < tried.length && !enough(spared, candidates.size(), wanted); i++) {
                if (tried[i].isPresent()) {
                    candidates.add(tried[i].get());
                    spared += tried[i].get().violations() == 0 ? 1 : 0;
                } else {
                    counts.merge(NO_VICTIMS, 1, Integer::sum);
                }
            }
        }
        if (candidates.isEmpty()) {
            List<String> parts = new ArrayList<>();
            counts.forEach((reason, n) -> parts.add(n + " " + reason));
            return PostFilterResult.failed(Status.unschedulable("0/" + nodes.size() + " nodes are available: "
                    + String.join(", ", parts) + "."), "");
        }
        Candidate best = candidates.stream().min(CHOICE).orElseThrow();
        return new PostFilterResult(Status.SUCCESS, best.node(), best.victims());
    }

    /** Whether the dry run has found enough: {@code wanted} candidates, at least one of them breaking no budget. */
    private static boolean enough(int breakingNoBudget, int candidates, int wanted) {
        return breakingNoBudget > 0 && candidates >= wanted;
    }

    /** Why the pod may not preempt, if it may not. */
    static Optional<String> ineligible(Pod pod, List<NodeInfo> nodes) {
        if ("Never".equals(pod.getSpec().getPreemptionPolicy())) {
            return Optional.of("not eligible due to preemptionPolicy=Never.");
        }
        String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
        if (nominated == null || nominated.isEmpty()) {
            return Optional.empty();
        }
        int priority = Priorities.of(pod);
        for (NodeInfo node : nodes) {
            if (node.name().equals(nominated) && node.pods().stream().anyMatch(p ->
                    p.getMetadata().getDeletionTimestamp() != null && Priorities.of(p) < priority)) {
                return Optional.of("not eligible due to a terminating pod on the nominated node.");
            }
        }
        return Optional.empty();
    }

    /**
     * The fewest pods of lower priority whose eviction lets the pod onto the node, sparing
     * first those a budget protects; empty when evicting all of them would not do (or there
     * are none). The cycle's PreFilter state is copied and told of each pod taken away and
     * put back, as Kubernetes' dry run does, so that a node costs its own pods, not the cluster's.
     */
    static Optional<Candidate> selectVictims(CycleState cycle, Pod pod, NodeInfo node, List<Budget> budgets,
                                             Handle handle) {
        int priority = Priorities.of(pod);
        List<Pod> lower = new ArrayList<>(node.pods().stream().filter(p -> Priorities.of(p) < priority).toList());
        if (lower.isEmpty()) {
            return Optional.empty();
        }
        CycleState state = cycle.copy();
        NodeInfo current = node.without(lower);
        for (Pod p : lower) {
            handle.removePod(state, pod, p, current);
        }
        if (!handle.runFilters(state, pod, current).isSuccess()) {
            return Optional.empty();
        }
        lower.sort(MORE_IMPORTANT_FIRST);
        List<Pod> violating = new ArrayList<>();
        List<Pod> allowed = new ArrayList<>();
        splitByBudgets(lower, budgets, violating, allowed);
        List<Pod> victims = new ArrayList<>();
        int violations = 0;
        for (List<Pod> group : List.of(violating, allowed)) {
            for (Pod p : group) {
                NodeInfo with = current.withPod(p, node.requestsOf(p));
                handle.addPod(state, pod, p, with);
                if (handle.runFilters(state, pod, with).isSuccess()) {
                    current = with;
                } else {
                    handle.removePod(state, pod, p, current);
                    victims.add(p);
                    if (group == violating) {
                        violations++;
                    }
                }
            }
        }
        victims.sort(MORE_IMPORTANT_FIRST);
        return Optional.of(new Candidate(node.name(), victims, violations));
    }

    /**
     * Splits the pods (most important first) into those whose eviction, counted in that
     * order, takes a budget covering them below zero, and the rest. A pod the budget already
     * counts as disrupted costs it nothing.
     */
    static void splitByBudgets(List<Pod> pods, List<Budget> budgets, List<Pod> violating, List<Pod> rest) {
        int[] left = budgets.stream().mapToInt(Budget::allowed).toArray();
        for (Pod p : pods) {
            boolean violates = false;
            for (int i = 0; i < left.length; i++) {
                if (budgets.get(i).covers(p) && --left[i] < 0) {
                    violates = true;
                }
            }
            (violates ? violating : rest).add(p);
        }
    }

    private static Instant started(Pod p) {
        String t = p.getStatus() == null ? null : p.getStatus().getStartTime();
        try {
            return t == null ? Instant.MAX : Instant.parse(t);
        } catch (java.time.format.DateTimeParseException e) {
            return Instant.MAX;
        }
    }

    /** Higher priority first, then the earlier started. */
    static final Comparator<Pod> MORE_IMPORTANT_FIRST = Comparator.comparingInt(Priorities::of).reversed()
            .thenComparing(DefaultPreemption::started);

    private static int highestPriority(Candidate c) {
        return c.victims().stream().mapToInt(Priorities::of).max().orElse(Integer.MIN_VALUE);
    }

    /** Priorities shifted to be non-negative before summing, as Kubernetes sums them. */
    private static long prioritySum(Candidate c) {
        return c.victims().stream().mapToLong(p -> (long) Priorities.of(p) + Integer.MAX_VALUE + 1).sum();
    }

    /** When the most important victims started, the earliest of them: the later, the better to evict. */
    private static Instant earliestStartOfMostImportant(Candidate c) {
        int highest = highestPriority(c);
        return c.victims().stream().filter(p -> Priorities.of(p) == highest).map(DefaultPreemption::started)
                .min(Comparator.naturalOrder()).orElse(Instant.MAX);
    }

    /** The best candidate sorts first. */
    static final Comparator<Candidate> CHOICE = Comparator.comparingInt(Candidate::violations)
            .thenComparingInt(DefaultPreemption::highestPriority)
            .thenComparingLong(DefaultPreemption::prioritySum)
            .thenComparingInt(c -> c.victims().size())
            .thenComparing(DefaultPreemption::earliestStartOfMostImportant, Comparator.reverseOrder());
}

package io.cybernetes.scheduler.interpodaffinity;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.scheduler.framework.ClusterEvent;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Snapshot;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Pod affinity and anti-affinity by topology domain. Required affinity: in each term's
 * domain (the node's value of its topologyKey) there must be a pod that matches every
 * term — unless no such pod is placed anywhere and the pod matches its own terms (the first
 * of a group). Required
 * anti-affinity: the domain must hold none. And symmetrically, no pod already in the
 * domain may have an anti-affinity term that selects the new pod. Preferred terms add
 * (affinity) or take away (anti-affinity) their weight per matching pod in the domain;
 * scores are normalised to 0..100. Terms select pods in the pod's own namespace unless
 * they name namespaces. Everything a node needs is counted once per pod, in PreFilter, and
 * kept up to date as pods are added or taken away in thought (nominated pods, preemption).
 */
public final class InterPodAffinity implements Plugin.PreFilterExtensions, Plugin.Filter, Plugin.Score,
        Plugin.EnqueueExtensions {

    public static final String NAME = "InterPodAffinity";
    public static final String AFFINITY = "node(s) didn't match pod affinity rules";
    public static final String ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
    public static final String EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
    private static final String KEY = NAME + "/domains";

    /**
     * Per required term of the pod, how many pods it selects in each domain
     * (topologyKey=value) and anywhere; how many terms of placed pods' required
     * anti-affinity select the pod, per domain; and the preferred terms' weights per domain
     * (for scoring). The counts change as pods are added or taken away in thought.
     */
    private static final class Domains implements CycleState.StateData {
        final List<PodAffinityTerm> affinityTerms;
        final List<LabelSelector> affinitySelectors;
        final List<PodAffinityTerm> antiTerms;
        final List<LabelSelector> antiSelectors;
        /** Whether the pod matches every one of its own affinity terms (it may then be the first of its group). */
        final boolean selfMatchesAll;
        final List<Map<String, Integer>> affinity = new ArrayList<>();
        /** How many (term, domain) counts pods matching every term added: none means no such pod is placed. */
        int affinityCounted;
        final List<Map<String, Integer>> antiAffinity = new ArrayList<>();
        final Map<String, Integer> existingAntiAffinity;
        final Map<String, Long> preferred;

        Domains(Pod pod) {
            affinityTerms = required(pod, false);
            affinitySelectors = affinityTerms.stream().map(InterPodAffinity::selector).toList();
            antiTerms = required(pod, true);
            antiSelectors = antiTerms.stream().map(InterPodAffinity::selector).toList();
            boolean all = !affinityTerms.isEmpty();
            for (int i = 0; i < affinityTerms.size(); i++) {
                all &= selects(affinityTerms.get(i), affinitySelectors.get(i), pod, pod);
                affinity.add(new HashMap<>());
            }
            selfMatchesAll = all;
            antiTerms.forEach(t -> antiAffinity.add(new HashMap<>()));
            existingAntiAffinity = new HashMap<>();
            preferred = new HashMap<>();
        }

        private Domains(Domains d) {
            affinityTerms = d.affinityTerms;
            affinitySelectors = d.affinitySelectors;
            antiTerms = d.antiTerms;
            antiSelectors = d.antiSelectors;
            selfMatchesAll = d.selfMatchesAll;
            d.affinity.forEach(m -> affinity.add(new HashMap<>(m)));
            affinityCounted = d.affinityCounted;
            d.antiAffinity.forEach(m -> antiAffinity.add(new HashMap<>(m)));
            existingAntiAffinity = new HashMap<>(d.existingAntiAffinity);
            preferred = d.preferred; // read by scoring, which never runs on a changed state
        }

        @Override
        public Domains copy() {
            return new Domains(this);
        }

        boolean hasTerms() {
            return !affinityTerms.isEmpty() || !antiTerms.isEmpty();
        }

        /**
         * Counts {@code other}, on node {@code n}, in or out ({@code delta} 1 or -1) of the
         * pod's own terms: for affinity only a pod that matches every term counts, in each
         * term's domain (one pod must satisfy them all, as in Kubernetes); for anti-affinity
         * each term on its own.
         */
        void countTerms(Pod pod, Pod other, NodeInfo n, int delta) {
            boolean matchesAll = !affinityTerms.isEmpty();
            for (int i = 0; i < affinityTerms.size() && matchesAll; i++) {
                matchesAll = selects(affinityTerms.get(i), affinitySelectors.get(i), pod, other);
            }
            if (matchesAll) {
                for (int i = 0; i < affinityTerms.size(); i++) {
                    String domain = domain(n, affinityTerms.get(i).getTopologyKey());
                    if (domain != null) {
                        add(affinity.get(i), domain, delta);
                        affinityCounted += delta;
                    }
                }
            }
            for (int i = 0; i < antiTerms.size(); i++) {
                PodAffinityTerm t = antiTerms.get(i);
                if (selects(t, antiSelectors.get(i), pod, other)) {
                    add(antiAffinity.get(i), domain(n, t.getTopologyKey()), delta);
                }
            }
        }

        /** Counts in or out the terms of {@code other}'s required anti-affinity that select the pod. */
        void countExisting(Pod pod, Pod other, NodeInfo n, int delta) {
            for (PodAffinityTerm t : required(other, true)) {
                if (selects(t, selector(t), other, pod)) {
                    add(existingAntiAffinity, domain(n, t.getTopologyKey()), delta);
                }
            }
        }

        private static void add(Map<String, Integer> counts, String domain, int delta) {
            if (domain != null) {
                counts.merge(domain, delta, (a, b) -> a + b == 0 ? null : a + b);
            }
        }
    }

    /**
     * A pod placed helps when it matches every required affinity term (one pod must satisfy
     * them all); a pod changed when it came to match them, or stopped matching every
     * anti-affinity term; a pod deleted when it matched the anti-affinity terms, or its own
     * anti-affinity kept the pod away. A node added or relabelled may open a domain.
     */
    private static final java.util.Map<ClusterEvent, QueueingHint> EVENTS = java.util.Map.of(
            ClusterEvent.ASSIGNED_POD_ADD, (pod, before, after) -> matchesAll(pod, required(pod, false), (Pod) after),
            ClusterEvent.ASSIGNED_POD_UPDATE, (pod, before, after) ->
                    !matchesAll(pod, required(pod, false), (Pod) before) && matchesAll(pod, required(pod, false), (Pod) after)
                    || matchesAll(pod, required(pod, true), (Pod) before) && !matchesAll(pod, required(pod, true), (Pod) after),
            ClusterEvent.ASSIGNED_POD_DELETE, (pod, before, after) -> matchesAll(pod, required(pod, true), (Pod) before)
                    || required((Pod) before, true).stream().anyMatch(t -> selects(t, (Pod) before, pod)),
            ClusterEvent.NODE_ADD, QueueingHint.ALWAYS,
            ClusterEvent.NODE_UPDATE, (pod, before, after) -> !Objects.equals(
                    ((io.fabric8.kubernetes.api.model.Node) before).getMetadata().getLabels(),
                    ((io.fabric8.kubernetes.api.model.Node) after).getMetadata().getLabels()));

    @Override
    public java.util.Map<ClusterEvent, QueueingHint> eventsToRegister() {
        return EVENTS;
    }

    /** Whether {@code other} is selected by every one of the pod's terms (and there is one). */
    private static boolean matchesAll(Pod pod, List<PodAffinityTerm> terms, Pod other) {
        return !terms.isEmpty() && terms.stream().allMatch(t -> selects(t, pod, other));
    }

    @Override
    public String name() {
        return NAME;
    }

    private static List<PodAffinityTerm> required(Pod pod, boolean anti) {
        var a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
        if (a == null) {
            return List.of();
        }
        var terms = anti ? (a.getPodAntiAffinity() == null ? null
                : a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
                : (a.getPodAffinity() == null ? null : a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
        return Objects.requireNonNullElse(terms, List.of());
    }

    private static List<WeightedPodAffinityTerm> preferred(Pod pod, boolean anti) {
        var a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
        if (a == null) {
            return List.of();
        }
        var terms = anti ? (a.getPodAntiAffinity() == null ? null
                : a.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
                : (a.getPodAffinity() == null ? null : a.getPodAffinity().getPreferredDuringSchedulingIgnoredDuringExecution());
        return Objects.requireNonNullElse(terms, List.of());
    }

    /** The term's label selector, parsed; null when the term has none (it selects nothing). */
    private static LabelSelector selector(PodAffinityTerm term) {
        return term.getLabelSelector() == null ? null : LabelSelector.fromObject(Json.toTree(term.getLabelSelector()));
    }

    /** Whether the term of {@code owner} selects {@code other}. */
    static boolean selects(PodAffinityTerm term, Pod owner, Pod other) {
        return selects(term, selector(term), owner, other);
    }

    private static boolean selects(PodAffinityTerm term, LabelSelector selector, Pod owner, Pod other) {
        List<String> namespaces = term.getNamespaces() == null || term.getNamespaces().isEmpty()
                ? List.of(Objects.requireNonNullElse(owner.getMetadata().getNamespace(), ""))
                : term.getNamespaces();
        if (selector == null || !namespaces.contains(other.getMetadata().getNamespace())) {
            return false;
        }
        return selector.matches(Objects.requireNonNullElse(other.getMetadata().getLabels(), Map.of()));
    }

    private static String domain(NodeInfo node, String topologyKey) {
        String v = Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.<String, String>of())
                .get(topologyKey);
        return v == null ? null : topologyKey + "=" + v;
    }

    @Override
    public Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
        Domains d = new Domains(pod);
        boolean terms = d.hasTerms();
        boolean prefers = !preferred(pod, false).isEmpty() || !preferred(pod, true).isEmpty();
        if (terms || prefers) {
            for (NodeInfo n : nodes) {
                for (Pod other : n.pods()) {
                    if (terms) {
                        d.countTerms(pod, other, n, 1);
                    }
                    if (prefers) {
                        preferTowards(d, pod, other, n);
                    }
                }
            }
        }
        for (NodeInfo n : Snapshot.withRequiredAntiAffinity(nodes)) {
            for (Pod other : n.podsWithRequiredAntiAffinity()) {
                d.countExisting(pod, other, n, 1);
            }
        }
        state.write(KEY, d);
        return Status.SUCCESS;
    }

    @Override
    public void addPod(CycleState state, Pod pod, Pod added, NodeInfo node) {
        state.read(KEY, Domains.class).ifPresent(d -> {
            d.countTerms(pod, added, node, 1);
            d.countExisting(pod, added, node, 1);
        });
    }

    @Override
    public void removePod(CycleState state, Pod pod, Pod removed, NodeInfo node) {
        state.read(KEY, Domains.class).ifPresent(d -> {
            d.countTerms(pod, removed, node, -1);
            d.countExisting(pod, removed, node, -1);
        });
    }

    /** Adds the preferred terms' weights to the domains the other pod is in. */
    private static void preferTowards(Domains d, Pod pod, Pod other, NodeInfo n) {
        for (boolean anti : new boolean[] {false, true}) {
            for (WeightedPodAffinityTerm w : preferred(pod, anti)) {
                PodAffinityTerm t = w.getPodAffinityTerm();
                String dom = t == null ? null : domain(n, t.getTopologyKey());
                if (dom != null && selects(t, pod, other)) {
                    long weight = Objects.requireNonNullElse(w.getWeight(), 0);
                    d.preferred.merge(dom, anti ? -weight : weight, Long::sum);
                }
            }
        }
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        Domains d = state.read(KEY, Domains.class).orElse(null);
        if (d == null) {
            return Status.SUCCESS;
        }
        boolean podsExist = true;
        for (int i = 0; i < d.affinityTerms.size(); i++) {
            String dom = domain(node, d.affinityTerms.get(i).getTopologyKey());
            if (dom == null) {
                return Status.unresolvable(AFFINITY);
            }
            podsExist &= d.affinity.get(i).containsKey(dom);
        }
        // the first pod of a group that has affinity to itself: no pod matching all its terms is placed yet
        if (!podsExist && !(d.affinityCounted == 0 && d.selfMatchesAll)) {
            return Status.unresolvable(AFFINITY);
        }
        for (int i = 0; i < d.antiTerms.size(); i++) {
            String dom = domain(node, d.antiTerms.get(i).getTopologyKey());
            if (dom != null && d.antiAffinity.get(i).containsKey(dom)) {
                return Status.unschedulable(ANTI_AFFINITY);
            }
        }
        if (d.existingAntiAffinity.isEmpty()) {
            return Status.SUCCESS;
        }
        Map<String, String> labels = Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.of());
        for (Map.Entry<String, String> l : labels.entrySet()) {
            if (d.existingAntiAffinity.containsKey(l.getKey() + "=" + l.getValue())) {
                return Status.unschedulable(EXISTING_ANTI_AFFINITY);
            }
        }
        return Status.SUCCESS;
    }

    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
        Domains d = state.read(KEY, Domains.class).orElse(null);
        if (d == null || d.preferred.isEmpty()) {
            return 0;
        }
        long sum = 0;
        Map<String, String> labels = Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.of());
        for (Map.Entry<String, String> l : labels.entrySet()) {
            sum += d.preferred.getOrDefault(l.getKey() + "=" + l.getValue(), 0L);
        }
        return sum;
    }

    @Override
    public void normalize(CycleState state, Pod pod, long[] scores) {
        long max = java.util.Arrays.stream(scores).max().orElse(0);
        long min = java.util.Arrays.stream(scores).min().orElse(0);
        for (int i = 0; i < scores.length; i++) {
            scores[i] = max == min ? 0 : MAX_SCORE * (scores[i] - min) / (max - min);
        }
    }
}

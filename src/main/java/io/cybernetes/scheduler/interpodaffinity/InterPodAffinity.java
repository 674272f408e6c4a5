package io.cybernetes.scheduler.interpodaffinity;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Pod affinity and anti-affinity by topology domain. Required affinity: the node's domain
 * (its value of the term's topologyKey) must hold a pod the term selects — unless no pod
 * anywhere matches and the pod matches its own term (the first of a group). Required
 * anti-affinity: the domain must hold none. And symmetrically, no pod already in the
 * domain may have an anti-affinity term that selects the new pod. Preferred terms add
 * (affinity) or take away (anti-affinity) their weight per matching pod in the domain;
 * scores are normalised to 0..100. Terms select pods in the pod's own namespace unless
 * they name namespaces. Everything a node needs is counted once per pod, in PreFilter.
 */
public final class InterPodAffinity implements Plugin.PreFilter, Plugin.Filter, Plugin.Score {

    public static final String NAME = "InterPodAffinity";
    public static final String AFFINITY = "node(s) didn't match pod affinity rules";
    public static final String ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
    public static final String EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
    private static final String KEY = NAME + "/domains";

    /** Per term, the domains (topologyKey=value) that hold a pod it selects. */
    private static final class Domains {
        final List<Set<String>> affinity = new ArrayList<>();
        final List<Boolean> affinityMatchesNothing = new ArrayList<>();
        final List<Set<String>> antiAffinity = new ArrayList<>();
        final Set<String> existingAntiAffinity = new HashSet<>();
        final Map<String, Long> preferred = new HashMap<>();
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

    /** Whether the term of {@code owner} selects {@code other}. */
    static boolean selects(PodAffinityTerm term, Pod owner, Pod other) {
        List<String> namespaces = term.getNamespaces() == null || term.getNamespaces().isEmpty()
                ? List.of(Objects.requireNonNullElse(owner.getMetadata().getNamespace(), ""))
                : term.getNamespaces();
        if (!namespaces.contains(other.getMetadata().getNamespace())) {
            return false;
        }
        LabelSelector selector = LabelSelector.fromObject(Json.toTree(term.getLabelSelector()));
        return term.getLabelSelector() != null
                && selector.matches(Objects.requireNonNullElse(other.getMetadata().getLabels(), Map.of()));
    }

    private static String domain(NodeInfo node, String topologyKey) {
        String v = Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.<String, String>of())
                .get(topologyKey);
        return v == null ? null : topologyKey + "=" + v;
    }

    @Override
    public Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
        Domains d = new Domains();
        List<PodAffinityTerm> affinity = required(pod, false);
        List<PodAffinityTerm> anti = required(pod, true);
        for (PodAffinityTerm t : affinity) {
            Set<String> domains = new HashSet<>();
            boolean any = false;
            for (NodeInfo n : nodes) {
                for (Pod other : n.pods()) {
                    if (selects(t, pod, other)) {
                        any = true;
                        String dom = domain(n, t.getTopologyKey());
                        if (dom != null) {
                            domains.add(dom);
                        }
                    }
                }
            }
            d.affinity.add(domains);
            d.affinityMatchesNothing.add(!any && selects(t, pod, pod));
        }
        for (PodAffinityTerm t : anti) {
            Set<String> domains = new HashSet<>();
            for (NodeInfo n : nodes) {
                String dom = domain(n, t.getTopologyKey());
                if (dom != null && n.pods().stream().anyMatch(other -> selects(t, pod, other))) {
                    domains.add(dom);
                }
            }
            d.antiAffinity.add(domains);
        }
        boolean prefers = !preferred(pod, false).isEmpty() || !preferred(pod, true).isEmpty();
        for (NodeInfo n : nodes) {
            if (n.podsWithRequiredAntiAffinity().isEmpty() && !prefers) {
                continue;
            }
            for (Pod other : n.podsWithRequiredAntiAffinity()) {
                for (PodAffinityTerm t : required(other, true)) {
                    String dom = domain(n, t.getTopologyKey());
                    if (dom != null && selects(t, other, pod)) {
                        d.existingAntiAffinity.add(dom);
                    }
                }
            }
            if (prefers) {
                for (Pod other : n.pods()) {
                    preferTowards(d, pod, other, n);
                }
            }
        }
        state.write(KEY, d);
        return Status.SUCCESS;
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
        List<PodAffinityTerm> affinity = required(pod, false);
        for (int i = 0; i < affinity.size(); i++) {
            String dom = domain(node, affinity.get(i).getTopologyKey());
            boolean ok = dom != null && (d.affinity.get(i).contains(dom) || d.affinityMatchesNothing.get(i));
            if (!ok) {
                return Status.unresolvable(AFFINITY);
            }
        }
        List<PodAffinityTerm> anti = required(pod, true);
        for (int i = 0; i < anti.size(); i++) {
            String dom = domain(node, anti.get(i).getTopologyKey());
            if (dom != null && d.antiAffinity.get(i).contains(dom)) {
                return Status.unschedulable(ANTI_AFFINITY);
            }
        }
        if (d.existingAntiAffinity.isEmpty()) {
            return Status.SUCCESS;
        }
        Map<String, String> labels = Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.of());
        for (Map.Entry<String, String> l : labels.entrySet()) {
            if (d.existingAntiAffinity.contains(l.getKey() + "=" + l.getValue())) {
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

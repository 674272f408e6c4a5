package io.cybernetes.scheduler;

import io.cybernetes.api.Json;
import io.cybernetes.client.Keys;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the scheduler knows of the nodes: every Node and the pods bound to it, from the
 * informers, plus the pods it has <em>assumed</em> — placed by a decision whose binding
 * is still under way — so that the next pod's cycle already counts them. An assumed pod
 * is confirmed when the watch shows it bound, forgotten when its binding fails, and
 * expires when its binding finished but the watch never showed it (30 s).
 */
public final class SchedulerCache {

    static final Duration ASSUMED_TTL = Duration.ofSeconds(30);

    private record Assumed(Pod pod, String node, Instant expires) {
    }

    private final Clock clock;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, Pod> bound = new HashMap<>();
    private final Map<String, Assumed> assumed = new HashMap<>();

    public SchedulerCache(Clock clock) {
        this.clock = clock;
    }

    public synchronized void putNode(Node node) {
        nodes.put(node.getMetadata().getName(), node);
    }

    public synchronized void removeNode(String name) {
        nodes.remove(name);
    }

    /** A pod as the watch shows it: counted on its node when bound (confirming it if assumed), else not. */
    public synchronized void putPod(Pod pod) {
        String key = Keys.of(pod);
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (node == null || node.isEmpty() || terminal(pod)) {
            bound.remove(key);
            return;
        }
        assumed.remove(key);
        bound.put(key, pod);
    }

    public synchronized void removePod(Pod pod) {
        String key = Keys.of(pod);
        bound.remove(key);
        assumed.remove(key);
    }

    private static boolean terminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** The decision is made: the pod counts on the node from now on, until confirmed or forgotten. */
    public synchronized void assume(Pod pod, String node) {
        Pod placed = Json.convert(Json.toTree(pod), Pod.class);
        placed.getSpec().setNodeName(node);
        assumed.put(Keys.of(pod), new Assumed(placed, node, Instant.MAX));
    }

    /** Its binding went through: the watch should show it soon; if not within 30 s, it expires. */
    public synchronized void finishBinding(Pod pod) {
        assumed.computeIfPresent(Keys.of(pod), (k, a) -> new Assumed(a.pod(), a.node(),
                clock.instant().plus(ASSUMED_TTL)));
    }

    /** Its binding failed: it no longer counts anywhere. */
    public synchronized void forget(Pod pod) {
        assumed.remove(Keys.of(pod));
    }

    public synchronized boolean isAssumed(Pod pod) {
        return assumed.containsKey(Keys.of(pod));
    }

    /** Drops assumed pods whose binding finished long ago without the watch confirming them. */
    public synchronized int expire() {
        Instant now = clock.instant();
        int before = assumed.size();
        assumed.values().removeIf(a -> a.expires().isBefore(now));
        return before - assumed.size();
    }

    /** Every node with its bound and assumed pods, for one scheduling cycle. */
    public synchronized List<NodeInfo> snapshot() {
        Map<String, List<Pod>> byNode = new HashMap<>();
        for (Pod p : bound.values()) {
            byNode.computeIfAbsent(p.getSpec().getNodeName(), k -> new ArrayList<>()).add(p);
        }
        for (Assumed a : assumed.values()) {
            byNode.computeIfAbsent(a.node(), k -> new ArrayList<>()).add(a.pod());
        }
        List<NodeInfo> out = new ArrayList<>(nodes.size());
        for (Node n : nodes.values()) {
            out.add(NodeInfo.of(n, byNode.getOrDefault(n.getMetadata().getName(), List.of())));
        }
        return out;
    }
}

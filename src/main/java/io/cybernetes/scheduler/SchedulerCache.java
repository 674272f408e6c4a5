package io.cybernetes.scheduler;

import io.cybernetes.api.Json;
import io.cybernetes.client.Keys;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the scheduler knows of the nodes: every Node and the pods bound to it, from the
 * informers, plus the pods it has <em>assumed</em> — placed by a decision whose binding
 * is still under way — so that the next pod's cycle already counts them. An assumed pod
 * is confirmed when the watch shows it bound, forgotten when its binding fails, and
 * expires when its binding finished but the watch never showed it (30 s). It also knows
 * which pending pods are nominated to which node by preemption, so that the room made for
 * them is kept for them; a watch event without the nomination does not undo one the
 * scheduler just made (the event may predate it), only binding, deletion or the
 * scheduler itself do.
 *
 * <p>Snapshots are incremental, as kube-scheduler's: a node's {@link NodeInfo} is rebuilt
 * only when something on it changed, so a cycle over 5,000 nodes does not rebuild 5,000.
 */
public final class SchedulerCache {

    static final Duration ASSUMED_TTL = Duration.ofSeconds(30);

    private record Assumed(Pod pod, String node, Instant expires) {
    }

    private final Clock clock;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, Pod> bound = new HashMap<>();
    private final Map<String, Assumed> assumed = new HashMap<>();
    private final Map<String, Pod> nominated = new HashMap<>();
    /** Keys of the pods bound, assumed or nominated on each node. */
    private final Map<String, Set<String>> keysByNode = new HashMap<>();
    private final Map<String, NodeInfo> infos = new HashMap<>();
    private final Set<String> dirty = new HashSet<>();
    private List<NodeInfo> lastSnapshot;

    public SchedulerCache(Clock clock) {
        this.clock = clock;
    }

    public synchronized void putNode(Node node) {
        nodes.put(node.getMetadata().getName(), node);
        touch(node.getMetadata().getName());
    }

    public synchronized void removeNode(String name) {
        nodes.remove(name);
        infos.remove(name);
        lastSnapshot = null;
    }

    /** A pod as the watch shows it: counted on its node when bound (confirming it if assumed), else not. */
    public synchronized void putPod(Pod pod) {
        String key = Keys.of(pod);
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (node == null || node.isEmpty() || terminal(pod)) {
            unindex(key, bound.remove(key));
            return;
        }
        Assumed a = assumed.remove(key);
        if (a != null) {
            unindex(key, a.pod());
        }
        unindex(key, nominated.remove(key));
        unindex(key, bound.put(key, pod));
        index(key, node);
    }

    public synchronized void removePod(Pod pod) {
        String key = Keys.of(pod);
        unindex(key, bound.remove(key));
        Assumed a = assumed.remove(key);
        if (a != null) {
            unindex(key, a.pod());
        }
        unindex(key, nominated.remove(key));
    }

    private static boolean terminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** A pending pod as the watch shows it: nominated where its status says (never un-nominated by a watch event). */
    public synchronized void pendingPod(Pod pod) {
        String key = Keys.of(pod);
        String node = nominatedNode(pod);
        Pod old = nominated.get(key);
        if (node != null && !node.isEmpty()) {
            nominate(pod, node);
        } else if (old != null) {
            nominate(pod, nominatedNode(old));
        }
    }

    /** The scheduler nominated the pod to the node (null or "": no node). */
    public synchronized void nominate(Pod pod, String node) {
        String key = Keys.of(pod);
        unindex(key, nominated.remove(key));
        if (node != null && !node.isEmpty()) {
            nominated.put(key, withNomination(pod, node));
            index(key, node);
        }
    }

    /** The pods nominated to the node. */
    public synchronized List<Pod> nominatedTo(String node) {
        return nominated.values().stream().filter(p -> node.equals(nominatedNode(p))).toList();
    }

    private static String nominatedNode(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    }

    private static Pod withNomination(Pod pod, String node) {
        if (node.equals(nominatedNode(pod))) {
            return pod;
        }
        Pod copy = Json.convert(Json.toTree(pod), Pod.class);
        if (copy.getStatus() == null) {
            copy.setStatus(new PodStatus());
        }
        copy.getStatus().setNominatedNodeName(node);
        return copy;
    }

    /** The decision is made: the pod counts on the node from now on, until confirmed or forgotten. */
    public synchronized void assume(Pod pod, String node) {
        Pod placed = Json.convert(Json.toTree(pod), Pod.class);
        placed.getSpec().setNodeName(node);
        String key = Keys.of(pod);
        unindex(key, nominated.remove(key));
        assumed.put(key, new Assumed(placed, node, Instant.MAX));
        index(key, node);
    }

    /** Its binding went through: the watch should show it soon; if not within 30 s, it expires. */
    public synchronized void finishBinding(Pod pod) {
        assumed.computeIfPresent(Keys.of(pod), (k, a) -> new Assumed(a.pod(), a.node(),
                clock.instant().plus(ASSUMED_TTL)));
    }

    /** Its binding failed: it no longer counts anywhere. */
    public synchronized void forget(Pod pod) {
        String key = Keys.of(pod);
        Assumed a = assumed.remove(key);
        if (a != null) {
            unindex(key, a.pod());
        }
    }

    public synchronized boolean isAssumed(Pod pod) {
        return assumed.containsKey(Keys.of(pod));
    }

    /** Drops assumed pods whose binding finished long ago without the watch confirming them. */
    public synchronized int expire() {
        Instant now = clock.instant();
        List<Map.Entry<String, Assumed>> gone = assumed.entrySet().stream()
                .filter(e -> e.getValue().expires().isBefore(now)).toList();
        for (Map.Entry<String, Assumed> e : List.copyOf(gone)) {
            assumed.remove(e.getKey());
            unindex(e.getKey(), e.getValue().pod());
        }
        return gone.size();
    }

    /** Every node with its bound and assumed pods (and those nominated to it), for one scheduling cycle. */
    public synchronized List<NodeInfo> snapshot() {
        if (lastSnapshot != null && dirty.isEmpty()) {
            return lastSnapshot;
        }
        for (String name : dirty) {
            Node node = nodes.get(name);
            if (node == null) {
                infos.remove(name);
                continue;
            }
            List<Pod> pods = new ArrayList<>();
            List<Pod> waiting = new ArrayList<>();
            for (String key : keysByNode.getOrDefault(name, Set.of())) {
                Pod p = bound.get(key);
                if (p == null) {
                    Assumed a = assumed.get(key);
                    p = a == null ? null : a.pod();
                }
                if (p != null) {
                    pods.add(p);
                } else if (nominated.containsKey(key)) {
                    waiting.add(nominated.get(key));
                }
            }
            NodeInfo info = NodeInfo.of(node, pods);
            infos.put(name, waiting.isEmpty() ? info : info.withNominated(waiting));
        }
        dirty.clear();
        List<NodeInfo> out = new ArrayList<>(nodes.size());
        for (String name : nodes.keySet()) {
            out.add(infos.get(name));
        }
        lastSnapshot = List.copyOf(out);
        return lastSnapshot;
    }

    private void index(String key, String node) {
        keysByNode.computeIfAbsent(node, k -> new LinkedHashSet<>()).add(key);
        touch(node);
    }

    /** The pod that was there under the key no longer is (null: there was none). */
    private void unindex(String key, Pod was) {
        if (was == null) {
            return;
        }
        String node = was.getSpec() != null && was.getSpec().getNodeName() != null
                && !was.getSpec().getNodeName().isEmpty() ? was.getSpec().getNodeName() : nominatedNode(was);
        if (node == null) {
            return;
        }
        Set<String> keys = keysByNode.get(node);
        if (keys != null && !bound.containsKey(key) && !assumed.containsKey(key) && !nominated.containsKey(key)) {
            keys.remove(key);
        }
        touch(node);
    }

    private void touch(String node) {
        dirty.add(node);
    }
}

package io.cybernetes.scheduler;

import io.cybernetes.api.Json;
import io.cybernetes.client.Keys;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Snapshot;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * <p>Kept incrementally, as kube-scheduler keeps it: each change touches only its node's
 * {@link NodeInfo}, and a snapshot for a cycle is the nodes' current infos, so a cycle over
 * 5,000 nodes does not rebuild 5,000.
 */
public final class SchedulerCache {

    static final Duration ASSUMED_TTL = Duration.ofSeconds(30);

    private record Assumed(Pod pod, String node, Instant expires) {
    }

    private final Clock clock;
    private final Map<String, Pod> bound = new HashMap<>();
    private final Map<String, Assumed> assumed = new HashMap<>();
    private final Map<String, Pod> nominated = new HashMap<>();
    /** The pods counted on each node (bound or assumed), by key, as its info counts them. */
    private final Map<String, Map<String, Pod>> counted = new HashMap<>();
    private final Map<String, Map<String, Pod>> nominatedByNode = new HashMap<>();
    /** Every known node's info, in the order the nodes came, and where each is in that list. */
    private final List<NodeInfo> infos = new ArrayList<>();
    private final Map<String, Integer> positions = new HashMap<>();
    /** The nodes (of {@link #infos}) that hold pods with required anti-affinity, in no particular order. */
    private final Set<String> withRequiredAntiAffinity = new HashSet<>();
    private Snapshot lastSnapshot = new Snapshot(List.of(), List.of());
    private boolean changed;

    public SchedulerCache(Clock clock) {
        this.clock = clock;
    }

    public synchronized void putNode(Node node) {
        String name = node.getMetadata().getName();
        NodeInfo known = info(name);
        NodeInfo info = known != null ? known.withNode(node)
                : NodeInfo.of(node, new ArrayList<>(counted.getOrDefault(name, Map.of()).values()));
        Map<String, Pod> waiting = nominatedByNode.get(name);
        if (known == null && waiting != null && !waiting.isEmpty()) {
            info = info.withNominated(new ArrayList<>(waiting.values()));
        }
        set(name, info);
    }

    public synchronized void removeNode(String name) {
        Integer at = positions.remove(name);
        withRequiredAntiAffinity.remove(name);
        if (at != null) {
            infos.remove((int) at);
            for (int i = at; i < infos.size(); i++) {
                positions.put(infos.get(i).name(), i);
            }
            changed = true;
        }
    }

    private NodeInfo info(String node) {
        Integer at = positions.get(node);
        return at == null ? null : infos.get(at);
    }

    /** Puts the node's info in its place (at the end for a new node). */
    private void set(String node, NodeInfo info) {
        Integer at = positions.get(node);
        if (at == null) {
            positions.put(node, infos.size());
            infos.add(info);
        } else {
            infos.set(at, info);
        }
        if (info.podsWithRequiredAntiAffinity().isEmpty()) {
            withRequiredAntiAffinity.remove(node);
        } else {
            withRequiredAntiAffinity.add(node);
        }
        changed = true;
    }

    /** A pod as the watch shows it: counted on its node when bound (confirming it if assumed), else not. */
    public synchronized void putPod(Pod pod) {
        String key = Keys.of(pod);
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (node == null || node.isEmpty() || terminal(pod)) {
            Pod old = bound.remove(key);
            if (old != null) {
                uncount(key, old.getSpec().getNodeName());
            }
            return;
        }
        unnominate(key);
        Assumed a = assumed.remove(key);
        Pod old = bound.put(key, pod);
        Pod before = a != null ? a.pod() : old;
        String beforeNode = a != null ? a.node() : old == null ? null : old.getSpec().getNodeName();
        if (before == null) {
            count(key, node, pod);
        } else if (!node.equals(beforeNode) || changedForScheduling(before, pod, a != null)) {
            uncount(key, beforeNode);
            count(key, node, pod);
        } else {
            counted.get(node).put(key, pod); // the same as counted: the info stays
        }
    }

    /**
     * Whether the scheduler would count the pod differently: its labels, spec or being
     * deleted changed. An assumed pod confirmed by its binding differs only in its node name
     * (a binding changes nothing else), so its spec is not compared.
     */
    private static boolean changedForScheduling(Pod before, Pod after, boolean confirming) {
        return !Objects.equals(before.getMetadata().getLabels(), after.getMetadata().getLabels())
                || !Objects.equals(before.getMetadata().getDeletionTimestamp(), after.getMetadata().getDeletionTimestamp())
                || (!confirming && !Objects.equals(before.getSpec(), after.getSpec()));
    }

    public synchronized void removePod(Pod pod) {
        String key = Keys.of(pod);
        Pod old = bound.remove(key);
        if (old != null) {
            uncount(key, old.getSpec().getNodeName());
        }
        Assumed a = assumed.remove(key);
        if (a != null) {
            uncount(key, a.node());
        }
        unnominate(key);
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
        unnominate(key);
        if (node != null && !node.isEmpty()) {
            Pod p = withNomination(pod, node);
            nominated.put(key, p);
            Map<String, Pod> onNode = nominatedByNode.computeIfAbsent(node, k -> new LinkedHashMap<>());
            onNode.put(key, p);
            renominated(node, onNode);
        }
    }

    private void unnominate(String key) {
        Pod p = nominated.remove(key);
        if (p != null) {
            String node = nominatedNode(p);
            Map<String, Pod> onNode = nominatedByNode.get(node);
            if (onNode != null && onNode.remove(key) != null) {
                renominated(node, onNode);
            }
        }
    }

    private void renominated(String node, Map<String, Pod> onNode) {
        NodeInfo info = info(node);
        if (info != null) {
            set(node, info.withNominated(new ArrayList<>(onNode.values())));
        }
    }

    /** The pods nominated to the node. */
    public synchronized List<Pod> nominatedTo(String node) {
        return List.copyOf(nominatedByNode.getOrDefault(node, Map.of()).values());
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
        String key = Keys.of(pod);
        unnominate(key);
        Assumed before = assumed.put(key, new Assumed(pod, node, Instant.MAX));
        if (before != null) {
            uncount(key, before.node());
        }
        count(key, node, pod);
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
            uncount(key, a.node());
        }
    }

    public synchronized boolean isAssumed(Pod pod) {
        return assumed.containsKey(Keys.of(pod));
    }

    /** Drops assumed pods whose binding finished long ago without the watch confirming them. */
    public synchronized int expire() {
        Instant now = clock.instant();
        List<String> gone = assumed.entrySet().stream().filter(e -> e.getValue().expires().isBefore(now))
                .map(Map.Entry::getKey).toList();
        for (String key : gone) {
            uncount(key, assumed.remove(key).node());
        }
        return gone.size();
    }

    /** Every node with its bound and assumed pods (and those nominated to it), for one scheduling cycle. */
    public synchronized List<NodeInfo> snapshot() {
        if (changed) {
            lastSnapshot = new Snapshot(infos, withRequiredAntiAffinity.stream().map(this::info).toList());
            changed = false;
        }
        return lastSnapshot;
    }

    private void count(String key, String node, Pod pod) {
        counted.computeIfAbsent(node, k -> new HashMap<>()).put(key, pod);
        NodeInfo info = info(node);
        if (info != null) {
            set(node, info.withPod(pod));
        }
    }

    private void uncount(String key, String node) {
        Map<String, Pod> onNode = counted.get(node);
        Pod p = onNode == null ? null : onNode.remove(key);
        if (p == null) {
            return;
        }
        if (onNode.isEmpty()) {
            counted.remove(node);
        }
        NodeInfo info = info(node);
        if (info != null) {
            set(node, info.withoutPod(p));
        }
    }
}

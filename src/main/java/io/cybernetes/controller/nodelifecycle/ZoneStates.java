package io.cybernetes.controller.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The health of each zone (its {@code topology.kubernetes.io/region} and {@code zone}
 * labels), as Kubernetes' node lifecycle controller judges it: fully disrupted when none of
 * its nodes is ready, partially disrupted when more than two and at least 55% are not, normal
 * otherwise. When every zone is fully disrupted, the trouble is most likely the control
 * plane's own (nodes whose heartbeats did not arrive because the API was down): nothing is
 * tainted for eviction and nothing evicted anywhere. In a partially disrupted zone of at
 * most 50 nodes nothing is evicted either (Kubernetes' secondary eviction rate, 0 for
 * small clusters).
 */
final class ZoneStates {

    static final String REGION = "topology.kubernetes.io/region";
    static final String ZONE = "topology.kubernetes.io/zone";
    static final double UNHEALTHY_ZONE_THRESHOLD = 0.55;
    static final int LARGE_CLUSTER_THRESHOLD = 50;

    enum State { NORMAL, PARTIAL_DISRUPTION, FULL_DISRUPTION }

    private final Map<String, State> states;
    private final Map<String, Integer> sizes;

    private ZoneStates(Map<String, State> states, Map<String, Integer> sizes) {
        this.states = states;
        this.sizes = sizes;
    }

    /** The zones of these nodes, {@code ready} telling the ones that count as ready. */
    static ZoneStates of(Collection<Node> nodes, Predicate<Node> ready) {
        Map<String, int[]> counts = new HashMap<>();
        for (Node n : nodes) {
            int[] c = counts.computeIfAbsent(zoneOf(n), z -> new int[2]);
            c[ready.test(n) ? 0 : 1]++;
        }
        Map<String, State> states = new HashMap<>();
        Map<String, Integer> sizes = new HashMap<>();
        counts.forEach((zone, c) -> {
            int readyNodes = c[0];
            int notReady = c[1];
            State s;
            if (readyNodes == 0 && notReady > 0) {
                s = State.FULL_DISRUPTION;
            } else if (notReady > 2 && (double) notReady / (notReady + readyNodes) >= UNHEALTHY_ZONE_THRESHOLD) {
                s = State.PARTIAL_DISRUPTION;
            } else {
                s = State.NORMAL;
            }
            states.put(zone, s);
            sizes.put(zone, readyNodes + notReady);
        });
        return new ZoneStates(states, sizes);
    }

    /** The node's zone: its region and zone labels, empty when it has neither. */
    static String zoneOf(Node node) {
        Map<String, String> labels = node.getMetadata() == null ? null : node.getMetadata().getLabels();
        if (labels == null) {
            return "";
        }
        String region = labels.getOrDefault(REGION, "");
        String zone = labels.getOrDefault(ZONE, "");
        return region.isEmpty() && zone.isEmpty() ? "" : region + ":\u0000:" + zone;
    }

    State state(String zone) {
        return states.getOrDefault(zone, State.NORMAL);
    }

    /** Every zone fully disrupted (and there is one): Kubernetes' "master disruption" mode. */
    boolean allFullyDisrupted() {
        return !states.isEmpty() && states.values().stream().allMatch(s -> s == State.FULL_DISRUPTION);
    }

    /** Whether nodes of the zone are neither tainted for eviction nor have their pods evicted. */
    boolean evictionsPaused(String zone) {
        return allFullyDisrupted() || (state(zone) == State.PARTIAL_DISRUPTION
                && sizes.getOrDefault(zone, 0) <= LARGE_CLUSTER_THRESHOLD);
    }
}

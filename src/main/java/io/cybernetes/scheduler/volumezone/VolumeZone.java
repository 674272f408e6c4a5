package io.cybernetes.scheduler.volumezone;

import io.cybernetes.scheduler.framework.ClusterEvent;
import io.cybernetes.scheduler.framework.ClusterVolumes;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A pod's bound volumes that carry zone or region labels may only be used on nodes of
 * those zones and regions, as kube-scheduler's VolumeZone plugin decides: a volume's label
 * lists its zones ({@code a__b} for several), a node's label (its GA or beta form) must be
 * one of them. Nodes without zone or region labels pass; claims not yet bound are
 * VolumeBinding's to judge.
 */
public final class VolumeZone implements Plugin.PreFilter, Plugin.Filter, Plugin.HandleAware,
        Plugin.EnqueueExtensions {

    public static final String NAME = "VolumeZone";
    public static final String CONFLICT = "node(s) had no available volume zone";
    private static final String ZONES = NAME + "/zones";
    private static final String ZONE = "topology.kubernetes.io/zone";
    private static final String REGION = "topology.kubernetes.io/region";
    private static final String BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";
    private static final String BETA_REGION = "failure-domain.beta.kubernetes.io/region";
    private static final Map<String, String> GA = Map.of(BETA_ZONE, ZONE, BETA_REGION, REGION, ZONE, ZONE,
            REGION, REGION);

    private volatile Handle handle;

    @Override
    public java.util.Map<ClusterEvent, QueueingHint> eventsToRegister() {
        return ClusterVolumes.EVENTS;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void handle(Handle handle) {
        this.handle = handle;
    }

    /** One volume label's constraint: a topology key and the values a node may have for it. */
    private record Constraint(String key, Set<String> values) {
    }

    @Override
    public Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
        ClusterVolumes cluster = handle == null ? ClusterVolumes.NONE : handle.volumes();
        List<Constraint> constraints = new ArrayList<>();
        for (Volume v : pod.getSpec() == null ? List.<Volume>of()
                : Objects.requireNonNullElse(pod.getSpec().getVolumes(), List.<Volume>of())) {
            if (v.getPersistentVolumeClaim() == null) {
                continue;
            }
            PersistentVolumeClaim claim = cluster.claim(pod.getMetadata().getNamespace(),
                    v.getPersistentVolumeClaim().getClaimName()).orElse(null);
            String volume = claim == null || claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
            PersistentVolume pv = volume == null || volume.isEmpty() ? null : cluster.volume(volume).orElse(null);
            if (pv == null) {
                continue;
            }
            Map<String, String> labels = Objects.requireNonNullElse(pv.getMetadata().getLabels(), Map.of());
            for (Map.Entry<String, String> e : labels.entrySet()) {
                if (GA.containsKey(e.getKey())) {
                    constraints.add(new Constraint(e.getKey(), Set.of(e.getValue().split("__"))));
                }
            }
        }
        state.write(ZONES, constraints);
        return Status.SUCCESS;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        List<Constraint> constraints = (List<Constraint>) state.read(ZONES, List.class).orElse(List.of());
        if (constraints.isEmpty()) {
            return Status.SUCCESS;
        }
        Map<String, String> labels = Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.of());
        Map<String, String> topology = new HashMap<>();
        labels.forEach((k, v) -> {
            if (GA.containsKey(k)) {
                topology.put(k, v);
            }
        });
        if (topology.isEmpty()) {
            return Status.SUCCESS; // a node without zones: no volume can be in the wrong one
        }
        for (Constraint c : constraints) {
            String value = topology.containsKey(c.key()) ? topology.get(c.key()) : topology.get(GA.get(c.key()));
            if (value == null || !c.values().contains(value)) {
                return Status.unresolvable(CONFLICT);
            }
        }
        return Status.SUCCESS;
    }
}

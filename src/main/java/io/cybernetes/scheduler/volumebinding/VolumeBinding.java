package io.cybernetes.scheduler.volumebinding;

import io.cybernetes.api.NodeSelectors;
import io.cybernetes.scheduler.framework.ClusterEvent;
import io.cybernetes.scheduler.framework.ClusterVolumes;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A pod's claims must exist and be bound before it is placed, and a bound volume's node
 * affinity must admit the node, as kube-scheduler's VolumeBinding plugin decides, in its
 * words. A claim of a WaitForFirstConsumer class does not hold the pod: the persistent
 * volume controller binds it on the node the pod is placed on.
 */
public final class VolumeBinding implements Plugin.PreFilter, Plugin.Filter, Plugin.HandleAware,
        Plugin.EnqueueExtensions {

    public static final String NAME = "VolumeBinding";
    public static final String UNBOUND = "pod has unbound immediate PersistentVolumeClaims";
    public static final String NODE_CONFLICT = "node(s) had volume node affinity conflict";
    private static final String VOLUMES = NAME + "/volumes";

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

    private ClusterVolumes cluster() {
        return handle == null ? ClusterVolumes.NONE : handle.volumes();
    }

    @Override
    public Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
        List<PersistentVolume> bound = new ArrayList<>();
        for (Volume v : pod.getSpec() == null ? List.<Volume>of()
                : Objects.requireNonNullElse(pod.getSpec().getVolumes(), List.<Volume>of())) {
            if (v.getPersistentVolumeClaim() == null) {
                continue;
            }
            String name = v.getPersistentVolumeClaim().getClaimName();
            PersistentVolumeClaim claim = cluster().claim(pod.getMetadata().getNamespace(), name).orElse(null);
            if (claim == null) {
                return Status.unresolvable("persistentvolumeclaim \"" + name + "\" not found");
            }
            if (claim.getMetadata().getDeletionTimestamp() != null) {
                return Status.unresolvable("persistentvolumeclaim \"" + name + "\" is being deleted");
            }
            String volume = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
            if (volume == null || volume.isEmpty()) {
                String className = Objects.requireNonNullElse(claim.getSpec().getStorageClassName(), "");
                if (cluster().bindingMode(className).filter("WaitForFirstConsumer"::equals).isPresent()) {
                    continue; // bound for this consumer, on the node it is placed on
                }
                return Status.unresolvable(UNBOUND);
            }
            PersistentVolume pv = cluster().volume(volume).orElse(null);
            if (pv == null) {
                return Status.unresolvable("persistentvolume \"" + volume + "\" not found");
            }
            bound.add(pv);
        }
        state.write(VOLUMES, bound);
        return Status.SUCCESS;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
        List<PersistentVolume> bound = (List<PersistentVolume>) state.read(VOLUMES, List.class).orElse(List.of());
        Map<String, String> labels = Objects.requireNonNullElse(node.node().getMetadata().getLabels(), Map.of());
        for (PersistentVolume pv : bound) {
            var affinity = pv.getSpec().getNodeAffinity();
            if (affinity == null || affinity.getRequired() == null
                    || affinity.getRequired().getNodeSelectorTerms() == null) {
                continue;
            }
            boolean fits = false;
            for (NodeSelectorTerm term : affinity.getRequired().getNodeSelectorTerms()) {
                fits |= NodeSelectors.matches(term, node.name(), labels);
            }
            if (!fits) {
                return Status.unresolvable(NODE_CONFLICT);
            }
        }
        return Status.SUCCESS;
    }
}

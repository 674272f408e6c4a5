package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;

import java.util.Optional;

/** The claims and volumes as the scheduler's informers hold them, for the plugins that place pods by their volumes. */
public interface ClusterVolumes {

    Optional<PersistentVolumeClaim> claim(String namespace, String name);

    Optional<PersistentVolume> volume(String name);

    /** The binding mode of a storage class (Immediate or WaitForFirstConsumer), if the class exists. */
    default Optional<String> bindingMode(String storageClass) {
        return Optional.empty();
    }

    /**
     * The events that can help a pod a volume plugin rejected: claims, volumes and classes
     * that come or change, and nodes added or relabelled.
     */
    java.util.Map<ClusterEvent, Plugin.QueueingHint> EVENTS = java.util.Map.of(
            ClusterEvent.PVC_CHANGE, Plugin.QueueingHint.ALWAYS,
            ClusterEvent.PV_CHANGE, Plugin.QueueingHint.ALWAYS,
            ClusterEvent.STORAGE_CLASS_CHANGE, Plugin.QueueingHint.ALWAYS,
            ClusterEvent.NODE_ADD, Plugin.QueueingHint.ALWAYS,
            ClusterEvent.NODE_UPDATE, (pod, before, after) -> !java.util.Objects.equals(
                    ((io.fabric8.kubernetes.api.model.Node) before).getMetadata().getLabels(),
                    ((io.fabric8.kubernetes.api.model.Node) after).getMetadata().getLabels()));

    /** What a scheduler that watches no volumes knows: none. */
    ClusterVolumes NONE = new ClusterVolumes() {
        @Override
        public Optional<PersistentVolumeClaim> claim(String namespace, String name) {
            return Optional.empty();
        }

        @Override
        public Optional<PersistentVolume> volume(String name) {
            return Optional.empty();
        }
    };
}

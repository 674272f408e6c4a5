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

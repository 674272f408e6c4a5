package io.cybernetes.node;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Keys;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a kubelet's volume manager decides before a pod's containers start: every claim the
 * pod mounts must exist and be bound to a volume that exists (read as the node, which may
 * get the claims of its own pods). While one is not, the pod stays ContainerCreating and
 * gets a FailedMount Warning in the kubelet's words, once for each reason.
 */
final class PodVolumes {

    private final ApiClient client;
    private final EventRecorder events;
    /** The last reason told for each pod, so that a pod waiting for the same thing is told once. */
    private final Map<String, String> told = new ConcurrentHashMap<>();

    PodVolumes(ApiClient client) {
        this.client = client;
        this.events = new EventRecorder(client, "kubelet");
    }

    void forget(String key) {
        told.remove(key);
    }

    /** Null when every claim the pod mounts is bound to a volume; else why not (also told as an Event). */
    String unmounted(Pod pod) {
        List<String> waiting = new ArrayList<>();
        String error = null;
        for (Volume v : Objects.requireNonNullElse(pod.getSpec().getVolumes(), List.<Volume>of())) {
            if (v.getPersistentVolumeClaim() == null) {
                continue;
            }
            String claimName = v.getPersistentVolumeClaim().getClaimName();
            String problem = problem(pod.getMetadata().getNamespace(), claimName);
            if (problem != null) {
                waiting.add(v.getName());
                if (error == null) {
                    error = problem;
                }
            }
        }
        String key = Keys.of(pod);
        if (waiting.isEmpty()) {
            told.remove(key);
            return null;
        }
        String message = "Unable to attach or mount volumes: unmounted volumes=" + waiting + ", unattached volumes=[],"
                + " failed to process volumes=" + waiting + ": " + error;
        if (!message.equals(told.put(key, message))) {
            try {
                events.warning(pod, "FailedMount", message);
            } catch (ApiException e) {
                // an event is best effort
            }
        }
        return message;
    }

    private String problem(String namespace, String claimName) {
        PersistentVolumeClaim claim;
        try {
            claim = client.get(PersistentVolumeClaim.class, namespace, claimName).orElse(null);
        } catch (ApiException e) {
            return "error processing PVC " + namespace + "/" + claimName + ": " + e.getMessage();
        }
        if (claim == null) {
            return "error processing PVC " + namespace + "/" + claimName + ": failed to fetch PVC from API server:"
                    + " persistentvolumeclaims \"" + claimName + "\" not found";
        }
        if (claim.getMetadata().getDeletionTimestamp() != null) {
            return "error processing PVC " + namespace + "/" + claimName + ": can't start pod because PVC "
                    + namespace + "/" + claimName + " is being deleted";
        }
        String volume = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
        if (volume == null || volume.isEmpty() || claim.getStatus() == null
                || !"Bound".equals(claim.getStatus().getPhase())) {
            return "error processing PVC " + namespace + "/" + claimName + ": PVC is not bound";
        }
        try {
            if (client.get(PersistentVolume.class, null, volume).isEmpty()) {
                return "error processing PVC " + namespace + "/" + claimName + ": failed to fetch PV " + volume
                        + " from API server: persistentvolumes \"" + volume + "\" not found";
            }
        } catch (ApiException e) {
            return "error processing PVC " + namespace + "/" + claimName + ": " + e.getMessage();
        }
        return null;
    }
}

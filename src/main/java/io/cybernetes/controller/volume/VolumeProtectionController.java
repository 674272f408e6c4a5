package io.cybernetes.controller.volume;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Takes the protection finalizers off what is being deleted once nothing uses it, as
 * Kubernetes' pvc-protection and pv-protection controllers do: a claim once no pod on a node
 * that has not finished mounts it, a volume once it is not bound. Keys are {@code claim/NAMESPACE/NAME}
 * and {@code volume/NAME}.
 */
public final class VolumeProtectionController implements Reconciler {

    public static final String NAME = "volume-protection";
    static final String PVC_PROTECTION = "kubernetes.io/pvc-protection";
    static final String PV_PROTECTION = "kubernetes.io/pv-protection";
    private static final String CLAIM = "claim/";
    private static final String VOLUME = "volume/";

    private final ApiClient client;
    private final Indexer<PersistentVolumeClaim> claims;
    private final Indexer<PersistentVolume> volumes;
    private final Indexer<Pod> pods;

    public VolumeProtectionController(ApiClient client, Indexer<PersistentVolumeClaim> claims,
                                      Indexer<PersistentVolume> volumes, Indexer<Pod> pods) {
        this.client = client;
        this.claims = claims;
        this.volumes = volumes;
        this.pods = pods;
    }

    @Override
    public Result reconcile(Request request) {
        String key = request.key();
        if (key.startsWith(CLAIM)) {
            claims.get(key.substring(CLAIM.length())).filter(c -> deleting(c, PVC_PROTECTION)).ifPresent(c -> {
                if (!inUse(c)) {
                    release(PersistentVolumeClaim.class, c, PVC_PROTECTION);
                }
            });
        } else if (key.startsWith(VOLUME)) {
            volumes.get(key.substring(VOLUME.length())).filter(v -> deleting(v, PV_PROTECTION)).ifPresent(v -> {
                if (v.getStatus() == null || !"Bound".equals(v.getStatus().getPhase())) {
                    release(PersistentVolume.class, v, PV_PROTECTION);
                }
            });
        }
        return Result.DONE;
    }

    private static boolean deleting(HasMetadata o, String finalizer) {
        return o.getMetadata().getDeletionTimestamp() != null
                && Objects.requireNonNullElse(o.getMetadata().getFinalizers(), List.<String>of()).contains(finalizer);
    }

    /**
     * Whether a pod of the claim's namespace that has not finished mounts it: asked of the
     * cache, and when the cache knows none, of the API server (a pod just made may not be in
     * the cache yet), as Kubernetes' pvc-protection controller asks.
     */
    private boolean inUse(PersistentVolumeClaim claim) {
        String ns = claim.getMetadata().getNamespace();
        return mounts(pods.byIndex(Indexer.NAMESPACE_INDEX, ns), claim)
                || mounts(client.list(Pod.class, ns, null).items(), claim);
    }

    private static boolean mounts(List<Pod> candidates, PersistentVolumeClaim claim) {
        for (Pod p : candidates) {
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            // a pod not on a node yet does not use the claim, as Kubernetes' podUsesPVC decides
            if ("Succeeded".equals(phase) || "Failed".equals(phase) || p.getSpec() == null
                    || p.getSpec().getNodeName() == null || p.getSpec().getNodeName().isEmpty()) {
                continue;
            }
            for (Volume v : Objects.requireNonNullElse(p.getSpec().getVolumes(), List.<Volume>of())) {
                if (v.getPersistentVolumeClaim() != null
                        && claim.getMetadata().getName().equals(v.getPersistentVolumeClaim().getClaimName())) {
                    return true;
                }
            }
        }
        return false;
    }

    private <T extends HasMetadata> void release(Class<T> kind, T o, String finalizer) {
        List<String> rest = new ArrayList<>(o.getMetadata().getFinalizers());
        rest.remove(finalizer);
        try {
            client.patch(kind, o.getMetadata().getNamespace(), o.getMetadata().getName(),
                    "{\"metadata\":{\"resourceVersion\":\"" + o.getMetadata().getResourceVersion()
                            + "\",\"finalizers\":" + Json.write(Json.MAPPER.valueToTree(rest)) + "}}");
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
    }

    // ---- informer handlers: only enqueue

    public ResourceEventHandler<PersistentVolumeClaim> claimHandler(Controller c) {
        return c.enqueueMapped(claim -> CLAIM + Keys.of(claim));
    }

    public ResourceEventHandler<PersistentVolume> volumeHandler(Controller c) {
        return c.enqueueMapped(pv -> VOLUME + pv.getMetadata().getName());
    }

    /** A pod that goes or finishes may free the claims it mounted. */
    public ResourceEventHandler<Pod> podHandler(Controller c) {
        return c.enqueueMapped(pod -> {
            if (pod.getSpec() != null) {
                for (Volume v : Objects.requireNonNullElse(pod.getSpec().getVolumes(), List.<Volume>of())) {
                    if (v.getPersistentVolumeClaim() != null) {
                        c.enqueue(CLAIM + pod.getMetadata().getNamespace() + "/"
                                + v.getPersistentVolumeClaim().getClaimName());
                    }
                }
            }
            return null;
        });
    }
}

package io.cybernetes.controller;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Which pods a workload controls, as Kubernetes' controller ref manager decides: those its
 * controller reference names and it still matches; an orphan it matches is adopted (unless
 * it or the pod is being deleted); a pod it controls but no longer matches is released.
 * Each change is a patch of the pod's ownerReferences carrying the pod's uid, so a pod
 * replaced meanwhile is not touched.
 */
public final class PodClaims {

    private PodClaims() {
    }

    /** The pods of the owner's namespace it controls after adopting and releasing. */
    public static List<Pod> claim(ApiClient client, Indexer<Pod> pods, HasMetadata owner, Predicate<Pod> matches) {
        List<Pod> owned = new ArrayList<>();
        String uid = owner.getMetadata().getUid();
        for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, owner.getMetadata().getNamespace())) {
            OwnerReference ref = OwnerReferences.controllerOf(p);
            boolean match = matches.test(p);
            if (ref != null) {
                if (!ref.getUid().equals(uid)) {
                    continue;
                }
                if (match) {
                    owned.add(p);
                } else if (p.getMetadata().getDeletionTimestamp() == null) {
                    List<OwnerReference> refs = new ArrayList<>(p.getMetadata().getOwnerReferences());
                    refs.removeIf(r -> r.getUid().equals(uid));
                    setOwners(client, p, refs);
                }
            } else if (match && owner.getMetadata().getDeletionTimestamp() == null
                    && p.getMetadata().getDeletionTimestamp() == null) {
                List<OwnerReference> refs = new ArrayList<>(Objects.requireNonNullElse(
                        p.getMetadata().getOwnerReferences(), List.of()));
                refs.add(OwnerReferences.controlledBy(owner));
                Pod adopted = setOwners(client, p, refs);
                owned.add(adopted == null ? p : adopted);
            }
        }
        return owned;
    }

    /** Replaces the pod's ownerReferences; null when the pod is gone. */
    private static Pod setOwners(ApiClient client, Pod p, List<OwnerReference> refs) {
        try {
            return client.patch(Pod.class, p.getMetadata().getNamespace(), p.getMetadata().getName(),
                    "{\"metadata\":{\"uid\":\"" + p.getMetadata().getUid() + "\",\"ownerReferences\":"
                            + Json.write(Json.MAPPER.valueToTree(refs)) + "}}");
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
            return null;
        }
    }
}

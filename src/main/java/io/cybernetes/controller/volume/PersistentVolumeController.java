package io.cybernetes.controller.volume;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.NodeSelectors;
import io.cybernetes.api.Quantities;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatus;
import io.fabric8.kubernetes.api.model.PersistentVolumeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.StorageClass;

import java.math.BigDecimal;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Binds claims to volumes as Kubernetes' persistent volume controller does, and provisions
 * volumes for the simulated provisioner ({@value #PROVISIONER}): a claim gets the smallest
 * available volume that fits it (its class, access modes, size, volume mode and selector),
 * or the one it names; without one, a class of this provisioner makes one for it (at once,
 * or, with WaitForFirstConsumer, once a pod that mounts it is on a node: the node is written
 * to the claim as {@value #SELECTED_NODE} and the volume is of that node); a volume whose claim
 * is gone is Released, and deleted when its reclaim policy says Delete; a bound claim that
 * asks for more grows its provisioned volume. Keys are {@code claim/NAMESPACE/NAME} and
 * {@code volume/NAME}.
 */
public final class PersistentVolumeController implements Reconciler {

    public static final String NAME = "persistentvolume-binder";
    public static final String PROVISIONER = "cybernetes.io/simulated";
    static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";
    static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
    static final String STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
    static final String BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
    static final String BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";
    private static final String CLAIM = "claim/";
    private static final String VOLUME = "volume/";

    private final ApiClient client;
    private final Indexer<PersistentVolumeClaim> claims;
    private final Indexer<PersistentVolume> volumes;
    private final Indexer<StorageClass> classes;
    private final Indexer<Pod> pods;
    private final EventRecorder events;

    public PersistentVolumeController(ApiClient client, Indexer<PersistentVolumeClaim> claims,
                                      Indexer<PersistentVolume> volumes, Indexer<StorageClass> classes,
                                      Indexer<Pod> pods, EventRecorder events) {
        this.client = client;
        this.claims = claims;
        this.volumes = volumes;
        this.classes = classes;
        this.pods = pods;
        this.events = events;
    }

    @Override
    public Result reconcile(Request request) {
        String key = request.key();
        if (key.startsWith(VOLUME)) {
            volumes.get(key.substring(VOLUME.length())).ifPresent(this::syncVolume);
        } else if (key.startsWith(CLAIM)) {
            claims.get(key.substring(CLAIM.length())).ifPresent(this::syncClaim);
        }
        return Result.DONE;
    }

    // ---- claims

    private void syncClaim(PersistentVolumeClaim claim) {
        if (claim.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        String volumeName = claim.getSpec().getVolumeName();
        if (volumeName != null && !volumeName.isEmpty()) {
            Optional<PersistentVolume> pv = volumes.get(volumeName);
            if (pv.isEmpty()) {
                if ("Bound".equals(phase(claim))) {
                    setClaimPhase(claim, "Lost");
                    events.warning(claim, "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is"
                            + " lost!");
                }
                return;
            }
            ObjectReference ref = pv.get().getSpec().getClaimRef();
            if (ref == null || claim.getMetadata().getUid().equals(ref.getUid())
                    || (ref.getUid() == null && sameClaim(ref, claim))) {
                if (!"Bound".equals(phase(claim)) || ref == null || ref.getUid() == null) {
                    bind(pv.get(), claim);
                } else {
                    expand(claim, pv.get());
                }
            }
            return;
        }
        if (claim.getSpec().getStorageClassName() == null) {
            // made while no class was default: it gets the default class once there is one (Kubernetes'
            // retroactive default StorageClass assignment); "" asks for none and keeps it
            String fallback = io.cybernetes.api.StorageClasses.defaultOf(classes.list().stream().map(Json::toTree)
                    .toList()).orElse(null);
            if (fallback != null) {
                PersistentVolumeClaim assigned = Json.convert(Json.toTree(claim), PersistentVolumeClaim.class);
                assigned.getSpec().setStorageClassName(fallback);
                client.update(assigned);
                return; // the update comes back as an event and is reconciled then
            }
        }
        String className = Objects.requireNonNullElse(claim.getSpec().getStorageClassName(), "");
        StorageClass sc = className.isEmpty() ? null : classes.get(className).orElse(null);
        String node = annotations(claim).get(SELECTED_NODE);
        if (sc != null && "WaitForFirstConsumer".equals(sc.getVolumeBindingMode()) && node == null) {
            node = consumerNode(claim);
            if (node == null) {
                events.normal(claim, "WaitForFirstConsumer", "waiting for first consumer to be created before binding");
                return;
            }
            PersistentVolumeClaim selected = Json.convert(Json.toTree(claim), PersistentVolumeClaim.class);
            selected.getMetadata().setAnnotations(with(selected.getMetadata().getAnnotations(), SELECTED_NODE, node));
            claim = client.update(selected);
        }
        PersistentVolume match = findMatch(claim, node);
        if (match != null) {
            bind(match, claim);
            return;
        }
        if (sc == null) {
            events.normal(claim, "FailedBinding", className.isEmpty()
                    ? "no persistent volumes available for this claim and no storage class is set"
                    : "storageclass.storage.k8s.io \"" + className + "\" not found");
            return;
        }
        if (!PROVISIONER.equals(sc.getProvisioner())) {
            events.normal(claim, "ExternalProvisioning", "Waiting for a volume to be created either by the external"
                    + " provisioner '" + sc.getProvisioner() + "' or manually by the system administrator. If volume"
                    + " creation is delayed, please verify that the provisioner is running and correctly registered.");
            return;
        }
        provision(claim, sc, node);
    }

    /**
     * The node a consumer of a WaitForFirstConsumer claim was placed on: a pod on a node that
     * mounts it (the scheduler let it through for this), or null while there is none.
     */
    private String consumerNode(PersistentVolumeClaim claim) {
        for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, claim.getMetadata().getNamespace())) {
            String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
            if (node == null || node.isEmpty() || p.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            for (Volume v : Objects.requireNonNullElse(p.getSpec().getVolumes(), List.<Volume>of())) {
                if (v.getPersistentVolumeClaim() != null
                        && claim.getMetadata().getName().equals(v.getPersistentVolumeClaim().getClaimName())) {
                    return node;
                }
            }
        }
        return null;
    }

    /**
     * The smallest available volume that fits: class, access modes, size, volume mode,
     * selector, and (for a claim placed on a node) a node affinity that admits the node.
     */
    private PersistentVolume findMatch(PersistentVolumeClaim claim, String node) {
        String className = Objects.requireNonNullElse(claim.getSpec().getStorageClassName(), "");
        BigDecimal wanted = size(claim.getSpec().getResources() == null ? null
                : claim.getSpec().getResources().getRequests());
        List<String> modes = Objects.requireNonNullElse(claim.getSpec().getAccessModes(), List.of());
        String mode = Objects.requireNonNullElse(claim.getSpec().getVolumeMode(), "Filesystem");
        LabelSelector selector = claim.getSpec().getSelector() == null ? LabelSelector.EVERYTHING
                : LabelSelector.fromObject(Json.toTree(claim.getSpec().getSelector()));
        return volumes.list().stream()
                .filter(pv -> pv.getMetadata().getDeletionTimestamp() == null)
                .filter(pv -> {
                    ObjectReference ref = pv.getSpec().getClaimRef();
                    return ref == null ? "Available".equals(phase(pv)) : sameClaim(ref, claim)
                            && (ref.getUid() == null || ref.getUid().equals(claim.getMetadata().getUid()));
                })
                .filter(pv -> className.equals(Objects.requireNonNullElse(pv.getSpec().getStorageClassName(), "")))
                .filter(pv -> mode.equals(Objects.requireNonNullElse(pv.getSpec().getVolumeMode(), "Filesystem")))
                .filter(pv -> Objects.requireNonNullElse(pv.getSpec().getAccessModes(), List.<String>of())
                        .containsAll(modes))
                .filter(pv -> size(pv.getSpec().getCapacity()).compareTo(wanted) >= 0)
                .filter(pv -> selector.matches(Objects.requireNonNullElse(pv.getMetadata().getLabels(), Map.of())))
                .filter(pv -> node == null || admits(pv, node))
                .min(Comparator.comparing((PersistentVolume pv) -> size(pv.getSpec().getCapacity()))
                        .thenComparing(pv -> pv.getSpec().getClaimRef() == null ? 1 : 0)
                        .thenComparing(pv -> pv.getMetadata().getName()))
                .orElse(null);
    }

    /** A volume of the simulated provisioner for the claim: its size, modes and class, pre-bound to it. */
    private void provision(PersistentVolumeClaim claim, StorageClass sc, String node) {
        String name = "pvc-" + claim.getMetadata().getUid();
        if (volumes.get(name).isPresent()) {
            return; // made already; binding follows when it is seen
        }
        PersistentVolumeBuilder pv = new PersistentVolumeBuilder().withNewMetadata().withName(name)
                .addToAnnotations(PROVISIONED_BY, PROVISIONER).endMetadata()
                .withNewSpec()
                .withCapacity(Map.of("storage", claim.getSpec().getResources().getRequests().get("storage")))
                .withAccessModes(claim.getSpec().getAccessModes())
                .withVolumeMode(claim.getSpec().getVolumeMode())
                .withStorageClassName(sc.getMetadata().getName())
                .withPersistentVolumeReclaimPolicy(Objects.requireNonNullElse(sc.getReclaimPolicy(), "Delete"))
                .withClaimRef(reference(claim))
                .withNewHostPath().withPath("/var/lib/cybernetes/volumes/" + name).withType("DirectoryOrCreate")
                .endHostPath()
                .endSpec();
        if (node != null) {
            pv.editSpec().withNewNodeAffinity().withNewRequired().addNewNodeSelectorTerm().addNewMatchExpression()
                    .withKey("kubernetes.io/hostname").withOperator("In").withValues(node).endMatchExpression()
                    .endNodeSelectorTerm().endRequired().endNodeAffinity().endSpec();
        }
        try {
            client.create(pv.build());
            events.normal(claim, "ProvisioningSucceeded", "Successfully provisioned volume " + name);
        } catch (ApiException e) {
            if (e.code() != 409) {
                events.warning(claim, "ProvisioningFailed", "failed to provision volume with StorageClass \""
                        + sc.getMetadata().getName() + "\": " + e.getMessage());
                throw e;
            }
        }
    }

    /** Points volume and claim at each other, then marks both Bound with the volume's size and modes. */
    private void bind(PersistentVolume pv, PersistentVolumeClaim claim) {
        PersistentVolume volume = Json.convert(Json.toTree(pv), PersistentVolume.class);
        boolean byController = volume.getSpec().getClaimRef() == null;
        ObjectReference ref = reference(claim);
        if (!Objects.equals(volume.getSpec().getClaimRef(), ref)) {
            volume.getSpec().setClaimRef(ref);
            if (byController) {
                volume.getMetadata().setAnnotations(with(volume.getMetadata().getAnnotations(), BOUND_BY_CONTROLLER,
                        "yes"));
            }
            volume = client.update(volume);
        }
        if (!"Bound".equals(phase(volume))) {
            volume.setStatus(status(volume, "Bound"));
            volume = client.updateStatus(volume);
        }
        PersistentVolumeClaim c = Json.convert(Json.toTree(claim), PersistentVolumeClaim.class);
        if (!pv.getMetadata().getName().equals(c.getSpec().getVolumeName())
                || !"yes".equals(annotations(c).get(BIND_COMPLETED))) {
            c.getSpec().setVolumeName(pv.getMetadata().getName());
            Map<String, String> a = with(c.getMetadata().getAnnotations(), BIND_COMPLETED, "yes");
            if (byController) {
                a.put(BOUND_BY_CONTROLLER, "yes");
            }
            if (PROVISIONER.equals(annotations(pv).get(PROVISIONED_BY))) {
                a.put(STORAGE_PROVISIONER, PROVISIONER);
            }
            c.getMetadata().setAnnotations(a);
            c = client.update(c);
        }
        PersistentVolumeClaimStatus st = new PersistentVolumeClaimStatus();
        st.setPhase("Bound");
        st.setAccessModes(volume.getSpec().getAccessModes());
        st.setCapacity(volume.getSpec().getCapacity());
        if (!Json.toTree(st).equals(Json.toTree(c.getStatus()))) {
            c.setStatus(st);
            client.updateStatus(c);
        }
    }

    /** A bound claim asking for more than it has: its provisioned volume grows, then the claim's capacity. */
    private void expand(PersistentVolumeClaim claim, PersistentVolume pv) {
        BigDecimal wanted = size(claim.getSpec().getResources().getRequests());
        BigDecimal has = size(claim.getStatus() == null ? null : claim.getStatus().getCapacity());
        if (wanted.compareTo(has) <= 0 || !PROVISIONER.equals(annotations(pv).get(PROVISIONED_BY))) {
            return;
        }
        Quantity storage = claim.getSpec().getResources().getRequests().get("storage");
        if (size(pv.getSpec().getCapacity()).compareTo(wanted) < 0) {
            PersistentVolume grown = Json.convert(Json.toTree(pv), PersistentVolume.class);
            grown.getSpec().setCapacity(Map.of("storage", storage));
            client.update(grown);
        }
        PersistentVolumeClaim c = Json.convert(Json.toTree(claim), PersistentVolumeClaim.class);
        c.getStatus().setCapacity(Map.of("storage", storage));
        client.updateStatus(c);
        events.normal(claim, "FileSystemResizeSuccessful", "MountVolume.NodeExpandVolume succeeded for volume \""
                + pv.getMetadata().getName() + "\"");
    }

    // ---- volumes

    /** A volume being deleted is still followed: its claim going releases it, and then its protection lets it go. */
    private void syncVolume(PersistentVolume pv) {
        ObjectReference ref = pv.getSpec().getClaimRef();
        if (ref == null) {
            setVolumePhase(pv, "Available", null);
            return;
        }
        PersistentVolumeClaim claim = claims.get(ref.getNamespace() + "/" + ref.getName()).orElse(null);
        boolean gone = claim == null || (ref.getUid() != null && !ref.getUid().equals(claim.getMetadata().getUid()));
        if (!gone) {
            if (ref.getUid() != null && pv.getMetadata().getName().equals(claim.getSpec().getVolumeName())) {
                setVolumePhase(pv, "Bound", null);
            }
            return; // the claim's sync binds it
        }
        if (ref.getUid() == null) {
            setVolumePhase(pv, "Available", null); // pre-bound to a claim that does not exist yet
            return;
        }
        if ("Delete".equals(pv.getSpec().getPersistentVolumeReclaimPolicy())) {
            if (PROVISIONER.equals(annotations(pv).get(PROVISIONED_BY))) {
                setVolumePhase(pv, "Released", null);
                try {
                    client.delete(PersistentVolume.class, null, pv.getMetadata().getName(), null);
                } catch (ApiException e) {
                    if (e.code() != 404) {
                        throw e;
                    }
                }
                return;
            }
            setVolumePhase(pv, "Failed", "error getting deleter volume plugin for volume \""
                    + pv.getMetadata().getName() + "\": no deletable volume plugin matched");
            return;
        }
        setVolumePhase(pv, "Released", null);
    }

    private void setVolumePhase(PersistentVolume pv, String phase, String message) {
        if (phase.equals(phase(pv)) && Objects.equals(message, pv.getStatus() == null ? null
                : pv.getStatus().getMessage())) {
            return;
        }
        PersistentVolume copy = Json.convert(Json.toTree(pv), PersistentVolume.class);
        PersistentVolumeStatus st = status(copy, phase);
        st.setMessage(message);
        copy.setStatus(st);
        client.updateStatus(copy);
    }

    private void setClaimPhase(PersistentVolumeClaim claim, String phase) {
        PersistentVolumeClaim copy = Json.convert(Json.toTree(claim), PersistentVolumeClaim.class);
        copy.getStatus().setPhase(phase);
        client.updateStatus(copy);
    }

    // ---- helpers

    /** Whether a volume's node affinity admits the node (by its name and host name label). */
    private static boolean admits(PersistentVolume pv, String node) {
        var affinity = pv.getSpec().getNodeAffinity();
        if (affinity == null || affinity.getRequired() == null || affinity.getRequired().getNodeSelectorTerms() == null) {
            return true;
        }
        Map<String, String> labels = Map.of("kubernetes.io/hostname", node);
        return affinity.getRequired().getNodeSelectorTerms().stream()
                .anyMatch(t -> NodeSelectors.matches(t, node, labels));
    }

    private static PersistentVolumeStatus status(PersistentVolume pv, String phase) {
        PersistentVolumeStatus st = pv.getStatus() == null ? new PersistentVolumeStatus() : pv.getStatus();
        st.setPhase(phase);
        return st;
    }

    private static ObjectReference reference(PersistentVolumeClaim claim) {
        return new ObjectReferenceBuilder().withKind("PersistentVolumeClaim").withApiVersion("v1")
                .withNamespace(claim.getMetadata().getNamespace()).withName(claim.getMetadata().getName())
                .withUid(claim.getMetadata().getUid()).build();
    }

    private static boolean sameClaim(ObjectReference ref, PersistentVolumeClaim claim) {
        return claim.getMetadata().getName().equals(ref.getName())
                && claim.getMetadata().getNamespace().equals(ref.getNamespace());
    }

    private static String phase(PersistentVolumeClaim c) {
        return c.getStatus() == null ? null : c.getStatus().getPhase();
    }

    private static String phase(PersistentVolume pv) {
        return pv.getStatus() == null ? null : pv.getStatus().getPhase();
    }

    private static BigDecimal size(Map<String, Quantity> resources) {
        Quantity q = resources == null ? null : resources.get("storage");
        try {
            return q == null ? BigDecimal.ZERO : Quantities.parse(q.toString());
        } catch (RuntimeException e) {
            return BigDecimal.ZERO;
        }
    }

    private static Map<String, String> annotations(io.fabric8.kubernetes.api.model.HasMetadata o) {
        return Objects.requireNonNullElse(o.getMetadata().getAnnotations(), Map.of());
    }

    private static Map<String, String> with(Map<String, String> annotations, String key, String value) {
        Map<String, String> out = new HashMap<>(Objects.requireNonNullElse(annotations, Map.of()));
        out.put(key, value);
        return out;
    }

    // ---- informer handlers: only enqueue

    /** A claim queues itself and the volume it names (a claim gone releases its volume). */
    public ResourceEventHandler<PersistentVolumeClaim> claimHandler(Controller c) {
        return c.enqueueMapped(claim -> {
            String volume = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
            if (volume != null && !volume.isEmpty()) {
                c.enqueue(VOLUME + volume);
            }
            return CLAIM + Keys.of(claim);
        });
    }

    /** A volume queues itself and the claim it names (it may be that claim's match, or its provisioned volume). */
    public ResourceEventHandler<PersistentVolume> volumeHandler(Controller c) {
        return c.enqueueMapped(pv -> {
            ObjectReference ref = pv.getSpec() == null ? null : pv.getSpec().getClaimRef();
            if (ref != null) {
                c.enqueue(CLAIM + ref.getNamespace() + "/" + ref.getName());
            } else {
                claims.list().stream().filter(claim -> !"Bound".equals(phase(claim)))
                        .forEach(claim -> c.enqueue(CLAIM + Keys.of(claim)));
            }
            return VOLUME + pv.getMetadata().getName();
        });
    }

    /** A pod placed on a node queues the claims it mounts (one of a WaitForFirstConsumer class waits for it). */
    public ResourceEventHandler<Pod> podHandler(Controller c) {
        return c.enqueueMapped(pod -> {
            if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
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

    /** A class that comes queues the claims still waiting. */
    public ResourceEventHandler<StorageClass> classHandler(Controller c) {
        return c.enqueueMapped(sc -> {
            claims.list().stream().filter(claim -> !"Bound".equals(phase(claim)))
                    .forEach(claim -> c.enqueue(CLAIM + Keys.of(claim)));
            return null;
        });
    }
}

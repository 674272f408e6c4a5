package io.cybernetes.controller.statefulset;

import io.cybernetes.api.Json;
import io.cybernetes.controller.ControllerHistory;
import io.cybernetes.controller.OwnerReferences;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimVolumeSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A StatefulSet's pods and claims as Kubernetes makes them: pod {@code NAME-ORDINAL} with the
 * pod-name and pod-index labels and the revision it was made from, its host name its own
 * name and its subdomain the set's Service; for each claim template a claim
 * {@code TEMPLATE-NAME-ORDINAL} labelled with the set's selector and mounted as the
 * template's volume, owned by the set when it is deleted with it.
 */
final class StatefulPods {

    static final String POD_NAME = "statefulset.kubernetes.io/pod-name";
    static final String POD_INDEX = "apps.kubernetes.io/pod-index";
    private static final Pattern ORDINAL = Pattern.compile("^(.*)-([0-9]+)$");

    private StatefulPods() {
    }

    static String podName(StatefulSet set, int ordinal) {
        return set.getMetadata().getName() + "-" + ordinal;
    }

    /** The ordinal in a pod's name when the name is the set's, or -1. */
    static int ordinal(StatefulSet set, Pod pod) {
        Matcher m = ORDINAL.matcher(pod.getMetadata().getName());
        if (!m.matches() || !m.group(1).equals(set.getMetadata().getName())) {
            return -1;
        }
        try {
            return Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static int start(StatefulSet set) {
        return set.getSpec().getOrdinals() == null ? 0
                : Objects.requireNonNullElse(set.getSpec().getOrdinals().getStart(), 0);
    }

    static String claimName(PersistentVolumeClaim template, String pod) {
        return template.getMetadata().getName() + "-" + pod;
    }

    /** The pod of {@code ordinal}, made from {@code template} (the set at a revision) with that revision's name. */
    static Pod newPod(StatefulSet set, StatefulSet template, String revision, int ordinal) {
        String name = podName(set, ordinal);
        Pod pod = new Pod();
        ObjectMeta meta = template.getSpec().getTemplate().getMetadata() == null ? new ObjectMeta()
                : Json.convert(Json.toTree(template.getSpec().getTemplate().getMetadata()), ObjectMeta.class);
        meta.setName(name);
        meta.setGenerateName(null);
        meta.setNamespace(set.getMetadata().getNamespace());
        meta.setOwnerReferences(List.of(OwnerReferences.controlledBy(set)));
        Map<String, String> labels = new HashMap<>(Objects.requireNonNullElse(meta.getLabels(), Map.of()));
        labels.put(ControllerHistory.REVISION_LABEL, revision);
        meta.setLabels(labels);
        pod.setMetadata(meta);
        pod.setSpec(Json.convert(Json.toTree(template.getSpec().getTemplate().getSpec()), PodSpec.class));
        establishIdentity(set, pod, ordinal);
        mountClaims(set, pod);
        return pod;
    }

    /** Sets what makes the pod the set's {@code ordinal}: its labels, host name and subdomain. */
    static void establishIdentity(StatefulSet set, Pod pod, int ordinal) {
        Map<String, String> labels = new HashMap<>(Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of()));
        labels.put(POD_NAME, pod.getMetadata().getName());
        labels.put(POD_INDEX, Integer.toString(ordinal));
        pod.getMetadata().setLabels(labels);
        pod.getSpec().setHostname(pod.getMetadata().getName());
        String service = set.getSpec().getServiceName();
        pod.getSpec().setSubdomain(service == null || service.isEmpty() ? null : service);
    }

    /** Whether the pod has the identity of its ordinal (a pod changed by hand gets it back). */
    static boolean identityMatches(StatefulSet set, Pod pod, int ordinal) {
        Map<String, String> labels = Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
        String service = set.getSpec().getServiceName();
        return pod.getMetadata().getName().equals(labels.get(POD_NAME))
                && Integer.toString(ordinal).equals(labels.get(POD_INDEX))
                && pod.getMetadata().getName().equals(pod.getSpec().getHostname())
                && Objects.equals(service == null || service.isEmpty() ? null : service, pod.getSpec().getSubdomain());
    }

    /** The claim templates' volumes, in place of the template's volumes of the same names. */
    private static void mountClaims(StatefulSet set, Pod pod) {
        List<PersistentVolumeClaim> templates = Objects.requireNonNullElse(set.getSpec().getVolumeClaimTemplates(),
                List.of());
        if (templates.isEmpty()) {
            return;
        }
        List<Volume> volumes = new ArrayList<>(Objects.requireNonNullElse(pod.getSpec().getVolumes(), List.of()));
        for (PersistentVolumeClaim t : templates) {
            volumes.removeIf(v -> v.getName().equals(t.getMetadata().getName()));
            Volume v = new Volume();
            v.setName(t.getMetadata().getName());
            v.setPersistentVolumeClaim(new PersistentVolumeClaimVolumeSource(claimName(t, pod.getMetadata().getName()),
                    false));
            volumes.add(v);
        }
        pod.getSpec().setVolumes(volumes);
    }

    /** The claims a pod needs, as they are to be created. */
    static List<PersistentVolumeClaim> claims(StatefulSet set, String pod) {
        List<PersistentVolumeClaim> out = new ArrayList<>();
        boolean deleteWithSet = set.getSpec().getPersistentVolumeClaimRetentionPolicy() != null
                && "Delete".equals(set.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted());
        for (PersistentVolumeClaim t : Objects.requireNonNullElse(set.getSpec().getVolumeClaimTemplates(),
                List.<PersistentVolumeClaim>of())) {
            PersistentVolumeClaim c = Json.convert(Json.toTree(t), PersistentVolumeClaim.class);
            c.setStatus(null);
            c.getMetadata().setName(claimName(t, pod));
            c.getMetadata().setNamespace(set.getMetadata().getNamespace());
            Map<String, String> labels = new HashMap<>(Objects.requireNonNullElse(c.getMetadata().getLabels(), Map.of()));
            if (set.getSpec().getSelector() != null && set.getSpec().getSelector().getMatchLabels() != null) {
                labels.putAll(set.getSpec().getSelector().getMatchLabels());
            }
            c.getMetadata().setLabels(labels);
            if (deleteWithSet) {
                c.getMetadata().setOwnerReferences(List.of(owner(set)));
            }
            out.add(c);
        }
        return out;
    }

    /** A non-controller reference that lets the garbage collector delete a claim with its owner. */
    static OwnerReference owner(io.fabric8.kubernetes.api.model.HasMetadata o) {
        OwnerReference r = OwnerReferences.controlledBy(o);
        r.setController(false);
        r.setBlockOwnerDeletion(true);
        return r;
    }
}

package io.cybernetes.controller.daemon;

import io.cybernetes.api.Json;
import io.cybernetes.api.NodeSelectors;
import io.cybernetes.api.Tolerations;
import io.cybernetes.controller.ControllerHistory;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Pods;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A DaemonSet's pods as Kubernetes makes them: the template with the revision's hash and
 * the template generation as labels, pinned to their node by a required node affinity on
 * {@code metadata.name} (the scheduler binds them), and tolerating what a daemon must
 * tolerate (not-ready and unreachable nodes, pressure, cordons); and whether a node should
 * run one, by the template's node selector and affinity and the node's taints.
 */
final class DaemonPods {

    /** The label with the DaemonSet's template generation, as Kubernetes still sets it. */
    static final String TEMPLATE_GENERATION = "pod-template-generation";
    /** The annotation the API server counts a DaemonSet's template changes in. */
    static final String TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";

    private DaemonPods() {
    }

    /** Whether a node should run the DaemonSet's pod, and whether one already there may stay. */
    record Placement(boolean shouldRun, boolean shouldContinueRunning) {
    }

    /** The template as a pod for {@code node}, with the daemon tolerations: what a node is judged against. */
    static Pod templatePod(DaemonSet ds, String node) {
        Pod pod = new Pod();
        pod.setMetadata(Json.convert(Json.toTree(ds.getSpec().getTemplate().getMetadata() == null
                ? new io.fabric8.kubernetes.api.model.ObjectMeta() : ds.getSpec().getTemplate().getMetadata()),
                io.fabric8.kubernetes.api.model.ObjectMeta.class));
        pod.setSpec(Json.convert(Json.toTree(ds.getSpec().getTemplate().getSpec()),
                io.fabric8.kubernetes.api.model.PodSpec.class));
        pod.getSpec().setTolerations(withDaemonTolerations(pod.getSpec().getTolerations(),
                Boolean.TRUE.equals(pod.getSpec().getHostNetwork())));
        if (node != null) {
            pod.getSpec().setNodeName(node);
        }
        return pod;
    }

    /**
     * Kubernetes' rules: the pod's node name, node selector and required affinity must fit;
     * an untolerated NoSchedule taint keeps a new pod off but lets one there stay, an
     * untolerated NoExecute taint does neither.
     */
    static Placement placement(Pod templatePod, Node node) {
        String name = node.getMetadata().getName();
        String pinned = templatePod.getSpec().getNodeName();
        if ((pinned != null && !pinned.isEmpty() && !pinned.equals(name)) || !NodeSelectors.required(templatePod, node)) {
            return new Placement(false, false);
        }
        List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
        boolean schedule = true;
        for (Taint t : Objects.requireNonNullElse(taints, List.<Taint>of())) {
            boolean hard = "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect());
            if (!hard || Tolerations.toleratedBy(templatePod.getSpec().getTolerations(), t)) {
                continue;
            }
            if ("NoExecute".equals(t.getEffect())) {
                return new Placement(false, false);
            }
            schedule = false;
        }
        return new Placement(schedule, true);
    }

    /** The DaemonSet's pod for a node, made from its current revision. */
    static Pod newPod(DaemonSet ds, String node, String hash) {
        Pod pod = templatePod(ds, null);
        Map<String, String> labels = new HashMap<>(Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of()));
        labels.put(ControllerHistory.REVISION_LABEL, hash);
        labels.put(TEMPLATE_GENERATION, templateGeneration(ds));
        pod.getMetadata().setLabels(labels);
        pod.getMetadata().setName(null);
        pod.getMetadata().setGenerateName(ds.getMetadata().getName() + "-");
        pod.getMetadata().setNamespace(ds.getMetadata().getNamespace());
        pod.getMetadata().setOwnerReferences(List.of(OwnerReferences.controlledBy(ds)));
        pinTo(pod, node);
        return pod;
    }

    static String templateGeneration(DaemonSet ds) {
        Map<String, String> a = ds.getMetadata().getAnnotations();
        return a == null ? "1" : a.getOrDefault(TEMPLATE_GENERATION_ANNOTATION, "1");
    }

    /**
     * Requires the node by name: the required node affinity becomes the one term
     * {@code metadata.name In [node]}, as Kubernetes pins a daemon pod (the template's own
     * terms decided whether the node runs it; the preferred ones stay).
     */
    static void pinTo(Pod pod, String node) {
        NodeSelectorRequirement byName = new NodeSelectorRequirementBuilder().withKey("metadata.name")
                .withOperator("In").withValues(node).build();
        var spec = pod.getSpec();
        if (spec.getAffinity() == null) {
            spec.setAffinity(new io.fabric8.kubernetes.api.model.Affinity());
        }
        if (spec.getAffinity().getNodeAffinity() == null) {
            spec.getAffinity().setNodeAffinity(new io.fabric8.kubernetes.api.model.NodeAffinity());
        }
        spec.getAffinity().getNodeAffinity().setRequiredDuringSchedulingIgnoredDuringExecution(
                new io.fabric8.kubernetes.api.model.NodeSelector(List.of(new NodeSelectorTerm(List.of(),
                        List.of(byName)))));
    }

    /** The node a pod is for: the one it is bound to, or the one its affinity names while it waits. */
    static String targetNode(Pod pod) {
        if (pod.getSpec() == null) {
            return null;
        }
        if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty()) {
            return pod.getSpec().getNodeName();
        }
        var affinity = pod.getSpec().getAffinity();
        var required = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null || required.getNodeSelectorTerms() == null) {
            return null;
        }
        for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
            for (NodeSelectorRequirement r : Objects.requireNonNullElse(term.getMatchFields(),
                    List.<NodeSelectorRequirement>of())) {
                if ("metadata.name".equals(r.getKey()) && "In".equals(r.getOperator()) && r.getValues() != null
                        && r.getValues().size() == 1) {
                    return r.getValues().get(0);
                }
            }
        }
        return null;
    }

    /** Ready for at least {@code minReadySeconds} by {@code now}, and not being deleted. */
    static boolean available(Pod pod, int minReadySeconds, Instant now) {
        return pod.getMetadata().getDeletionTimestamp() == null && Pods.available(pod, minReadySeconds, now);
    }

    static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Failed".equals(phase) || "Succeeded".equals(phase);
    }

    /** The tolerations with those a daemon pod always has (added where the pod has none for the key and effect). */
    static List<Toleration> withDaemonTolerations(List<Toleration> own, boolean hostNetwork) {
        List<Toleration> out = new ArrayList<>(Objects.requireNonNullElse(own, List.of()));
        add(out, "node.kubernetes.io/not-ready", "NoExecute");
        add(out, "node.kubernetes.io/unreachable", "NoExecute");
        add(out, "node.kubernetes.io/disk-pressure", "NoSchedule");
        add(out, "node.kubernetes.io/memory-pressure", "NoSchedule");
        add(out, "node.kubernetes.io/pid-pressure", "NoSchedule");
        add(out, "node.kubernetes.io/unschedulable", "NoSchedule");
        if (hostNetwork) {
            add(out, "node.kubernetes.io/network-unavailable", "NoSchedule");
        }
        return out;
    }

    private static void add(List<Toleration> tolerations, String key, String effect) {
        boolean present = tolerations.stream().anyMatch(t -> key.equals(t.getKey()) && effect.equals(t.getEffect()));
        if (!present) {
            tolerations.add(new TolerationBuilder().withKey(key).withOperator("Exists").withEffect(effect).build());
        }
    }
}

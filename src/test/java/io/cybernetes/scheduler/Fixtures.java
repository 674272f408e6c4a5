package io.cybernetes.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

import java.util.Map;

/** Nodes and pods for the plugins' tables. */
public final class Fixtures {

    private Fixtures() {
    }

    /** A node with allocatable cpu (e.g. "4"), memory (e.g. "8Gi") and pods. */
    public static NodeBuilder node(String name, String cpu, String memory, int pods) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().endSpec()
                .withNewStatus().withAllocatable(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory),
                        "pods", new Quantity(Integer.toString(pods)))).endStatus();
    }

    public static Node node(String name) {
        return node(name, "4", "8Gi", 110).build();
    }

    /** A pod of one container requesting cpu and memory (null: nothing). */
    public static PodBuilder pod(String name, String cpu, String memory) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("nginx").withNewResources()
                .endResources().endContainer().endSpec();
        if (cpu != null) {
            b.editSpec().editFirstContainer().editResources().addToRequests("cpu", new Quantity(cpu)).endResources()
                    .endContainer().endSpec();
        }
        if (memory != null) {
            b.editSpec().editFirstContainer().editResources().addToRequests("memory", new Quantity(memory))
                    .endResources().endContainer().endSpec();
        }
        return b;
    }

    public static Pod pod(String name) {
        return pod(name, null, null).build();
    }

    /** Normalizes scores kept by node name, as the framework normalizes them in the order scored. */
    public static void normalize(io.cybernetes.scheduler.framework.Plugin.Score plugin,
                                 io.cybernetes.scheduler.framework.CycleState state, Pod pod, Map<String, Long> scores) {
        java.util.List<String> names = new java.util.ArrayList<>(scores.keySet());
        long[] values = names.stream().mapToLong(scores::get).toArray();
        plugin.normalize(state, pod, values);
        for (int i = 0; i < values.length; i++) {
            scores.put(names.get(i), values[i]);
        }
    }

    /** A scheduler handle whose cluster holds these claims (by name, any namespace) and volumes. */
    public static io.cybernetes.scheduler.framework.Plugin.Handle volumes(
            java.util.Map<String, io.fabric8.kubernetes.api.model.PersistentVolumeClaim> claims,
            java.util.Map<String, io.fabric8.kubernetes.api.model.PersistentVolume> volumes) {
        return new io.cybernetes.scheduler.framework.Plugin.Handle() {
            @Override
            public io.cybernetes.scheduler.framework.Status runFilters(
                    io.cybernetes.scheduler.framework.CycleState state, Pod pod,
                    io.cybernetes.scheduler.framework.NodeInfo node) {
                return io.cybernetes.scheduler.framework.Status.SUCCESS;
            }

            @Override
            public void addPod(io.cybernetes.scheduler.framework.CycleState state, Pod pod, Pod added,
                               io.cybernetes.scheduler.framework.NodeInfo node) {
            }

            @Override
            public void removePod(io.cybernetes.scheduler.framework.CycleState state, Pod pod, Pod removed,
                                  io.cybernetes.scheduler.framework.NodeInfo node) {
            }

            @Override
            public java.util.List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget> disruptionBudgets() {
                return java.util.List.of();
            }

            @Override
            public io.cybernetes.scheduler.framework.ClusterVolumes volumes() {
                return new io.cybernetes.scheduler.framework.ClusterVolumes() {
                    @Override
                    public java.util.Optional<io.fabric8.kubernetes.api.model.PersistentVolumeClaim> claim(
                            String namespace, String name) {
                        return java.util.Optional.ofNullable(claims.get(name));
                    }

                    @Override
                    public java.util.Optional<io.fabric8.kubernetes.api.model.PersistentVolume> volume(String name) {
                        return java.util.Optional.ofNullable(volumes.get(name));
                    }
                };
            }
        };
    }

    /** A pod that mounts one claim. */
    public static Pod claiming(String claim) {
        return new PodBuilder().withNewMetadata().withName("p").withNamespace("ns").endMetadata().withNewSpec()
                .addNewVolume().withName("v").withNewPersistentVolumeClaim().withClaimName(claim)
                .endPersistentVolumeClaim().endVolume().endSpec().build();
    }

    /** A plugin's PreFilter, then (when that passed) its Filter on the node, as one scheduling cycle runs them. */
    public static <P extends io.cybernetes.scheduler.framework.Plugin.PreFilter
            & io.cybernetes.scheduler.framework.Plugin.Filter> io.cybernetes.scheduler.framework.Status preFilterAndFilter(
            P plugin, Pod pod, io.cybernetes.scheduler.framework.NodeInfo node) {
        io.cybernetes.scheduler.framework.CycleState state = new io.cybernetes.scheduler.framework.CycleState();
        io.cybernetes.scheduler.framework.Status s = plugin.preFilter(state, pod, java.util.List.of(node));
        return s.isSuccess() ? plugin.filter(state, pod, node) : s;
    }
}

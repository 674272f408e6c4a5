package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One node as the scheduler sees it: the Node, the pods bound (or assumed) to it, what
 * they request in all, the host ports they hold and the images the node has; and the pods
 * nominated to it (waiting for preempted pods to leave). Immutable: adding a pod makes a
 * new one.
 */
public final class NodeInfo {

    private final Node node;
    private final List<Pod> pods;
    private final Resources allocatable;
    private final Resources requested;
    private final Resources nonZeroRequested;
    private final Set<String> usedPorts;
    private final Map<String, Long> imageSizes;
    private final List<Pod> nominated;

    private NodeInfo(Node node, List<Pod> pods, Resources requested, Resources nonZeroRequested, Set<String> usedPorts,
                     List<Pod> nominated) {
        this.node = node;
        this.pods = List.copyOf(pods);
        this.nominated = List.copyOf(nominated);
        Resources alloc = node.getStatus() == null ? Resources.NONE
                : Resources.of(node.getStatus().getAllocatable() != null && !node.getStatus().getAllocatable().isEmpty()
                ? node.getStatus().getAllocatable() : node.getStatus().getCapacity());
        this.allocatable = alloc;
        this.requested = requested;
        this.nonZeroRequested = nonZeroRequested;
        this.usedPorts = Set.copyOf(usedPorts);
        Map<String, Long> images = new HashMap<>();
        if (node.getStatus() != null && node.getStatus().getImages() != null) {
            for (ContainerImage image : node.getStatus().getImages()) {
                for (String name : Objects.requireNonNullElse(image.getNames(), List.<String>of())) {
                    images.put(name, Objects.requireNonNullElse(image.getSizeBytes(), 0L));
                }
            }
        }
        this.imageSizes = Map.copyOf(images);
    }

    public static NodeInfo of(Node node, List<Pod> pods) {
        Resources requested = Resources.NONE;
        Resources nonZero = Resources.NONE;
        Set<String> ports = new HashSet<>();
        for (Pod p : pods) {
            requested = requested.plus(Resources.requestedBy(p));
            nonZero = nonZero.plus(Resources.nonZeroRequestedBy(p));
            ports.addAll(hostPorts(p));
        }
        return new NodeInfo(node, pods, requested, nonZero, ports, List.of());
    }

    /** This node with these pods nominated to it. */
    public NodeInfo withNominated(List<Pod> nominatedPods) {
        return new NodeInfo(node, pods, requested, nonZeroRequested, usedPorts, nominatedPods);
    }

    /** This node without the pods (compared by namespace and name). */
    public NodeInfo without(java.util.Collection<Pod> gone) {
        Set<String> keys = new HashSet<>();
        gone.forEach(p -> keys.add(key(p)));
        return of(node, pods.stream().filter(p -> !keys.contains(key(p))).toList()).withNominated(nominated);
    }

    private static String key(Pod p) {
        return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }
    /** This node with one more pod on it. */
    public NodeInfo withPod(Pod pod) {
        List<Pod> more = new ArrayList<>(pods);
        more.add(pod);
        Set<String> ports = new HashSet<>(usedPorts);
        ports.addAll(hostPorts(pod));
        return new NodeInfo(node, more, requested.plus(Resources.requestedBy(pod)),
                nonZeroRequested.plus(Resources.nonZeroRequestedBy(pod)), ports, nominated);
    }

    /** The host ports a pod wants, as {@code protocol/hostIP/port} (hostIP 0.0.0.0 when unset). */
    public static Set<String> hostPorts(Pod pod) {
        Set<String> out = new HashSet<>();
        if (pod.getSpec() == null) {
            return out;
        }
        for (Container c : Objects.requireNonNullElse(pod.getSpec().getContainers(), List.<Container>of())) {
            for (ContainerPort p : Objects.requireNonNullElse(c.getPorts(), List.<ContainerPort>of())) {
                if (p.getHostPort() != null && p.getHostPort() > 0) {
                    String ip = p.getHostIP() == null || p.getHostIP().isEmpty() ? "0.0.0.0" : p.getHostIP();
                    String protocol = p.getProtocol() == null ? "TCP" : p.getProtocol();
                    out.add(protocol + "/" + ip + "/" + p.getHostPort());
                }
            }
        }
        return out;
    }

    public Node node() {
        return node;
    }

    public String name() {
        return node.getMetadata().getName();
    }

    public List<Pod> pods() {
        return pods;
    }

    /** The pods nominated to this node by preemption, not yet bound. */
    public List<Pod> nominatedPods() {
        return nominated;
    }

    public Resources allocatable() {
        return allocatable;
    }

    public Resources requested() {
        return requested;
    }

    public Resources nonZeroRequested() {
        return nonZeroRequested;
    }

    public Set<String> usedPorts() {
        return usedPorts;
    }

    /** The size of the image on this node, or 0 when it does not have it. */
    public long imageSize(String image) {
        return imageSizes.getOrDefault(image, 0L);
    }
}

package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One node as the scheduler sees it: the Node, the pods bound (or assumed) to it, what
 * they request in all, the host ports they hold and the images the node has; and the pods
 * nominated to it (waiting for preempted pods to leave). Immutable: a pod added or taken
 * away makes a new one, which reuses what did not change (the node's allocatable and
 * images are read once per Node, a pod's requests once per change), so that the
 * scheduler's cache can follow thousands of nodes incrementally.
 */
public final class NodeInfo {

    private final Node node;
    private final List<Pod> pods;
    /** What each of {@link #pods} requests, in the same order: computed once as a pod arrives, not on every copy. */
    private final List<Resources> podRequests;
    private final Resources allocatable;
    private final Resources requested;
    private final Resources nonZeroRequested;
    private final Set<String> usedPorts;
    private final Map<String, Long> imageSizes;
    private final List<Pod> nominated;
    /** Computed when first asked for (the scheduler's cache asks; preemption's dry run's copies do not). */
    private List<Pod> withRequiredAntiAffinity;

    private NodeInfo(Node node, List<Pod> pods, List<Resources> podRequests, Resources allocatable,
                     Map<String, Long> imageSizes, Resources requested, Resources nonZeroRequested, Set<String> usedPorts,
                     List<Pod> nominated) {
        this.node = node;
        this.pods = List.copyOf(pods);
        this.podRequests = List.copyOf(podRequests);
        this.allocatable = allocatable;
        this.imageSizes = imageSizes;
        this.requested = requested;
        this.nonZeroRequested = nonZeroRequested;
        this.usedPorts = Set.copyOf(usedPorts);
        this.nominated = List.copyOf(nominated);
    }

    private static Resources allocatableOf(Node node) {
        if (node.getStatus() == null) {
            return Resources.NONE;
        }
        return Resources.of(node.getStatus().getAllocatable() != null && !node.getStatus().getAllocatable().isEmpty()
                ? node.getStatus().getAllocatable() : node.getStatus().getCapacity());
    }

    private static Map<String, Long> imagesOf(Node node) {
        Map<String, Long> images = new HashMap<>();
        if (node.getStatus() != null && node.getStatus().getImages() != null) {
            for (ContainerImage image : node.getStatus().getImages()) {
                for (String name : Objects.requireNonNullElse(image.getNames(), List.<String>of())) {
                    images.put(name, Objects.requireNonNullElse(image.getSizeBytes(), 0L));
                }
            }
        }
        return Map.copyOf(images);
    }

    public static NodeInfo of(Node node, List<Pod> pods) {
        Resources requested = Resources.NONE;
        Resources nonZero = Resources.NONE;
        Set<String> ports = new HashSet<>();
        List<Resources> each = new ArrayList<>(pods.size());
        for (Pod p : pods) {
            Resources r = Resources.requestedBy(p);
            each.add(r);
            requested = requested.plus(r);
            nonZero = nonZero.plus(Resources.nonZero(r));
            ports.addAll(hostPorts(p));
        }
        return new NodeInfo(node, pods, each, allocatableOf(node), imagesOf(node), requested, nonZero, ports, List.of());
    }

    /** The same pods on the node as it is now (its allocatable, images, labels, taints may have changed). */
    public NodeInfo withNode(Node changed) {
        return new NodeInfo(changed, pods, podRequests, allocatableOf(changed), imagesOf(changed), requested,
                nonZeroRequested, usedPorts, nominated);
    }

    /** This node with these pods nominated to it. */
    public NodeInfo withNominated(List<Pod> nominatedPods) {
        return new NodeInfo(node, pods, podRequests, allocatable, imageSizes, requested, nonZeroRequested, usedPorts,
                nominatedPods);
    }

    /** This node with one more pod on it. */
    public NodeInfo withPod(Pod pod) {
        return withPod(pod, Resources.requestedBy(pod));
    }

    /**
     * This node with one more pod on it, whose requests are known already (as {@link #requestsOf} gives them for a
     * pod taken off a node a moment ago: preemption's dry run puts back pod after pod).
     */
    public NodeInfo withPod(Pod pod, Resources requests) {
        List<Pod> more = new ArrayList<>(pods.size() + 1);
        more.addAll(pods);
        more.add(pod);
        List<Resources> moreRequests = new ArrayList<>(podRequests.size() + 1);
        moreRequests.addAll(podRequests);
        moreRequests.add(requests);
        Set<String> ports = usedPorts;
        Set<String> wanted = hostPorts(pod);
        if (!wanted.isEmpty()) {
            ports = new HashSet<>(usedPorts);
            ports.addAll(wanted);
        }
        return new NodeInfo(node, more, moreRequests, allocatable, imageSizes, requested.plus(requests),
                nonZeroRequested.plus(Resources.nonZero(requests)), ports, nominated);
    }

    /** What the pod requests: as this node counted it when the pod is on it, else computed from its spec. */
    public Resources requestsOf(Pod pod) {
        int i = indexOf(pod);
        return i >= 0 ? podRequests.get(i) : Resources.requestedBy(pod);
    }

    /** Where the pod (the same namespace and name) is in {@link #pods}, or -1. */
    private int indexOf(Pod pod) {
        for (int i = 0; i < pods.size(); i++) {
            if (pods.get(i) == pod || samePod(pods.get(i), pod)) {
                return i;
            }
        }
        return -1;
    }

    /** This node without the pod (compared by namespace and name); itself when the pod is not on it. */
    public NodeInfo withoutPod(Pod pod) {
        int at = indexOf(pod);
        if (at < 0) {
            return this;
        }
        Pod gone = pods.get(at);
        List<Pod> rest = new ArrayList<>(pods);
        rest.remove(at);
        List<Resources> restRequests = new ArrayList<>(podRequests);
        Resources r = restRequests.remove(at);
        Set<String> ports = usedPorts;
        if (!hostPorts(gone).isEmpty()) {
            ports = new HashSet<>();
            for (Pod p : rest) {
                ports.addAll(hostPorts(p));
            }
        }
        return new NodeInfo(node, rest, restRequests, allocatable, imageSizes, requested.minus(r),
                nonZeroRequested.minus(Resources.nonZero(r)), ports, nominated);
    }

    /** This node without the pods (compared by namespace and name). */
    public NodeInfo without(Collection<Pod> gone) {
        NodeInfo out = this;
        for (Pod p : gone) {
            out = out.withoutPod(p);
        }
        return out;
    }

    private static boolean samePod(Pod a, Pod b) {
        return Objects.equals(a.getMetadata().getName(), b.getMetadata().getName())
                && Objects.equals(a.getMetadata().getNamespace(), b.getMetadata().getNamespace());
    }

    /** The host ports a pod wants, as {@code protocol/hostIP/port} (hostIP 0.0.0.0 when unset). */
    public static Set<String> hostPorts(Pod pod) {
        if (pod.getSpec() == null) {
            return Set.of();
        }
        Set<String> out = null;
        for (Container c : Objects.requireNonNullElse(pod.getSpec().getContainers(), List.<Container>of())) {
            for (ContainerPort p : Objects.requireNonNullElse(c.getPorts(), List.<ContainerPort>of())) {
                if (p.getHostPort() != null && p.getHostPort() > 0) {
                    String ip = p.getHostIP() == null || p.getHostIP().isEmpty() ? "0.0.0.0" : p.getHostIP();
                    String protocol = p.getProtocol() == null ? "TCP" : p.getProtocol();
                    if (out == null) {
                        out = new HashSet<>();
                    }
                    out.add(protocol + "/" + ip + "/" + p.getHostPort());
                }
            }
        }
        return out == null ? Set.of() : out;
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

    private static boolean hasRequiredAntiAffinity(Pod p) {
        var a = p.getSpec() == null ? null : p.getSpec().getAffinity();
        return a != null && a.getPodAntiAffinity() != null
                && a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null
                && !a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().isEmpty();
    }

    /** The pods on this node with required pod anti-affinity (they may keep others away), as kube-scheduler keeps them. */
    public List<Pod> podsWithRequiredAntiAffinity() {
        List<Pod> found = withRequiredAntiAffinity;
        if (found == null) {
            // an immutable list, so a thread that sees the field set sees it whole; two may compute it alike
            found = pods.stream().filter(NodeInfo::hasRequiredAntiAffinity).toList();
            withRequiredAntiAffinity = found;
        }
        return found;
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

    /** Whether the node reports any image. */
    public boolean hasImages() {
        return !imageSizes.isEmpty();
    }

    /** The size of the image on this node, or 0 when it does not have it. */
    public long imageSize(String image) {
        return imageSizes.getOrDefault(image, 0L);
    }
}

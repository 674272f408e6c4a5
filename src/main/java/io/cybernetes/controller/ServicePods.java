package io.cybernetes.controller;

import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the endpoint controllers share: which pods a Service selects, which of them belong
 * in its endpoints and whether they are ready, the port a Service port's target names on a
 * pod, and the pod changes that matter to endpoints (Kubernetes' endpoint utilities).
 */
public final class ServicePods {

    private ServicePods() {
    }

    /** The Service's selector, or null when it has none: such a Service's endpoints are written by someone else. */
    public static Map<String, String> selector(Service svc) {
        Map<String, String> s = svc.getSpec() == null ? null : svc.getSpec().getSelector();
        return s == null || s.isEmpty() ? null : s;
    }

    /** Whether the controllers fill the Service's endpoints: it has a selector and is not an ExternalName alias. */
    public static boolean managed(Service svc) {
        return selector(svc) != null && !"ExternalName".equals(svc.getSpec().getType());
    }

    public static boolean selects(Service svc, Pod pod) {
        Map<String, String> s = selector(svc);
        Map<String, String> labels = pod.getMetadata().getLabels();
        return s != null && labels != null && labels.entrySet().containsAll(s.entrySet());
    }

    /** The pods of the Service's namespace its selector matches. */
    public static List<Pod> selected(Indexer<Pod> pods, Service svc) {
        List<Pod> out = new ArrayList<>();
        for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, svc.getMetadata().getNamespace())) {
            if (selects(svc, p)) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * Whether the pod is an endpoint at all: it has an address and has not finished; a
     * terminating one only when asked to include those.
     */
    public static boolean inEndpoints(Pod pod, boolean includeTerminating) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
            return false;
        }
        if (address(pod) == null) {
            return false;
        }
        return includeTerminating || pod.getMetadata().getDeletionTimestamp() == null;
    }

    /** The pod's IPv4 address (the only family Services here have), or null while it has none. */
    public static String address(Pod pod) {
        if (pod.getStatus() == null) {
            return null;
        }
        for (PodIP ip : Objects.requireNonNullElse(pod.getStatus().getPodIPs(), List.<PodIP>of())) {
            if (ip.getIp() != null && ip.getIp().indexOf(':') < 0) {
                return ip.getIp();
            }
        }
        String ip = pod.getStatus().getPodIP();
        return ip == null || ip.isEmpty() || ip.indexOf(':') >= 0 ? null : ip;
    }

    public static boolean ready(Pod pod) {
        return Pods.ready(pod);
    }

    /** The pod's host name as an endpoint of the Service: set when the pod names the Service as its subdomain. */
    public static String hostname(Service svc, Pod pod) {
        String hostname = pod.getSpec().getHostname();
        return hostname != null && !hostname.isEmpty() && svc.getMetadata().getName().equals(pod.getSpec().getSubdomain())
                ? hostname : null;
    }

    /** The reference an endpoint gives to the pod behind it. */
    public static ObjectReference reference(Pod pod) {
        return new ObjectReferenceBuilder().withKind("Pod").withNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build();
    }

    public static boolean terminating(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null;
    }

    /**
     * The pod's port a Service port sends to: the number itself, or the container port of
     * that name and protocol; null when the pod has no such port (it then is no endpoint of it).
     */
    public static Integer targetPort(ServicePort port, Pod pod) {
        IntOrString target = port.getTargetPort();
        if (target == null) {
            return port.getPort();
        }
        if (target.getIntVal() != null) {
            return target.getIntVal();
        }
        String name = target.getStrVal();
        String protocol = Objects.requireNonNullElse(port.getProtocol(), "TCP");
        for (Container c : Objects.requireNonNullElse(pod.getSpec().getContainers(), List.<Container>of())) {
            for (ContainerPort cp : Objects.requireNonNullElse(c.getPorts(), List.<ContainerPort>of())) {
                if (name.equals(cp.getName()) && protocol.equals(Objects.requireNonNullElse(cp.getProtocol(), "TCP"))) {
                    return cp.getContainerPort();
                }
            }
        }
        return null;
    }

    /** A Service port and the pod's port it leads to. */
    public record ResolvedPort(ServicePort servicePort, int port) {

        public String protocol() {
            return Objects.requireNonNullElse(servicePort.getProtocol(), "TCP");
        }
    }

    /** The Service's ports the pod serves, each with the pod's port number, in the Service's order. */
    public static List<ResolvedPort> resolvedPorts(Service svc, Pod pod) {
        List<ResolvedPort> out = new ArrayList<>();
        for (ServicePort sp : Objects.requireNonNullElse(svc.getSpec().getPorts(), List.<ServicePort>of())) {
            Integer target = targetPort(sp, pod);
            if (target != null) {
                out.add(new ResolvedPort(sp, target));
            }
        }
        return out;
    }

    /**
     * The pod's endpoint as the controllers see it, for telling whether an update matters:
     * labels, addresses, readiness, deletion, node, phase, host name and ports.
     */
    private static List<Object> endpointView(Pod p) {
        List<Object> ports = new ArrayList<>();
        for (Container c : Objects.requireNonNullElse(p.getSpec().getContainers(), List.<Container>of())) {
            ports.add(c.getPorts());
        }
        return java.util.Arrays.asList(p.getMetadata().getLabels(), address(p), ready(p),
                p.getMetadata().getDeletionTimestamp(), p.getSpec().getNodeName(),
                p.getStatus() == null ? null : p.getStatus().getPhase(), p.getSpec().getHostname(),
                p.getSpec().getSubdomain(), ports);
    }

    /** The Services of the pod's namespace that select it. */
    public static Set<String> servicesOf(Indexer<Service> services, Pod pod) {
        Set<String> keys = new LinkedHashSet<>();
        for (Service s : services.byIndex(Indexer.NAMESPACE_INDEX, pod.getMetadata().getNamespace())) {
            if (selects(s, pod)) {
                keys.add(Keys.of(s));
            }
        }
        return keys;
    }

    /**
     * A pod handler that queues the Services selecting the pod before and after a change
     * that matters to their endpoints (a status heartbeat that changes none of it queues nothing).
     */
    public static ResourceEventHandler<Pod> podHandler(Indexer<Service> services, Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                servicesOf(services, pod).forEach(controller::enqueue);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                if (endpointView(oldPod).equals(endpointView(newPod))) {
                    return;
                }
                Set<String> keys = servicesOf(services, newPod);
                keys.addAll(servicesOf(services, oldPod));
                keys.forEach(controller::enqueue);
            }

            @Override
            public void onDelete(Pod lastKnown, boolean finalStateUnknown) {
                servicesOf(services, lastKnown).forEach(controller::enqueue);
            }
        };
    }
}

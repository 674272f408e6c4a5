package io.cybernetes.controller.endpoint;

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
import io.cybernetes.controller.ServicePods;
import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Keeps the legacy Endpoints object of each Service with a selector in step with the pods
 * it selects, as Kubernetes' endpoints controller: one object named as the Service, its
 * subsets grouping the addresses that serve the same ports (named target ports resolved on
 * each pod), Ready pods under {@code addresses} and the others under
 * {@code notReadyAddresses}, terminating pods left out (all of them listed as ready with
 * {@code publishNotReadyAddresses}); at most 1,000 addresses, the rest cut off with the
 * {@code over-capacity} annotation. A Service without a selector keeps the Endpoints
 * someone writes for it; a Service deleted takes its Endpoints with it. The object carries
 * the skip-mirror label, as it has slices of its own.
 */
public final class EndpointsController implements Reconciler {

    public static final String NAME = "endpoints";
    public static final String SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror";
    public static final String OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity";
    static final String HEADLESS = "service.kubernetes.io/headless";
    static final int MAX_ADDRESSES = 1000;

    private final ApiClient client;
    private final Indexer<Service> services;
    private final Indexer<Pod> pods;
    private final Indexer<Endpoints> endpoints;

    public EndpointsController(ApiClient client, Indexer<Service> services, Indexer<Pod> pods,
                               Indexer<Endpoints> endpoints) {
        this.client = client;
        this.services = services;
        this.pods = pods;
        this.endpoints = endpoints;
    }

    @Override
    public Result reconcile(Request request) {
        Service svc = services.get(request.key()).orElse(null);
        Endpoints current = endpoints.get(request.key()).orElse(null);
        if (svc == null) {
            if (current != null) {
                try {
                    client.delete(Endpoints.class, request.namespace(), request.name(), null);
                } catch (ApiException e) {
                    if (e.code() != 404) {
                        throw e;
                    }
                }
            }
            return Result.DONE;
        }
        if (ServicePods.selector(svc) == null || svc.getMetadata().getDeletionTimestamp() != null) {
            return Result.DONE;
        }
        List<EndpointSubset> subsets = subsets(svc);
        boolean truncated = truncate(subsets, MAX_ADDRESSES);
        Map<String, String> labels = labels(svc);
        if (current != null && tree(subsets).equals(tree(Objects.requireNonNullElse(current.getSubsets(), List.of())))
                && labels.equals(Objects.requireNonNullElse(current.getMetadata().getLabels(), Map.of()))
                && truncated == annotations(current).containsKey(OVER_CAPACITY)) {
            return Result.DONE;
        }
        Endpoints want = new Endpoints();
        ObjectMeta meta = new ObjectMeta();
        meta.setName(svc.getMetadata().getName());
        meta.setNamespace(svc.getMetadata().getNamespace());
        meta.setLabels(labels);
        Map<String, String> annotations = current == null ? new LinkedHashMap<>()
                : new LinkedHashMap<>(annotations(current));
        if (truncated) {
            annotations.put(OVER_CAPACITY, "truncated");
        } else {
            annotations.remove(OVER_CAPACITY);
        }
        meta.setAnnotations(annotations.isEmpty() ? null : annotations);
        want.setMetadata(meta);
        want.setSubsets(subsets);
        if (current == null) {
            try {
                client.create(want);
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
                return Result.REQUEUE; // there already: the cache has not shown it yet
            }
        } else {
            meta.setResourceVersion(current.getMetadata().getResourceVersion());
            client.update(want);
        }
        return Result.DONE;
    }

    private static JsonNode tree(List<?> list) {
        return Json.MAPPER.valueToTree(list);
    }

    private static Map<String, String> annotations(Endpoints e) {
        return Objects.requireNonNullElse(e.getMetadata().getAnnotations(), Map.of());
    }

    /** The Service's labels with skip-mirror (and headless for a Service without an address). */
    static Map<String, String> labels(Service svc) {
        Map<String, String> labels = new LinkedHashMap<>(Objects.requireNonNullElse(svc.getMetadata().getLabels(),
                Map.of()));
        labels.put(SKIP_MIRROR, "true");
        if ("None".equals(svc.getSpec().getClusterIP())) {
            labels.put(HEADLESS, "");
        } else {
            labels.remove(HEADLESS);
        }
        return labels;
    }

    /** The subsets: addresses grouped by the ports they serve, in a stable order. */
    private List<EndpointSubset> subsets(Service svc) {
        boolean tolerate = Boolean.TRUE.equals(svc.getSpec().getPublishNotReadyAddresses());
        List<ServicePort> servicePorts = Objects.requireNonNullElse(svc.getSpec().getPorts(), List.of());
        boolean headless = "None".equals(svc.getSpec().getClusterIP());
        Map<String, EndpointSubset> byPorts = new TreeMap<>();
        for (Pod pod : ServicePods.selected(pods, svc)) {
            if (!ServicePods.inEndpoints(pod, tolerate)) {
                continue;
            }
            List<EndpointPort> ports = new ArrayList<>();
            for (ServicePods.ResolvedPort rp : ServicePods.resolvedPorts(svc, pod)) {
                String name = rp.servicePort().getName();
                ports.add(new EndpointPort(rp.servicePort().getAppProtocol(), name == null || name.isEmpty() ? null
                        : name, rp.port(), rp.protocol()));
            }
            if (ports.isEmpty() && !(servicePorts.isEmpty() && headless)) {
                continue; // serves none of the Service's ports
            }
            ports.sort(Comparator.comparing((EndpointPort p) -> Objects.requireNonNullElse(p.getName(), ""))
                    .thenComparing(EndpointPort::getPort).thenComparing(EndpointPort::getProtocol));
            EndpointSubset subset = byPorts.computeIfAbsent(Json.write(tree(ports)), k -> {
                EndpointSubset s = new EndpointSubset();
                s.setPorts(ports.isEmpty() ? null : ports);
                s.setAddresses(new ArrayList<>());
                s.setNotReadyAddresses(new ArrayList<>());
                return s;
            });
            (tolerate || ServicePods.ready(pod) ? subset.getAddresses() : subset.getNotReadyAddresses())
                    .add(address(svc, pod));
        }
        List<EndpointSubset> out = new ArrayList<>();
        Comparator<EndpointAddress> byIp = Comparator.comparing(EndpointAddress::getIp)
                .thenComparing(a -> a.getTargetRef().getUid());
        for (EndpointSubset s : byPorts.values()) {
            s.getAddresses().sort(byIp);
            s.getNotReadyAddresses().sort(byIp);
            out.add(s);
        }
        return out;
    }

    private static EndpointAddress address(Service svc, Pod pod) {
        EndpointAddress a = new EndpointAddress();
        a.setIp(ServicePods.address(pod));
        a.setHostname(ServicePods.hostname(svc, pod));
        String node = pod.getSpec().getNodeName();
        a.setNodeName(node == null || node.isEmpty() ? null : node);
        a.setTargetRef(ServicePods.reference(pod));
        return a;
    }

    /**
     * Cuts the subsets down to {@code max} addresses, ready ones kept first; empty lists become
     * absent, as on the wire. Returns whether any address was cut.
     */
    static boolean truncate(List<EndpointSubset> subsets, int max) {
        int left = max;
        boolean cut = false;
        for (EndpointSubset s : subsets) {
            int keep = Math.min(left, s.getAddresses().size());
            cut |= keep < s.getAddresses().size();
            s.setAddresses(new ArrayList<>(s.getAddresses().subList(0, keep)));
            left -= keep;
        }
        for (EndpointSubset s : subsets) {
            int keep = Math.min(left, s.getNotReadyAddresses().size());
            cut |= keep < s.getNotReadyAddresses().size();
            s.setNotReadyAddresses(new ArrayList<>(s.getNotReadyAddresses().subList(0, keep)));
            left -= keep;
        }
        subsets.removeIf(s -> s.getAddresses().isEmpty() && s.getNotReadyAddresses().isEmpty());
        for (EndpointSubset s : subsets) {
            s.setAddresses(s.getAddresses().isEmpty() ? null : s.getAddresses());
            s.setNotReadyAddresses(s.getNotReadyAddresses().isEmpty() ? null : s.getNotReadyAddresses());
        }
        return cut;
    }

    public ResourceEventHandler<Service> serviceHandler(Controller controller) {
        return controller.enqueueOnEveryChange();
    }

    /** Endpoints edited or deleted by someone else are put right again. */
    public ResourceEventHandler<Endpoints> endpointsHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onUpdate(Endpoints oldObj, Endpoints newObj) {
                controller.enqueue(Keys.of(newObj));
            }

            @Override
            public void onDelete(Endpoints lastKnown, boolean finalStateUnknown) {
                controller.enqueue(Keys.of(lastKnown));
            }
        };
    }

    public ResourceEventHandler<Pod> podHandler(Controller controller) {
        return ServicePods.podHandler(services, controller);
    }
}

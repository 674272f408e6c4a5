package io.cybernetes.controller.endpointslice;

import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.cybernetes.controller.ServicePods;
import io.cybernetes.controller.WrittenVersions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps each Service's EndpointSlices listing the pods it selects, as Kubernetes'
 * EndpointSlice controller: one endpoint a pod with an address (terminating ones too),
 * {@code ready} when the pod is Ready and not terminating, {@code serving} when it is Ready,
 * {@code terminating} while it is being deleted ({@code publishNotReadyAddresses} makes
 * every listed pod ready and serving); named target ports resolved on each pod, the pods
 * grouped by the ports they end up with; slices of at most 100 endpoints planned by
 * {@link SlicePlan}, owned by the Service and labelled with its name and this controller's.
 * Services without a selector, and ExternalName ones, get none from it (their slices are
 * someone else's). What it wrote is remembered until the informer shows it, so a lagging
 * cache never makes it write twice.
 */
public final class EndpointSliceController implements Reconciler {

    public static final String NAME = "endpointslice";
    public static final String SERVICE_NAME = "kubernetes.io/service-name";
    public static final String MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
    public static final String CONTROLLER = "endpointslice-controller.k8s.io";
    public static final String HEADLESS = "service.kubernetes.io/headless";
    static final String BY_SERVICE = "endpointslice.service";
    static final String ZONE = "topology.kubernetes.io/zone";
    static final int MAX_ENDPOINTS = 100;

    private final ApiClient client;
    private final Indexer<Service> services;
    private final Indexer<Pod> pods;
    private final Indexer<EndpointSlice> slices;
    private final Indexer<Node> nodes;
    private final int maxEndpoints;
    /** The slices this controller wrote, by Service key, until the informer shows them. */
    private final WrittenVersions written = new WrittenVersions();

    public EndpointSliceController(ApiClient client, Indexer<Service> services, Indexer<Pod> pods,
                                   Indexer<EndpointSlice> slices, Indexer<Node> nodes) {
        this(client, services, pods, slices, nodes, MAX_ENDPOINTS);
    }

    EndpointSliceController(ApiClient client, Indexer<Service> services, Indexer<Pod> pods,
                            Indexer<EndpointSlice> slices, Indexer<Node> nodes, int maxEndpoints) {
        this.client = client;
        this.services = services;
        this.pods = pods;
        this.slices = slices;
        this.nodes = nodes;
        this.maxEndpoints = maxEndpoints;
        if (!slices.hasIndex(BY_SERVICE)) {
            slices.addIndex(BY_SERVICE, s -> {
                String svc = serviceOf(s);
                return svc == null ? List.of() : List.of(s.getMetadata().getNamespace() + "/" + svc);
            });
        }
    }

    /** What identifies a port mapping: its ports, whatever their order (shared with the mirroring controller). */
    public static String portsKey(List<EndpointPort> ports) {
        return SlicePlan.key(ports);
    }

    /** The Service a slice of this controller's belongs to, or null for anyone else's slice. */
    static String serviceOf(EndpointSlice s) {
        Map<String, String> labels = s.getMetadata().getLabels();
        return labels == null || !CONTROLLER.equals(labels.get(MANAGED_BY)) ? null : labels.get(SERVICE_NAME);
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        String key = request.key();
        Service svc = services.get(key).orElse(null);
        if (svc == null) {
            written.forget(key); // its slices go with it: they are owned
            return Result.DONE;
        }
        List<EndpointSlice> existing = new ArrayList<>(slices.byIndex(BY_SERVICE, key));
        if (written.stale(key, existing)) {
            return Result.after(Duration.ofMillis(200));
        }
        if (svc.getMetadata().getDeletionTimestamp() != null) {
            return Result.DONE;
        }
        if (!ServicePods.managed(svc)) {
            for (EndpointSlice s : existing) {
                delete(key, s);
            }
            return Result.DONE;
        }
        for (EndpointSlice s : List.copyOf(existing)) {
            if (!ownedBy(s, svc)) {
                existing.remove(s);
                delete(key, s);
            }
        }
        SlicePlan.Writes w = SlicePlan.plan(desired(svc), existing, maxEndpoints);
        Map<String, String> labels = labels(svc);
        List<EndpointSlice> relabel = new ArrayList<>();
        for (EndpointSlice s : existing) {
            if (!w.update().stream().anyMatch(u -> sameName(u, s)) && !w.delete().contains(s)
                    && !labels.equals(s.getMetadata().getLabels())) {
                relabel.add(s);
            }
        }
        for (EndpointSlice s : w.delete()) {
            delete(key, s);
        }
        for (EndpointSlice s : w.update()) {
            s.getMetadata().setLabels(labels);
            remember(key, client.update(s));
        }
        for (EndpointSlice s : relabel) {
            s.getMetadata().setLabels(labels);
            remember(key, client.update(s));
        }
        for (EndpointSlice s : w.create()) {
            remember(key, client.create(newSlice(svc, labels, s)));
        }
        return Result.DONE;
    }

    private static boolean sameName(EndpointSlice a, EndpointSlice b) {
        return a.getMetadata().getName().equals(b.getMetadata().getName());
    }

    /** A slice with this controller's labels but another owner (a Service made again under the name) is deleted. */
    private static boolean ownedBy(EndpointSlice s, Service svc) {
        var ref = OwnerReferences.controllerOf(s);
        return ref != null && svc.getMetadata().getUid().equals(ref.getUid());
    }

    /** The endpoints the Service should have, by port mapping. */
    private Map<String, SlicePlan.Mapping> desired(Service svc) {
        boolean publishNotReady = Boolean.TRUE.equals(svc.getSpec().getPublishNotReadyAddresses());
        Map<String, SlicePlan.Mapping> byPorts = new LinkedHashMap<>();
        for (Pod pod : ServicePods.selected(pods, svc)) {
            if (!ServicePods.inEndpoints(pod, true)) {
                continue;
            }
            List<EndpointPort> ports = new ArrayList<>();
            for (ServicePods.ResolvedPort rp : ServicePods.resolvedPorts(svc, pod)) {
                ports.add(new EndpointPort(rp.servicePort().getAppProtocol(),
                        Objects.requireNonNullElse(rp.servicePort().getName(), ""), rp.port(), rp.protocol()));
            }
            Endpoint ep = endpoint(svc, pod, publishNotReady);
            byPorts.computeIfAbsent(SlicePlan.key(ports), k -> new SlicePlan.Mapping(ports, new LinkedHashMap<>()))
                    .endpoints().put(SlicePlan.address(ep), ep);
        }
        return byPorts;
    }

    private Endpoint endpoint(Service svc, Pod pod, boolean publishNotReady) {
        boolean ready = ServicePods.ready(pod);
        boolean terminating = ServicePods.terminating(pod);
        Endpoint ep = new Endpoint();
        ep.setAddresses(new ArrayList<>(List.of(ServicePods.address(pod))));
        EndpointConditions c = new EndpointConditions();
        c.setReady(publishNotReady || ready && !terminating);
        c.setServing(publishNotReady || ready);
        c.setTerminating(terminating);
        ep.setConditions(c);
        ep.setHostname(ServicePods.hostname(svc, pod));
        String node = pod.getSpec().getNodeName();
        if (node != null && !node.isEmpty()) {
            ep.setNodeName(node);
            nodes.get(node).map(n -> n.getMetadata().getLabels()).map(l -> l.get(ZONE)).ifPresent(ep::setZone);
        }
        ep.setTargetRef(ServicePods.reference(pod));
        return ep;
    }

    /** The Service's labels, and the ones that say whose slice it is (and that the Service is headless). */
    static Map<String, String> labels(Service svc) {
        Map<String, String> labels = new LinkedHashMap<>(Objects.requireNonNullElse(svc.getMetadata().getLabels(),
                Map.of()));
        labels.remove(HEADLESS);
        labels.put(SERVICE_NAME, svc.getMetadata().getName());
        labels.put(MANAGED_BY, CONTROLLER);
        if ("None".equals(svc.getSpec().getClusterIP())) {
            labels.put(HEADLESS, "");
        }
        return labels;
    }

    private static EndpointSlice newSlice(Service svc, Map<String, String> labels, EndpointSlice planned) {
        EndpointSlice s = new EndpointSlice();
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace(svc.getMetadata().getNamespace());
        meta.setGenerateName(svc.getMetadata().getName() + "-");
        meta.setLabels(labels);
        meta.setOwnerReferences(new ArrayList<>(List.of(OwnerReferences.controlledBy(svc))));
        s.setMetadata(meta);
        s.setAddressType("IPv4");
        s.setPorts(planned.getPorts());
        s.setEndpoints(planned.getEndpoints());
        return s;
    }

    private void delete(String key, EndpointSlice s) {
        written.delete(client, key, s);
    }

    private void remember(String key, EndpointSlice s) {
        written.wrote(key, s);
    }

    public ResourceEventHandler<Service> serviceHandler(Controller controller) {
        return controller.enqueueOnEveryChange();
    }

    /** A slice of this controller's that changes or goes queues its Service (someone may have edited or removed it). */
    public ResourceEventHandler<EndpointSlice> sliceHandler(Controller controller) {
        return controller.enqueueMapped(s -> {
            String svc = serviceOf(s);
            return svc == null ? null : s.getMetadata().getNamespace() + "/" + svc;
        });
    }

    public ResourceEventHandler<Pod> podHandler(Controller controller) {
        return ServicePods.podHandler(services, controller);
    }
}

package io.cybernetes.controller.endpointslicemirroring;

import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.cybernetes.controller.WrittenVersions;
import io.cybernetes.controller.endpoint.EndpointsController;
import io.cybernetes.controller.endpointslice.EndpointSliceController;
import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Mirrors the Endpoints that people (or other controllers) write for Services without a
 * selector into EndpointSlices, as Kubernetes' EndpointSlice mirroring controller does, so
 * that whoever reads slices sees them: one slice per address type and set of ports, with at
 * most {@value #MAX_PER_SUBSET} addresses of each subset ({@code notReadyAddresses} not
 * ready), owned by the Endpoints and labelled with its labels, the Service's name and this
 * controller's. Endpoints of a Service with a selector (the endpoints controller's, marked
 * skip-mirror), of no Service, or holding a leader-election record are not mirrored, and
 * their mirrored slices go. Addresses that are not IPs are skipped with an InvalidIPAddress
 * event, those over the limit with TooManyAddressesToMirror.
 */
public final class EndpointSliceMirroringController implements Reconciler {

    public static final String NAME = "endpointslice-mirroring";
    public static final String CONTROLLER = "endpointslicemirroring-controller.k8s.io";
    static final int MAX_PER_SUBSET = 1000;
    static final String BY_ENDPOINTS = "endpointslicemirroring.endpoints";
    static final String LEADER_RECORD = "control-plane.alpha.kubernetes.io/leader";
    private static final List<String> NOT_COPIED = List.of("endpoints.kubernetes.io/last-change-trigger-time",
            "kubectl.kubernetes.io/last-applied-configuration");

    private final ApiClient client;
    private final Indexer<Service> services;
    private final Indexer<Endpoints> endpoints;
    private final Indexer<EndpointSlice> slices;
    private final EventRecorder events;
    private final int maxPerSubset;
    private final WrittenVersions written = new WrittenVersions();

    public EndpointSliceMirroringController(ApiClient client, Indexer<Service> services, Indexer<Endpoints> endpoints,
                                            Indexer<EndpointSlice> slices, EventRecorder events) {
        this(client, services, endpoints, slices, events, MAX_PER_SUBSET);
    }

    EndpointSliceMirroringController(ApiClient client, Indexer<Service> services, Indexer<Endpoints> endpoints,
                                     Indexer<EndpointSlice> slices, EventRecorder events, int maxPerSubset) {
        this.client = client;
        this.services = services;
        this.endpoints = endpoints;
        this.slices = slices;
        this.events = events;
        this.maxPerSubset = maxPerSubset;
        if (!slices.hasIndex(BY_ENDPOINTS)) {
            slices.addIndex(BY_ENDPOINTS, s -> {
                String of = endpointsOf(s);
                return of == null ? List.of() : List.of(s.getMetadata().getNamespace() + "/" + of);
            });
        }
    }

    /** The Endpoints a slice of this controller's mirrors, or null for anyone else's slice. */
    static String endpointsOf(EndpointSlice s) {
        Map<String, String> labels = s.getMetadata().getLabels();
        return labels == null || !CONTROLLER.equals(labels.get(EndpointSliceController.MANAGED_BY)) ? null
                : labels.get(EndpointSliceController.SERVICE_NAME);
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        String key = request.key();
        List<EndpointSlice> existing = new ArrayList<>(slices.byIndex(BY_ENDPOINTS, key));
        if (written.stale(key, existing)) {
            return Result.after(Duration.ofMillis(200));
        }
        Endpoints ep = endpoints.get(key).orElse(null);
        Service svc = services.get(key).orElse(null);
        if (ep == null || !mirrored(ep, svc)) {
            for (EndpointSlice s : existing) {
                delete(key, s);
            }
            if (ep == null) {
                written.forget(key);
            }
            return Result.DONE;
        }
        Desired desired = desired(ep);
        if (desired.invalid() > 0) {
            events.warning(ep, "InvalidIPAddress", "Skipped " + desired.invalid()
                    + " invalid IP addresses when mirroring to EndpointSlices");
        }
        if (desired.skipped() > desired.invalid()) {
            events.warning(ep, "TooManyAddressesToMirror", "A max of " + maxPerSubset + " addresses can be mirrored"
                    + " to EndpointSlices per Endpoints subset. " + desired.skipped() + " addresses were skipped");
        }
        Map<String, String> labels = labels(ep);
        Map<String, String> annotations = annotations(ep);
        Map<String, List<EndpointSlice>> byKey = new LinkedHashMap<>();
        for (EndpointSlice s : List.copyOf(existing)) {
            var owner = OwnerReferences.controllerOf(s);
            if (owner == null || !ep.getMetadata().getUid().equals(owner.getUid())) {
                delete(key, s); // a slice of Endpoints made before under the name
                continue;
            }
            byKey.computeIfAbsent(mappingKey(s.getAddressType(), s.getPorts()), k -> new ArrayList<>()).add(s);
        }
        List<EndpointSlice> spare = new ArrayList<>();
        byKey.forEach((k, list) -> {
            if (!desired.mappings().containsKey(k)) {
                spare.addAll(list);
            } else {
                spare.addAll(list.subList(1, list.size()));
            }
        });
        for (Map.Entry<String, Mapping> e : desired.mappings().entrySet()) {
            Mapping m = e.getValue();
            List<EndpointSlice> have = byKey.get(e.getKey());
            EndpointSlice slice = have != null ? have.get(0) : spare.isEmpty() ? null : spare.remove(0);
            if (slice == null) {
                written.wrote(key, client.create(newSlice(ep, labels, annotations, m)));
            } else if (!m.endpoints().equals(sorted(slice.getEndpoints())) || !labels.equals(slice.getMetadata()
                    .getLabels()) || !annotations.equals(Objects.requireNonNullElse(
                    slice.getMetadata().getAnnotations(), Map.of())) || have == null) {
                slice.getMetadata().setLabels(labels);
                slice.getMetadata().setAnnotations(annotations.isEmpty() ? null : annotations);
                slice.setAddressType(m.addressType());
                slice.setPorts(m.ports());
                slice.setEndpoints(m.endpoints());
                written.wrote(key, client.update(slice));
            }
        }
        for (EndpointSlice s : spare) {
            delete(key, s);
        }
        return Result.DONE;
    }

    /** Whether the Endpoints are mirrored: a Service without a selector has them, and nothing says not to. */
    static boolean mirrored(Endpoints ep, Service svc) {
        if (svc == null || svc.getSpec() == null || (svc.getSpec().getSelector() != null
                && !svc.getSpec().getSelector().isEmpty())) {
            return false;
        }
        Map<String, String> labels = ep.getMetadata().getLabels();
        if (labels != null && "true".equals(labels.get(EndpointsController.SKIP_MIRROR))) {
            return false;
        }
        Map<String, String> annotations = ep.getMetadata().getAnnotations();
        return annotations == null || !annotations.containsKey(LEADER_RECORD);
    }

    /** The endpoints of one address type and set of ports, in address order. */
    record Mapping(String addressType, List<EndpointPort> ports, List<Endpoint> endpoints) {
    }

    /** What the slices should hold, and how many addresses were left out (the invalid ones among them). */
    record Desired(Map<String, Mapping> mappings, int skipped, int invalid) {
    }

    Desired desired(Endpoints ep) {
        Map<String, Map<String, Endpoint>> byKey = new LinkedHashMap<>();
        Map<String, Mapping> shape = new LinkedHashMap<>();
        int skipped = 0;
        int invalid = 0;
        for (EndpointSubset subset : Objects.requireNonNullElse(ep.getSubsets(), List.<EndpointSubset>of())) {
            List<EndpointPort> ports = new ArrayList<>();
            for (var p : Objects.requireNonNullElse(subset.getPorts(), List.<io.fabric8.kubernetes.api.model
                    .EndpointPort>of())) {
                ports.add(new EndpointPort(p.getAppProtocol(), Objects.requireNonNullElse(p.getName(), ""),
                        p.getPort(), Objects.requireNonNullElse(p.getProtocol(), "TCP")));
            }
            int added = 0;
            List<EndpointAddress> ready = Objects.requireNonNullElse(subset.getAddresses(), List.of());
            List<EndpointAddress> notReady = Objects.requireNonNullElse(subset.getNotReadyAddresses(), List.of());
            for (int i = 0; i < ready.size() + notReady.size(); i++) {
                boolean isReady = i < ready.size();
                EndpointAddress a = isReady ? ready.get(i) : notReady.get(i - ready.size());
                if (added >= maxPerSubset) {
                    skipped += ready.size() + notReady.size() - i;
                    break;
                }
                String[] ip = normalized(a.getIp());
                if (ip == null) {
                    invalid++;
                    skipped++;
                    continue;
                }
                String k = mappingKey(ip[1], ports);
                shape.putIfAbsent(k, new Mapping(ip[1], ports, List.of()));
                byKey.computeIfAbsent(k, x -> new LinkedHashMap<>()).putIfAbsent(ip[0], endpoint(a, ip[0], isReady));
                added++;
            }
        }
        Map<String, Mapping> mappings = new LinkedHashMap<>();
        shape.forEach((k, m) -> mappings.put(k, new Mapping(m.addressType(), m.ports(),
                sorted(new ArrayList<>(byKey.get(k).values())))));
        return new Desired(mappings, skipped, invalid);
    }

    private static Endpoint endpoint(EndpointAddress a, String ip, boolean ready) {
        Endpoint e = new Endpoint();
        e.setAddresses(new ArrayList<>(List.of(ip)));
        EndpointConditions c = new EndpointConditions();
        c.setReady(ready);
        e.setConditions(c);
        e.setTargetRef(a.getTargetRef());
        if (a.getNodeName() != null && !a.getNodeName().isEmpty()) {
            e.setNodeName(a.getNodeName());
        }
        if (a.getHostname() != null && !a.getHostname().isEmpty()) {
            e.setHostname(a.getHostname());
        }
        return e;
    }

    /** The address written as Kubernetes writes it, and its type; null when it is no IP. */
    static String[] normalized(String ip) {
        if (ip == null || ip.isEmpty()) {
            return null;
        }
        if (ip.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            for (String part : ip.split("\\.")) {
                if (Integer.parseInt(part) > 255) {
                    return null;
                }
            }
            return new String[] {ip.replaceAll("(^|\\.)0+(\\d)", "$1$2"), "IPv4"};
        }
        if (!ip.matches("[0-9A-Fa-f:.]+") || !ip.contains(":")) {
            return null; // only a literal is parsed, never a name looked up
        }
        try {
            InetAddress a = InetAddress.getByName(ip);
            if (a instanceof Inet6Address six) {
                return new String[] {compressed(six), "IPv6"};
            }
            return new String[] {a.getHostAddress(), "IPv4"}; // an IPv4-mapped IPv6 address
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** An IPv6 address in its shortest form, as Go prints it: the longest run of zero groups as "::". */
    private static String compressed(Inet6Address a) {
        String[] groups = a.getHostAddress().replaceAll("%.*$", "").split(":");
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < groups.length; ) {
            if (groups[i].equals("0")) {
                int j = i;
                while (j < groups.length && groups[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLen && j - i > 1) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) {
            return String.join(":", groups);
        }
        String head = String.join(":", List.of(groups).subList(0, bestStart));
        String tail = String.join(":", List.of(groups).subList(bestStart + bestLen, groups.length));
        return head + "::" + tail;
    }

    private static final Comparator<Endpoint> BY_ADDRESS = Comparator.comparing(e -> e.getAddresses().get(0));

    private static List<Endpoint> sorted(List<Endpoint> endpoints) {
        List<Endpoint> out = new ArrayList<>(Objects.requireNonNullElse(endpoints, List.of()));
        out.sort(BY_ADDRESS);
        return out;
    }

    /** What identifies a slice's mapping: its address type and ports, whatever their order. */
    static String mappingKey(String addressType, List<EndpointPort> ports) {
        return addressType + "|" + EndpointSliceController.portsKey(ports);
    }

    /** The Endpoints' labels, and the ones that say whose slice it is. */
    static Map<String, String> labels(Endpoints ep) {
        Map<String, String> labels = new LinkedHashMap<>(Objects.requireNonNullElse(ep.getMetadata().getLabels(),
                Map.of()));
        labels.put(EndpointSliceController.SERVICE_NAME, ep.getMetadata().getName());
        labels.put(EndpointSliceController.MANAGED_BY, CONTROLLER);
        return labels;
    }

    /** The Endpoints' annotations but the trigger time and kubectl's last applied configuration. */
    static Map<String, String> annotations(Endpoints ep) {
        Map<String, String> out = new LinkedHashMap<>(Objects.requireNonNullElse(ep.getMetadata().getAnnotations(),
                Map.of()));
        NOT_COPIED.forEach(out::remove);
        return out;
    }

    private static EndpointSlice newSlice(Endpoints ep, Map<String, String> labels, Map<String, String> annotations,
                                          Mapping m) {
        EndpointSlice s = new EndpointSlice();
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace(ep.getMetadata().getNamespace());
        meta.setGenerateName(ep.getMetadata().getName() + "-");
        meta.setLabels(labels);
        meta.setAnnotations(annotations.isEmpty() ? null : annotations);
        meta.setOwnerReferences(new ArrayList<>(List.of(OwnerReferences.controlledBy(ep))));
        s.setMetadata(meta);
        s.setAddressType(m.addressType());
        s.setPorts(m.ports());
        s.setEndpoints(m.endpoints());
        return s;
    }

    private void delete(String key, EndpointSlice s) {
        written.delete(client, key, s);
    }

    public ResourceEventHandler<Endpoints> endpointsHandler(Controller controller) {
        return controller.enqueueOnEveryChange();
    }

    /** A Service made, changed (its selector) or deleted decides whether its Endpoints are mirrored. */
    public ResourceEventHandler<Service> serviceHandler(Controller controller) {
        return controller.enqueueOnEveryChange();
    }

    /** A mirrored slice that changes or goes queues its Endpoints (someone may have edited or removed it). */
    public ResourceEventHandler<EndpointSlice> sliceHandler(Controller controller) {
        return controller.enqueueMapped(s -> {
            String of = endpointsOf(s);
            return of == null ? null : s.getMetadata().getNamespace() + "/" + of;
        });
    }
}

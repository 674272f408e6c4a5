package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.ServiceProperties;
import io.cybernetes.apiserver.internal.allocation.IpRange;
import io.cybernetes.apiserver.internal.allocation.ServiceAllocations;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * What kube-apiserver's bootstrap controller does for Services: the {@code kubernetes}
 * Service in {@code default} (the first address of the Service CIDR, port 443 named
 * {@code https} to this server's HTTPS port), its Endpoints and EndpointSlice listing the
 * API server replicas, each replica keeping a lease of its own that it renews every
 * interval and that lapses 1.5 intervals after its last renewal (the lease endpoint
 * reconciler: a replica that stops or dies leaves the endpoints), and the repair of the
 * cluster IP and node port allocations, at start and then every repair interval.
 */
@Component
class KubernetesServiceController implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(KubernetesServiceController.class);
    static final String NAME = "kubernetes";
    static final String NAMESPACE = "default";
    /** The replicas' leases: records out of the API's reach, one a replica, by address and port. */
    static final String LEASES = "_masterleases/";
    private static final WriteOptions WRITE = WriteOptions.server("kube-apiserver");

    private final ResourceService service;
    private final Store store;
    private final ServiceAllocations allocations;
    private final ServiceProperties props;
    private final ResourceType services;
    private final ResourceType endpoints;
    private final ResourceType slices;
    private final String clusterIp;
    private ScheduledExecutorService loop;
    private volatile String address;
    private volatile int port = -1;
    private volatile boolean running;
    private volatile boolean warned;

    KubernetesServiceController(ResourceService service, ResourceRegistry registry, ServiceAllocations allocations,
                                ServiceProperties props) {
        this.service = service;
        this.store = service.store();
        this.allocations = allocations;
        this.props = props;
        this.services = registry.byPath("", "v1", "services").orElseThrow();
        this.endpoints = registry.byPath("", "v1", "endpoints").orElseThrow();
        this.slices = registry.byPath("discovery.k8s.io", "v1", "endpointslices").orElseThrow();
        this.clusterIp = IpRange.parse(props.clusterIpRange()).address(0);
    }

    @EventListener
    void onReady(ApplicationReadyEvent event) {
        if (!(event.getApplicationContext() instanceof WebServerApplicationContext web) || !running) {
            return;
        }
        port = HttpsConnector.httpsPort(web.getWebServer());
        address = props.advertiseAddress().isEmpty() ? hostAddress().orElse(null) : props.advertiseAddress();
        if (address == null) {
            log.warn("this host has no IPv4 address but loopback ones: the kubernetes Service's endpoints will not list"
                    + " this replica (set cybernetes.apiserver.services.advertise-address)");
        }
        long interval = props.endpointReconcileInterval().toMillis();
        loop.scheduleWithFixedDelay(this::reconcile, 0, interval, TimeUnit.MILLISECONDS);
        loop.scheduleWithFixedDelay(this::repair, 0, props.repairInterval().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The host's first IPv4 address that is up and neither loopback nor link-local, by interface index. */
    static Optional<String> hostAddress() {
        try {
            List<NetworkInterface> all = new ArrayList<>(Collections.list(NetworkInterface.getNetworkInterfaces()));
            all.sort(Comparator.comparingInt(NetworkInterface::getIndex));
            for (NetworkInterface ni : all) {
                if (!ni.isUp() || ni.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                        return Optional.of(a.getHostAddress());
                    }
                }
            }
        } catch (SocketException e) {
            log.warn("could not list this host's addresses: {}", e.getMessage());
        }
        return Optional.empty();
    }

    /** One round: the Service there, this replica's lease renewed, the endpoints made to list the live leases. */
    void reconcile() {
        try {
            if (address != null) {
                renewLease();
            }
            Map<Integer, TreeSet<String>> live = liveLeases();
            ensureService(live);
            writeEndpoints(live);
            warned = false;
        } catch (ApiException | StorageException e) {
            if (!warned) {
                warned = true;
                log.warn("could not bring the kubernetes Service and its endpoints up to date (trying again every {}):"
                        + " {}", props.endpointReconcileInterval().toMillis() + " ms", e.getMessage());
            }
        }
    }

    void repair() {
        try {
            List<ObjectNode> all = new ArrayList<>();
            for (StoredObject o : store.list(new ListRequest(services.keyPrefix(), ListRequest.Match.LATEST, 0, null,
                    null, 0)).items()) {
                all.add(o.value());
            }
            allocations.repair(all);
        } catch (StorageException | ApiException e) {
            log.warn("the allocation repair could not run ({}); it runs again in {}", e.getMessage(),
                    props.repairInterval().toSeconds() + " s");
        }
    }

    /** The Service there, pointing at a port a live replica serves (ours, when the one it names is served by none). */
    private void ensureService(Map<Integer, TreeSet<String>> live) {
        Optional<ObjectNode> current = current(services, NAME);
        if (current.isEmpty()) {
            ObjectNode svc = Json.object();
            svc.put("apiVersion", "v1").put("kind", "Service");
            ObjectNode meta = svc.putObject("metadata");
            meta.put("name", NAME).put("namespace", NAMESPACE);
            meta.putObject("labels").put("component", "apiserver").put("provider", "kubernetes");
            ObjectNode spec = svc.putObject("spec");
            spec.put("type", "ClusterIP").put("clusterIP", clusterIp).put("sessionAffinity", "None");
            spec.set("ports", ports());
            try {
                service.create(services, NAMESPACE, svc, WRITE);
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
            }
            return;
        }
        // another replica listening elsewhere keeps it pointing at a port someone serves; only a dead port is replaced
        int target = current.get().path("spec").path("ports").path(0).path("targetPort").asInt(-1);
        if (target != port && !live.containsKey(target)) {
            service.guaranteedUpdate(services, NAMESPACE, NAME, 0, WRITE, old -> {
                ObjectNode copy = old.deepCopy();
                Json.child(copy, "spec").set("ports", ports());
                return copy;
            });
        }
    }

    private ArrayNode ports() {
        ArrayNode ports = Json.MAPPER.createArrayNode();
        ports.addObject().put("name", "https").put("port", 443).put("protocol", "TCP").put("targetPort", port);
        return ports;
    }

    private Optional<ObjectNode> current(ResourceType type, String name) {
        try {
            return Optional.of(service.get(type, NAMESPACE, name).value());
        } catch (ApiException e) {
            if (e.code() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private String leaseKey() {
        return LEASES + address + ":" + port;
    }

    private void renewLease() {
        ObjectNode lease = Json.object();
        lease.put("address", address).put("port", port).put("renewTime", System.currentTimeMillis())
                .put("ttlMillis", props.endpointReconcileInterval().toMillis() * 3 / 2);
        Optional<StoredObject> old = store.get(leaseKey());
        try {
            if (old.isEmpty()) {
                store.create(leaseKey(), lease);
            } else {
                store.update(leaseKey(), lease, old.get().modRevision(), null);
            }
        } catch (StorageException e) {
            if (!e.isConflict() && !e.isExists()) {
                throw e;
            }
        }
    }

    /** The addresses of the replicas whose leases are live, by port; lapsed leases are deleted. */
    private Map<Integer, TreeSet<String>> liveLeases() {
        Map<Integer, TreeSet<String>> byPort = new TreeMap<>();
        long now = System.currentTimeMillis();
        for (StoredObject o : store.list(new ListRequest(LEASES, ListRequest.Match.LATEST, 0, null, null, 0)).items()) {
            ObjectNode v = o.value();
            if (v.path("renewTime").asLong(0) + v.path("ttlMillis").asLong(0) < now) {
                deleteQuietly(o);
                continue;
            }
            byPort.computeIfAbsent(v.path("port").asInt(), p -> new TreeSet<>()).add(v.path("address").asString());
        }
        return byPort;
    }

    private void deleteQuietly(StoredObject o) {
        try {
            store.delete(o.key(), o.modRevision(), null);
        } catch (StorageException e) {
            if (!e.isNotFound() && !e.isConflict()) {
                throw e;
            }
        }
    }

    /**
     * The Endpoints: a subset for each port the replicas serve; the EndpointSlice
     * {@code kubernetes}: the replicas of the lowest port (all of them, when they share one, as they do in production).
     */
    private void writeEndpoints(Map<Integer, TreeSet<String>> live) {
        ArrayNode subsets = Json.MAPPER.createArrayNode();
        live.forEach((p, ips) -> {
            ObjectNode subset = subsets.addObject();
            ArrayNode addresses = subset.putArray("addresses");
            ips.forEach(ip -> addresses.addObject().put("ip", ip));
            subset.putArray("ports").addObject().put("name", "https").put("port", p).put("protocol", "TCP");
        });
        upsert(endpoints, obj -> {
            // its slice is written here: not for the mirroring controller to copy
            Json.child(Json.child(obj, "metadata"), "labels").put("endpointslice.kubernetes.io/skip-mirror", "true");
            if (subsets.isEmpty()) {
                obj.remove("subsets");
            } else {
                obj.set("subsets", subsets);
            }
            return obj;
        });
        upsert(slices, obj -> {
            obj.put("addressType", "IPv4");
            Json.child(Json.child(obj, "metadata"), "labels").put("kubernetes.io/service-name", NAME);
            ArrayNode eps = obj.putArray("endpoints");
            ArrayNode ports = obj.putArray("ports");
            live.entrySet().stream().findFirst().ifPresent(e -> {
                e.getValue().forEach(ip -> {
                    ObjectNode ep = eps.addObject();
                    ep.putArray("addresses").add(ip);
                    ep.putObject("conditions").put("ready", true);
                });
                ports.addObject().put("name", "https").put("port", e.getKey()).put("protocol", "TCP");
            });
            return obj;
        });
    }

    /** Creates the object {@code kubernetes} of the type as {@code fill} makes it, or brings the one there to it. */
    private void upsert(ResourceType type, UnaryOperator<ObjectNode> fill) {
        if (current(type, NAME).isEmpty()) {
            ObjectNode obj = Json.object();
            obj.put("apiVersion", type.group().isEmpty() ? type.version() : type.group() + "/" + type.version());
            obj.put("kind", type.kind());
            obj.putObject("metadata").put("name", NAME).put("namespace", NAMESPACE);
            try {
                service.create(type, NAMESPACE, fill.apply(obj), WRITE);
                return;
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
            }
        }
        service.guaranteedUpdate(type, NAMESPACE, NAME, 0, WRITE, old -> fill.apply(old.deepCopy()));
    }

    @Override
    public void start() {
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kubernetes-service");
            t.setDaemon(true);
            return t;
        });
        running = true;
    }

    /** Leaves the endpoints before the server goes: the lease deleted, the endpoints written without it. */
    @Override
    public void stop() {
        running = false;
        loop.shutdownNow();
        if (address == null || port < 0) {
            return;
        }
        try {
            store.get(leaseKey()).ifPresent(this::deleteQuietly);
            writeEndpoints(liveLeases());
        } catch (ApiException | StorageException e) {
            log.warn("could not leave the kubernetes Service's endpoints ({}); the lease lapses by itself",
                    e.getMessage());
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stopped before the web server and the store, started after them. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE / 2;
    }
}

package io.cybernetes.apiserver.internal.allocation;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cluster IPs and node ports of Services, as Kubernetes' Service REST storage hands
 * them out: a Service asking for an address or a port gets it if it is in the range and
 * free, else a 422 in Kubernetes' words; one asking for none gets a free one; an update
 * takes what the new Service needs that the old did not hold and, once stored, gives back
 * what the old held that the new no longer needs (a type changed, a port removed).
 */
public final class ServiceAllocations {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceAllocations.class);

    /** A Service's address when it has none to route to: headless. */
    public static final String NONE = "None";

    private final ResourceType type;
    private final IpRange ipRange;
    private final PortRange portRange;
    private final Allocator ips;
    private final Allocator ports;
    /** How many passes in a row a member has been found held for no Service, by allocator, member and holder. */
    private final Map<String, Integer> suspects = new ConcurrentHashMap<>();

    /** Passes in a row that must find a member held for no Service before it is given back. */
    static final int LEAK_PASSES = 3;

    public ServiceAllocations(Store store, ResourceType type, IpRange ipRange, PortRange portRange) {
        this(type, ipRange, portRange, Allocator.of(store, "serviceips", ipRange), Allocator.of(store, "nodeports",
                portRange));
    }

    private ServiceAllocations(ResourceType type, IpRange ipRange, PortRange portRange, Allocator ips,
                               Allocator ports) {
        this.type = type;
        this.ipRange = ipRange;
        this.portRange = portRange;
        this.ips = ips;
        this.ports = ports;
    }

    /**
     * What a dry run of a create shows, as kube-apiserver's dry-run allocators do: the
     * addresses and ports the Service would get (or the refusal it would meet), none taken.
     */
    public void preview(ObjectNode svc) {
        new ServiceAllocations(type, ipRange, portRange, ips.dryRun(), ports.dryRun()).allocate(svc, null);
    }

    /** Who holds a Service's members: the Service by namespace, name and uid (a Service made again is another). */
    public static String holder(ObjectNode svc) {
        return Json.text(svc, "metadata.namespace") + "/" + Json.text(svc, "metadata.name") + "/"
                + Json.text(svc, "metadata.uid");
    }

    /** What the new Service needs of the ranges and its old self does not hold; given back by what this returns. */
    public Runnable allocate(ObjectNode svc, ObjectNode old) {
        String holder = holder(svc);
        String name = Json.text(svc, "metadata.name");
        ObjectNode spec = Json.child(svc, "spec");
        String t = spec.path("type").asString("ClusterIP");
        List<Runnable> undo = new ArrayList<>();
        Runnable undoAll = () -> {
            for (int i = undo.size() - 1; i >= 0; i--) {
                undo.get(i).run();
            }
        };
        try {
            if (!"ExternalName".equals(t)) {
                allocateClusterIp(name, spec, old == null ? null : clusterIp(old), holder, undo);
            }
            Set<String> mine = old == null ? new LinkedHashSet<>() : nodePorts(old);
            if (needsNodePorts(spec) && spec.get("ports") instanceof ArrayNode list) {
                for (int i = 0; i < list.size(); i++) {
                    if (list.get(i) instanceof ObjectNode port) {
                        allocatePort(name, port, "nodePort", "spec.ports[" + i + "].nodePort", mine, holder, undo);
                    }
                }
            }
            if ("LoadBalancer".equals(t) && "Local".equals(spec.path("externalTrafficPolicy").asString(null))) {
                allocatePort(name, spec, "healthCheckNodePort", "spec.healthCheckNodePort", mine, holder, undo);
            }
            return undoAll;
        } catch (RuntimeException e) {
            undoAll.run();
            throw e;
        }
    }

    /**
     * One pass of the repair, as Kubernetes' allocation repair loops: a member held for no
     * Service (its Service gone while the store could not be written, a write that never
     * finished) is given back once three passes in a row found it so, as a Service being
     * created right now holds its members a moment before it is stored; a member a Service
     * has but no record holds (records lost or restored from an older backup) is taken
     * again for it; two Services with the same member, or one outside the ranges now set,
     * are reported, as they need to be made again. Returns how many members were given back.
     */
    public int repair(List<ObjectNode> services) {
        Map<String, String> wantIps = new HashMap<>();
        Map<String, String> wantPorts = new HashMap<>();
        for (ObjectNode svc : services) {
            String holder = holder(svc);
            String ip = clusterIp(svc);
            if (ip != null) {
                reclaim(ips, "cluster IP", ip, holder, wantIps);
            }
            for (String port : nodePorts(svc)) {
                reclaim(ports, "node port", port, holder, wantPorts);
            }
        }
        return releaseLeaks(ips, wantIps) + releaseLeaks(ports, wantPorts);
    }

    private static void reclaim(Allocator a, String what, String member, String holder,
                                Map<String, String> wanted) {
        String other = wanted.putIfAbsent(member, holder);
        if (other != null) {
            LOG.warn("the {} {} was assigned to more than one Service ({} and {}); make one of them again", what,
                    member, service(other), service(holder));
            return;
        }
        if (!a.contains(member)) {
            LOG.warn("the {} {} of Service {} is not in the range set now; make the Service again to have one of it",
                    what, member, service(holder));
            return;
        }
        String held = a.holder(member);
        if (held == null) {
            if (a.tryCreate(member, holder)) {
                LOG.warn("the {} {} of Service {} had no record; it is recorded again", what, member, service(holder));
            }
        } else if (!held.equals(holder)) {
            LOG.warn("the {} {} of Service {} is recorded for {}; make one of them again", what, member,
                    service(holder), service(held));
        }
    }

    /** namespace/name of a holder (namespace/name/uid). */
    private static String service(String holder) {
        int last = holder.lastIndexOf('/');
        return last < 0 ? holder : holder.substring(0, last);
    }

    private int releaseLeaks(Allocator a, Map<String, String> wanted) {
        int released = 0;
        Set<String> seen = new HashSet<>();
        for (String[] held : a.held()) {
            String member = held[0];
            String holder = held[1];
            String id = a + member + "/" + holder;
            if (holder != null && holder.equals(wanted.get(member))) {
                suspects.remove(id);
                continue;
            }
            seen.add(id);
            int passes = suspects.merge(id, 1, Integer::sum);
            if (passes >= LEAK_PASSES) {
                a.release(member, holder);
                suspects.remove(id);
                released++;
                LOG.info("gave back {}, held for {} which no longer has it", member, service(holder));
            }
        }
        suspects.keySet().removeIf(id -> id.startsWith(a.toString()) && !seen.contains(id));
        return released;
    }

    /** Gives back what the old Service held and the new one (null: none, it is gone) does not. */
    public void releaseUnused(ObjectNode old, ObjectNode svc) {
        String holder = holder(old);
        String ip = clusterIp(old);
        if (ip != null && (svc == null || !ip.equals(clusterIp(svc)))) {
            release(ips, ip, holder);
        }
        Set<String> kept = svc == null ? Set.of() : nodePorts(svc);
        for (String p : nodePorts(old)) {
            if (!kept.contains(p)) {
                release(ports, p, holder);
            }
        }
    }

    /** Gives a member back; if the store cannot be reached, the repair does it later (the write stands). */
    private static void release(Allocator a, String member, String holder) {
        try {
            a.release(member, holder);
        } catch (StorageException e) {
            LOG.warn("could not give back {} of {} ({}); the repair will", member, holder, e.getMessage());
        }
    }

    private void allocateClusterIp(String name, ObjectNode spec, String held, String holder, List<Runnable> undo) {
        String ip = spec.path("clusterIP").asString("");
        if (NONE.equals(ip)) {
            return;
        }
        if (ip.isEmpty()) {
            if (held != null) {
                ip = held;
            } else {
                try {
                    ip = ips.allocateNext(holder);
                } catch (Allocator.Unavailable e) {
                    throw ApiException.internal("failed to allocate a serviceIP: range is full");
                }
                undo.add(releaser(ips, ip, holder));
            }
            spec.put("clusterIP", ip);
        } else if (!ip.equals(held)) {
            try {
                ips.allocate(ip, holder);
            } catch (Allocator.Unavailable e) {
                String why = e.taken() ? "provided IP is already allocated" : "the provided IP (" + ip
                        + ") is not in the valid range. The range of valid IPs is " + ipRange.cidr();
                throw invalid(name, "spec.clusterIPs", "Invalid value: []string{\"" + ip + "\"}: failed to allocate IP "
                        + ip + ": " + why);
            }
            undo.add(releaser(ips, ip, holder));
        }
        spec.putArray("clusterIPs").add(ip);
    }

    /** A port field (a node port, the health check's): kept if held, taken if asked for, else a free one. */
    private void allocatePort(String name, ObjectNode owner, String field, String path, Set<String> mine, String holder,
                              List<Runnable> undo) {
        int asked = owner.path(field).asInt(0);
        if (asked != 0 && mine.contains(Integer.toString(asked))) {
            return;
        }
        String port;
        if (asked == 0) {
            try {
                port = ports.allocateNext(holder);
            } catch (Allocator.Unavailable e) {
                throw ApiException.internal("failed to allocate a nodePort: range is full");
            }
        } else {
            port = Integer.toString(asked);
            try {
                ports.allocate(port, holder);
            } catch (Allocator.Unavailable e) {
                throw invalid(name, path, "Invalid value: " + asked + ": " + (e.taken()
                        ? "provided port is already allocated"
                        : "provided port is not in the valid range. The range of valid ports is " + portRange.text()));
            }
        }
        undo.add(releaser(ports, port, holder));
        mine.add(port);
        owner.put(field, Integer.parseInt(port));
    }

    private static Runnable releaser(Allocator a, String member, String holder) {
        return () -> a.release(member, holder);
    }

    private ApiException invalid(String name, String field, String message) {
        return ApiException.invalid(type, name, List.of(ApiException.cause(field, "FieldValueInvalid", message)));
    }

    /** Whether a Service of this spec has node ports: NodePort, and LoadBalancer unless it asks for none. */
    public static boolean needsNodePorts(JsonNode spec) {
        String t = spec.path("type").asString("ClusterIP");
        return "NodePort".equals(t) || ("LoadBalancer".equals(t)
                && spec.path("allocateLoadBalancerNodePorts").asBoolean(true));
    }

    /** The cluster IP a Service holds, or null (none, headless, an external name). */
    public static String clusterIp(JsonNode svc) {
        String ip = svc.path("spec").path("clusterIP").asString("");
        return ip.isEmpty() || NONE.equals(ip) || "ExternalName".equals(svc.path("spec").path("type").asString(""))
                ? null : ip;
    }

    /** The node ports a Service holds (its ports' and its health check's). */
    public static Set<String> nodePorts(JsonNode svc) {
        Set<String> out = new LinkedHashSet<>();
        JsonNode spec = svc.path("spec");
        for (JsonNode p : spec.path("ports")) {
            if (p.path("nodePort").asInt(0) > 0) {
                out.add(Integer.toString(p.path("nodePort").asInt()));
            }
        }
        if (spec.path("healthCheckNodePort").asInt(0) > 0) {
            out.add(Integer.toString(spec.path("healthCheckNodePort").asInt()));
        }
        return out;
    }
}

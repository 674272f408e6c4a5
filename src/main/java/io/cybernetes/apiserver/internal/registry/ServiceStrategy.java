package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import io.cybernetes.apiserver.internal.allocation.ServiceAllocations;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Objects;

/**
 * Services: Kubernetes' defaults (type ClusterIP, session affinity None, TCP, a target port
 * equal to the port, the traffic policies, one IPv4 family), validation in its words, a
 * cluster IP and node ports from their ranges before a Service is stored (and what an
 * update no longer needs given back once it is), fields that belong to another type
 * dropped when the type changes, and the status reset as the Service REST strategy does.
 */
public final class ServiceStrategy implements KindStrategy {

    private final ServiceAllocations allocations;

    public ServiceStrategy(ServiceAllocations allocations) {
        this.allocations = allocations;
    }

    @Override
    public void prepareForCreate(ObjectNode obj) {
        setDefaults(Json.child(obj, "spec"));
        obj.putObject("status").putObject("loadBalancer");
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        ObjectNode spec = Json.child(obj, "spec");
        JsonNode oldSpec = old.path("spec");
        patchAllocatedValues(spec, oldSpec);
        dropTypeDependentFields(spec, oldSpec);
        setDefaults(spec);
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        ServiceValidation.validate(obj.path("spec"), causes);
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        ServiceValidation.validateUpdate(obj.path("spec"), old.path("spec"), causes);
    }

    @Override
    public Runnable beforeCreate(ObjectNode obj) {
        return allocations.allocate(obj, null);
    }

    @Override
    public void previewCreate(ObjectNode obj) {
        allocations.preview(obj);
    }

    @Override
    public Update beforeUpdate(ObjectNode obj, ObjectNode old) {
        return new Update(allocations.allocate(obj, old), () -> allocations.releaseUnused(old, obj));
    }

    @Override
    public void afterDelete(ObjectNode last) {
        allocations.releaseUnused(last, null);
    }

    /** SetDefaults_Service, and the strategy's: what a Service has when its manifest says nothing. */
    static void setDefaults(ObjectNode spec) {
        if (!spec.hasNonNull("type") || spec.path("type").asString("").isEmpty()) {
            spec.put("type", "ClusterIP");
        }
        String type = spec.path("type").asString();
        if (!spec.hasNonNull("sessionAffinity") || spec.path("sessionAffinity").asString("").isEmpty()) {
            spec.put("sessionAffinity", "None");
        }
        if ("ClientIP".equals(spec.path("sessionAffinity").asString())) {
            ObjectNode clientIp = Json.child(Json.child(spec, "sessionAffinityConfig"), "clientIP");
            if (!clientIp.hasNonNull("timeoutSeconds")) {
                clientIp.put("timeoutSeconds", 10800);
            }
        } else {
            spec.remove("sessionAffinityConfig");
        }
        if (spec.get("ports") instanceof ArrayNode ports) {
            for (JsonNode p : ports) {
                if (p instanceof ObjectNode port) {
                    if (!port.hasNonNull("protocol") || port.path("protocol").asString("").isEmpty()) {
                        port.put("protocol", "TCP");
                    }
                    JsonNode target = port.get("targetPort");
                    boolean unset = target == null || target.isNull() || (target.isNumber() && target.asInt() == 0)
                            || (target.isString() && target.asString().isEmpty());
                    if (unset && port.path("port").isNumber()) {
                        port.put("targetPort", port.path("port").asInt());
                    }
                }
            }
        }
        if ("NodePort".equals(type) || "LoadBalancer".equals(type)) {
            if (!spec.hasNonNull("externalTrafficPolicy") || spec.path("externalTrafficPolicy").asString("").isEmpty()) {
                spec.put("externalTrafficPolicy", "Cluster");
            }
        }
        if ("LoadBalancer".equals(type) && !spec.hasNonNull("allocateLoadBalancerNodePorts")) {
            spec.put("allocateLoadBalancerNodePorts", true);
        }
        if (!"ExternalName".equals(type) && (!spec.hasNonNull("internalTrafficPolicy")
                || spec.path("internalTrafficPolicy").asString("").isEmpty())) {
            spec.put("internalTrafficPolicy", "Cluster");
        }
        setIpFamilies(spec);
    }

    /** One IPv4 family, the only one this server's ranges have, for every Service with a cluster IP or headless. */
    private static void setIpFamilies(ObjectNode spec) {
        if ("ExternalName".equals(spec.path("type").asString())) {
            return;
        }
        if (!spec.hasNonNull("ipFamilyPolicy")) {
            spec.put("ipFamilyPolicy", "SingleStack");
        }
        if (!(spec.get("ipFamilies") instanceof ArrayNode a) || a.isEmpty()) {
            spec.putArray("ipFamilies").add("IPv4");
        }
        String ip = spec.path("clusterIP").asString("");
        if (!ip.isEmpty() && (!(spec.get("clusterIPs") instanceof ArrayNode ips) || ips.isEmpty())) {
            spec.putArray("clusterIPs").add(ip);
        }
    }

    /**
     * An update that leaves out what the server allocated keeps it (a manifest applied again
     * says no cluster IP or node port): as Kubernetes' patchAllocatedValues.
     */
    private static void patchAllocatedValues(ObjectNode spec, JsonNode old) {
        String oldType = old.path("type").asString("ClusterIP");
        String type = spec.path("type").asString("ClusterIP");
        if (!"ExternalName".equals(oldType) && !"ExternalName".equals(type)) {
            if (spec.path("clusterIP").asString("").isEmpty() && old.hasNonNull("clusterIP")) {
                spec.set("clusterIP", old.get("clusterIP"));
            }
            if ((!(spec.get("clusterIPs") instanceof ArrayNode ips) || ips.isEmpty()) && old.has("clusterIPs")) {
                spec.set("clusterIPs", old.get("clusterIPs").deepCopy());
            }
            for (String f : List.of("ipFamilies", "ipFamilyPolicy")) {
                if (!spec.hasNonNull(f) && old.hasNonNull(f)) {
                    spec.set(f, old.get(f).deepCopy());
                }
            }
        }
        if (ServiceAllocations.needsNodePorts(old) && ServiceAllocations.needsNodePorts(spec)
                && spec.get("ports") instanceof ArrayNode ports) {
            for (JsonNode p : ports) {
                if (p instanceof ObjectNode port && port.path("nodePort").asInt(0) == 0) {
                    for (JsonNode o : old.path("ports")) {
                        if (o.path("port").asInt() == port.path("port").asInt()
                                && o.path("protocol").asString("TCP").equals(port.path("protocol").asString("TCP"))
                                && o.path("nodePort").asInt(0) > 0) {
                            port.put("nodePort", o.path("nodePort").asInt());
                            break;
                        }
                    }
                }
            }
        }
        if ("LoadBalancer".equals(type) && "Local".equals(spec.path("externalTrafficPolicy").asString(""))
                && spec.path("healthCheckNodePort").asInt(0) == 0 && old.path("healthCheckNodePort").asInt(0) > 0) {
            spec.put("healthCheckNodePort", old.path("healthCheckNodePort").asInt());
        }
    }

    /**
     * What belonged to the old type and the new one has no use for goes, when the client left
     * it as it was (as Kubernetes' dropTypeDependentFields): the cluster IP of a Service now
     * an ExternalName, the node ports of one now ClusterIP, the health check port of one no
     * longer LoadBalancer with a Local policy.
     */
    private static void dropTypeDependentFields(ObjectNode spec, JsonNode old) {
        String type = spec.path("type").asString("ClusterIP");
        if ("ExternalName".equals(type) && !"ExternalName".equals(old.path("type").asString("ClusterIP"))) {
            if (Objects.equals(spec.get("clusterIP"), old.get("clusterIP"))) {
                spec.remove("clusterIP");
            }
            if (Objects.equals(spec.get("clusterIPs"), old.get("clusterIPs"))) {
                spec.remove("clusterIPs");
            }
            for (String f : List.of("ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy")) {
                if (Objects.equals(spec.get(f), old.get(f))) {
                    spec.remove(f);
                }
            }
        }
        if (!ServiceAllocations.needsNodePorts(spec) && ServiceAllocations.needsNodePorts(old)
                && spec.get("ports") instanceof ArrayNode ports) {
            for (JsonNode p : ports) {
                if (p instanceof ObjectNode port && port.path("nodePort").asInt(0) > 0
                        && heldBefore(old, port.path("nodePort").asInt())) {
                    port.remove("nodePort");
                }
            }
        }
        boolean healthCheck = "LoadBalancer".equals(type) && "Local".equals(spec.path("externalTrafficPolicy")
                .asString(""));
        if (!healthCheck && spec.path("healthCheckNodePort").asInt(0) > 0
                && spec.path("healthCheckNodePort").asInt() == old.path("healthCheckNodePort").asInt(0)) {
            spec.remove("healthCheckNodePort");
        }
        if (!"NodePort".equals(type) && !"LoadBalancer".equals(type)
                && Objects.equals(spec.get("externalTrafficPolicy"), old.get("externalTrafficPolicy"))) {
            spec.remove("externalTrafficPolicy");
        }
        if (!"LoadBalancer".equals(type)) {
            for (String f : List.of("allocateLoadBalancerNodePorts", "loadBalancerClass")) {
                if (Objects.equals(spec.get(f), old.get(f))) {
                    spec.remove(f);
                }
            }
        }
    }

    private static boolean heldBefore(JsonNode old, int nodePort) {
        for (JsonNode o : old.path("ports")) {
            if (o.path("nodePort").asInt(0) == nodePort) {
                return true;
            }
        }
        return false;
    }
}

package io.cybernetes.admission;

import io.cybernetes.api.Json;
import io.cybernetes.api.PodResources;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What one object counts against a ResourceQuota: {@code count/<resource>[.<group>]}, the
 * legacy object counts ({@code pods}, {@code configmaps}, ...), and for a pod that is not
 * finished its requests and limits ({@code requests.cpu}, {@code limits.memory}, and
 * {@code cpu}/{@code memory} for requests), and for a Service its node ports
 * ({@code services.nodeports}: every port of a NodePort Service, and of a LoadBalancer one
 * unless it asks for none, then those it names) and {@code services.loadbalancers}.
 */
public final class QuotaUsage {

    private static final Set<String> LEGACY_COUNTS = Set.of("pods", "services", "configmaps", "secrets",
            "persistentvolumeclaims", "replicationcontrollers", "resourcequotas");

    private QuotaUsage() {
    }

    public static Map<String, BigDecimal> of(String group, String resource, ObjectNode obj) {
        Map<String, BigDecimal> usage = new HashMap<>();
        if (obj == null) {
            return usage;
        }
        boolean pod = group.isEmpty() && resource.equals("pods");
        if (pod) {
            String phase = Json.text(obj, "status.phase");
            if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
                return usage;
            }
        }
        usage.put("count/" + (group.isEmpty() ? resource : resource + "." + group), BigDecimal.ONE);
        if (group.isEmpty() && LEGACY_COUNTS.contains(resource)) {
            usage.put(resource, BigDecimal.ONE);
        }
        if (group.isEmpty() && resource.equals("services")) {
            serviceCounts(obj, usage);
        }
        if (pod) {
            for (String kind : new String[] {"requests", "limits"}) {
                PodResources.total(obj.path("spec"), kind).forEach((r, v) -> usage.put(kind + "." + r, v));
            }
            for (String r : new String[] {"cpu", "memory"}) {
                if (usage.containsKey("requests." + r)) {
                    usage.put(r, usage.get("requests." + r));
                }
            }
        }
        return usage;
    }

    private static void serviceCounts(ObjectNode svc, Map<String, BigDecimal> usage) {
        var spec = svc.path("spec");
        String type = spec.path("type").asString("ClusterIP");
        int ports = spec.path("ports").size();
        if ("NodePort".equals(type)) {
            usage.put("services.nodeports", BigDecimal.valueOf(ports));
        } else if ("LoadBalancer".equals(type)) {
            int nodePorts = ports;
            if (!spec.path("allocateLoadBalancerNodePorts").asBoolean(true)) {
                nodePorts = 0;
                for (var p : spec.path("ports")) {
                    nodePorts += p.path("nodePort").asInt(0) > 0 ? 1 : 0;
                }
            }
            usage.put("services.nodeports", BigDecimal.valueOf(nodePorts));
            usage.put("services.loadbalancers", BigDecimal.ONE);
        }
    }
}

package io.cybernetes.admission;

import io.cybernetes.api.Json;
import io.cybernetes.api.Quantities;
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
 * unless it asks for none, then those it names) and {@code services.loadbalancers}; for a
 * PersistentVolumeClaim the storage it requests ({@code requests.storage}), and that and
 * the claim itself against its class ({@code <class>.storageclass.storage.k8s.io/requests.storage},
 * {@code <class>.storageclass.storage.k8s.io/persistentvolumeclaims}).
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
        if (group.isEmpty() && resource.equals("persistentvolumeclaims")) {
            claimStorage(obj, usage);
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

    private static void claimStorage(ObjectNode claim, Map<String, BigDecimal> usage) {
        String requested = Json.text(claim, "spec.resources.requests.storage");
        BigDecimal storage = requested == null || !Quantities.isValid(requested) ? BigDecimal.ZERO
                : Quantities.parse(requested);
        usage.put("requests.storage", storage);
        String className = Json.text(claim, "spec.storageClassName");
        if (className == null) { // the beta annotation that preceded the field
            className = claim.path("metadata").path("annotations").path("volume.beta.kubernetes.io/storage-class")
                    .asString(null);
        }
        if (className != null && !className.isEmpty()) {
            String prefix = className + ".storageclass.storage.k8s.io/";
            usage.put(prefix + "requests.storage", storage);
            usage.put(prefix + "persistentvolumeclaims", BigDecimal.ONE);
        }
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

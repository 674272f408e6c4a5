package io.cybernetes.admission.resourcequota;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.api.PodResources;
import io.cybernetes.admission.QuotaStatusWriter;
import io.cybernetes.admission.QuotaUsage;
import io.cybernetes.admission.Reserving;
import io.cybernetes.admission.ValidatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.Quantities;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * ResourceQuota enforcement that is exact under concurrency: admitting a write reserves
 * its usage in each constraining quota's {@code status.used} by compare-and-set on the
 * quota's resourceVersion, re-reading and re-checking on conflict, so concurrent creates
 * are serialised per quota and the hard limit is never exceeded. The reservation is given
 * back when the write then fails or the object is removed; a pod that finishes stops
 * counting. A dry run checks without reserving.
 */
public final class ResourceQuotaAdmission implements ValidatingAdmissionPlugin, Reserving {

    public static final String NAME = "ResourceQuota";
    private static final int MAX_ATTEMPTS = 64;

    private final ClusterReader cluster;
    private final QuotaStatusWriter writer;

    public ResourceQuotaAdmission(ClusterReader cluster, QuotaStatusWriter writer) {
        this.cluster = cluster;
        this.writer = writer;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        if (a.namespace().isEmpty() || a.is("", "resourcequotas") || a.is("", "events")) {
            return false;
        }
        return (a.operation() == Attributes.Operation.CREATE && a.subresource().isEmpty())
                || (a.operation() == Attributes.Operation.UPDATE && (a.is("", "pods") || a.is("", "services")
                || a.is("", "persistentvolumeclaims")));
    }

    @Override
    public void validate(Attributes a) {
        Map<String, BigDecimal> delta = delta(a);
        if (delta.isEmpty()) {
            return;
        }
        List<String> applied = new ArrayList<>();
        try {
            for (ObjectNode quota : cluster.list("", "resourcequotas", a.namespace())) {
                if (constrains(quota, delta)) {
                    requireRequests(a, quota);
                    if (apply(a.namespace(), Json.text(quota, "metadata.name"), delta, true, a, !a.dryRun())) {
                        applied.add(Json.text(quota, "metadata.name"));
                    }
                }
            }
        } catch (RuntimeException e) {
            for (String name : applied) {
                apply(a.namespace(), name, negate(delta), false, a, true);
            }
            throw e;
        }
    }

    @Override
    public void release(Attributes a) {
        Map<String, BigDecimal> delta = delta(a);
        if (!a.dryRun() && !delta.isEmpty()) {
            giveBack(a, negate(delta));
        }
    }

    @Override
    public void removed(Attributes a) {
        Map<String, BigDecimal> usage = QuotaUsage.of(a.group(), a.resource(), a.object());
        if (!usage.isEmpty()) {
            giveBack(a, negate(usage));
        }
    }

    private void giveBack(Attributes a, Map<String, BigDecimal> negative) {
        for (ObjectNode quota : cluster.list("", "resourcequotas", a.namespace())) {
            if (constrains(quota, negative)) {
                apply(a.namespace(), Json.text(quota, "metadata.name"), negative, false, a, true);
            }
        }
    }

    /** The change in usage this write makes: all of a new object, the difference for an update. */
    private static Map<String, BigDecimal> delta(Attributes a) {
        Map<String, BigDecimal> delta = new TreeMap<>(QuotaUsage.of(a.group(), a.resource(), a.object()));
        QuotaUsage.of(a.group(), a.resource(), a.oldObject()).forEach((k, v) -> delta.merge(k, v.negate(), BigDecimal::add));
        delta.values().removeIf(v -> v.signum() == 0);
        return delta;
    }

    private static Map<String, BigDecimal> negate(Map<String, BigDecimal> m) {
        Map<String, BigDecimal> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.negate()));
        return out;
    }

    private static boolean constrains(ObjectNode quota, Map<String, BigDecimal> delta) {
        JsonNode hard = quota.path("spec").path("hard");
        return delta.keySet().stream().anyMatch(hard::has);
    }

    /** A pod under a quota on requests or limits must say what it requests and limits. */
    private static void requireRequests(Attributes a, ObjectNode quota) {
        if (!a.is("", "pods") || a.operation() != Attributes.Operation.CREATE) {
            return;
        }
        List<String> missing = new ArrayList<>();
        JsonNode hard = quota.path("spec").path("hard");
        for (Map.Entry<String, JsonNode> e : hard.properties()) {
            String key = e.getKey();
            String kind = key.startsWith("limits.") ? "limits" : key.startsWith("requests.") || key.equals("cpu")
                    || key.equals("memory") ? "requests" : null;
            if (kind == null) {
                continue;
            }
            String resource = key.contains(".") ? key.substring(key.indexOf('.') + 1) : key;
            List<String> lacking = new ArrayList<>();
            for (ObjectNode c : PodResources.containers(a.object().path("spec"))) {
                if (!c.path("resources").path(kind).has(resource)) {
                    lacking.add(c.path("name").asString(""));
                }
            }
            if (!lacking.isEmpty()) {
                missing.add(kind + "." + resource + " for: " + String.join(",", lacking));
            }
        }
        if (!missing.isEmpty()) {
            throw ApiException.forbidden(a.group(), a.resource(), a.name(), "failed quota: "
                    + Json.text(quota, "metadata.name") + ": must specify " + String.join("; ", missing));
        }
    }

    /**
     * Adds {@code delta} to the quota's used, checking the hard limits first when
     * {@code check}; writes only when {@code write}. Returns whether it wrote.
     */
    private boolean apply(String namespace, String name, Map<String, BigDecimal> delta, boolean check, Attributes a,
                          boolean write) {
        ObjectNode quota = cluster.get("", "resourcequotas", namespace, name).orElse(null);
        for (int attempt = 0; attempt < MAX_ATTEMPTS && quota != null; attempt++) {
            JsonNode hard = quota.path("spec").path("hard");
            JsonNode usedNode = quota.path("status").path("used");
            Map<String, BigDecimal> used = new LinkedHashMap<>();
            usedNode.properties().forEach(e -> used.put(e.getKey(), Quantities.parse(e.getValue().asString())));
            Map<String, BigDecimal> next = new LinkedHashMap<>(used);
            List<String> exceeded = new ArrayList<>();
            for (Map.Entry<String, BigDecimal> d : delta.entrySet()) {
                if (!hard.has(d.getKey())) {
                    continue;
                }
                BigDecimal cur = used.getOrDefault(d.getKey(), BigDecimal.ZERO);
                BigDecimal sum = cur.add(d.getValue()).max(BigDecimal.ZERO);
                BigDecimal limit = Quantities.parse(hard.get(d.getKey()).asString());
                if (check && d.getValue().signum() > 0 && sum.compareTo(limit) > 0) {
                    exceeded.add(d.getKey());
                }
                next.put(d.getKey(), sum);
            }
            if (!exceeded.isEmpty()) {
                throw ApiException.forbidden(a.group(), a.resource(), a.name(), "exceeded quota: " + name
                        + ", requested: " + describe(exceeded, delta) + ", used: " + describe(exceeded, used)
                        + ", limited: " + describe(exceeded, hard));
            }
            if (!write) {
                return false;
            }
            ObjectNode nextNode = Json.object();
            next.forEach((k, v) -> nextNode.put(k, Quantities.format(v)));
            ObjectNode stored = writer.compareAndSetUsed(namespace, name, Json.text(quota, "metadata.resourceVersion"),
                    nextNode);
            if (stored != null) {
                return true;
            }
            quota = writer.current(namespace, name);
        }
        if (quota == null) {
            return false;
        }
        throw ApiException.conflict("", "resourcequotas", name, "too many concurrent changes to the quota; please try again");
    }

    private static String describe(List<String> keys, Map<String, BigDecimal> values) {
        List<String> parts = new ArrayList<>();
        for (String k : keys) {
            parts.add(k + "=" + Quantities.format(values.getOrDefault(k, BigDecimal.ZERO)));
        }
        return String.join(",", parts);
    }

    private static String describe(List<String> keys, JsonNode hard) {
        List<String> parts = new ArrayList<>();
        for (String k : keys) {
            parts.add(k + "=" + hard.path(k).asString(""));
        }
        return String.join(",", parts);
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.Admission;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.admission.AdmissionChain;
import io.cybernetes.admission.Attributes;
import io.cybernetes.apiserver.internal.audit.AuditAnnotations;
import io.cybernetes.admission.QuotaUsage;
import io.cybernetes.api.Json;
import io.cybernetes.api.Quantities;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.UserInfo;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Connects the write path to the admission chain: builds the plugins' view of each
 * write, runs RBAC's escalation check ahead of the validating plugins, and keeps a
 * ResourceQuota's {@code status} in step with its {@code spec.hard} (counting what the
 * namespace already holds when a quota appears or changes its limits).
 */
final class AdmissionGate implements Admission {

    private final AdmissionChain chain;
    private final RbacEscalation escalation;
    private final AdmissionStoreAccess cluster;
    private final ResourceRegistry registry;

    AdmissionGate(AdmissionChain chain, RbacEscalation escalation, AdmissionStoreAccess cluster,
                  ResourceRegistry registry) {
        this.chain = chain;
        this.escalation = escalation;
        this.cluster = cluster;
        this.registry = registry;
    }

    private static Attributes attributes(Attributes.Operation op, ResourceType type, String subresource, String namespace,
                                         ObjectNode obj, ObjectNode old, WriteOptions opts) {
        ObjectNode named = obj != null ? obj : old;
        UserInfo u = opts.user() == null ? WriteOptions.SERVER : opts.user();
        return new Attributes(op, type.group(), type.version(), type.kind(), type.plural(), subresource, namespace,
                named == null ? "" : Json.text(named, "metadata.name"), obj, old,
                new Attributes.User(u.name(), u.uid(), u.groups(), u.extra()), opts.dryRun());
    }

    private static Attributes.Operation operation(ObjectNode obj, ObjectNode old) {
        return obj == null ? Attributes.Operation.DELETE : old == null ? Attributes.Operation.CREATE
                : Attributes.Operation.UPDATE;
    }

    @Override
    public void mutate(ResourceType type, String subresource, String namespace, ObjectNode obj, ObjectNode old,
                       WriteOptions opts) {
        if (obj != null && type.group().isEmpty() && type.plural().equals("resourcequotas")
                && (old == null || !obj.path("spec").path("hard").equals(old.path("spec").path("hard")))) {
            countUsage(namespace, obj);
        }
        if (obj != null) {
            chain.admit(attributes(operation(obj, old), type, subresource, namespace, obj, old, opts));
        }
    }

    @Override
    public List<String> validate(ResourceType type, String subresource, String namespace, ObjectNode obj,
                                 ObjectNode old, WriteOptions opts) {
        if (obj != null) {
            escalation.check(type, namespace, obj, old, opts);
        }
        Attributes a = attributes(operation(obj, old), type, subresource, namespace, obj, old, opts);
        try {
            chain.validate(a);
        } finally {
            AuditAnnotations.add(a.auditAnnotations());
        }
        return List.copyOf(a.warnings());
    }

    @Override
    public void release(ResourceType type, String subresource, String namespace, ObjectNode obj, ObjectNode old,
                        WriteOptions opts) {
        chain.release(attributes(operation(obj, old), type, subresource, namespace, obj, old, opts));
    }

    @Override
    public void removed(ResourceType type, String namespace, ObjectNode last) {
        chain.removed(attributes(Attributes.Operation.DELETE, type, null, namespace, last, null,
                WriteOptions.server("removal")));
    }

    /** Sets a quota's status: hard as in its spec, used as the namespace's objects add up at the latest commit. */
    private void countUsage(String namespace, ObjectNode quota) {
        JsonNode hard = quota.path("spec").path("hard");
        Map<String, BigDecimal> used = new HashMap<>();
        hard.properties().forEach(e -> used.put(e.getKey(), BigDecimal.ZERO));
        for (ResourceType t : registry.all()) {
            if (!t.namespaced() || !t.stored() || t.plural().equals("events")) {
                continue;
            }
            for (ObjectNode o : cluster.listLatest(t.group(), t.plural(), namespace)) {
                QuotaUsage.of(t.group(), t.plural(), o).forEach((k, v) -> {
                    if (used.containsKey(k)) {
                        used.merge(k, v, BigDecimal::add);
                    }
                });
            }
        }
        ObjectNode status = Json.child(quota, "status");
        status.set("hard", hard.deepCopy());
        ObjectNode usedNode = status.putObject("used");
        used.forEach((k, v) -> usedNode.put(k, Quantities.format(v)));
    }
}

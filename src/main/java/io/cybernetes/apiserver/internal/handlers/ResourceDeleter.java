package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.KindStrategy;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.Times;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Deletion as the generic registry does it: preconditions, propagation finalizers,
 * the grace period the kind's strategy asks for (bound pods), kinds that terminate
 * before they go (namespaces), and the immediate delete of everything else. An object
 * that stays answers 202 with its deletionTimestamp set; one that is gone answers 200
 * with its last state.
 */
public final class ResourceDeleter {

    private final ResourceService service;
    private final Store store;

    public ResourceDeleter(ResourceService service) {
        this.service = service;
        this.store = service.store();
    }

    public Outcome delete(ResourceType type, String namespace, String name, DeleteOptions opts) {
        String key = type.key(namespace, name);
        return service.retryOnConflict(type, namespace, name, (cur, attempt) -> {
            ObjectNode obj = cur.value();
            if (opts.preconditionUid() != null && !opts.preconditionUid().equals(Json.text(obj, "metadata.uid"))) {
                throw ApiException.conflict(type, name, "Precondition failed: UID in precondition: "
                        + opts.preconditionUid() + ", UID in object meta: " + Json.text(obj, "metadata.uid"));
            }
            if (opts.preconditionResourceVersion() != null
                    && !opts.preconditionResourceVersion().equals(Json.text(obj, "metadata.resourceVersion"))) {
                throw ApiException.conflict(type, name, "Precondition failed: ResourceVersion in precondition: "
                        + opts.preconditionResourceVersion() + ", ResourceVersion in object meta: "
                        + Json.text(obj, "metadata.resourceVersion"));
            }
            if (attempt == 0) {
                service.admission().validate(type, null, namespace, null, obj, opts.writeOptions());
            }
            ObjectNode updated = obj.deepCopy();
            ObjectNode meta = Json.child(updated, "metadata");
            addPropagationFinalizer(meta, opts.propagationPolicy());
            KindStrategy strategy = service.definition(type).strategy();
            long grace = strategy.gracePeriodSeconds(obj, opts.gracePeriodSeconds());
            // Finalizers, a grace period or a kind that terminates first (a namespace) keep the object for now.
            boolean pending = !meta.path("finalizers").isEmpty() || grace > 0 || strategy.terminates();
            if (pending && meta.has("deletionTimestamp") && meta.equals(obj.get("metadata"))) {
                return new Outcome(obj, 202, List.of());
            }
            if (pending && !meta.has("deletionTimestamp")) {
                meta.put("deletionTimestamp", Times.plusSeconds(Instant.now(), grace).truncatedTo(ChronoUnit.SECONDS)
                        .toString());
                meta.put("deletionGracePeriodSeconds", grace);
                if (strategy.terminates()) {
                    strategy.markTerminating(updated);
                }
            }
            boolean deleteNow = !pending || (strategy.terminates() && strategy.finalized(updated)
                    && meta.path("finalizers").isEmpty());
            if (opts.dryRun()) {
                return deleteNow ? Outcome.ok(obj, List.of()) : new Outcome(updated, 202, List.of());
            }
            if (deleteNow) {
                StoredObject last = service.served(type, store.delete(key, cur.modRevision(), null));
                strategy.afterDelete(last.value());
                service.admission().removed(type, namespace, last.value());
                service.awaitCacheForPolicy(type, last);
                return Outcome.stored(last, 200);
            }
            StoredObject marked = store.update(key, service.forStorage(type, updated), cur.modRevision(), null);
            service.awaitCacheForPolicy(type, marked);
            return Outcome.stored(service.served(type, marked), 202);
        });
    }

    private static void addPropagationFinalizer(ObjectNode meta, String policy) {
        if (policy == null || policy.isEmpty() || policy.equals("Background")) {
            return;
        }
        String finalizer = switch (policy) {
            case "Orphan" -> "orphan";
            case "Foreground" -> "foregroundDeletion";
            default -> throw ApiException.badRequest("unsupported propagationPolicy \"" + policy
                    + "\": supported values are \"Orphan\", \"Background\", \"Foreground\"");
        };
        if (meta.has("deletionTimestamp")) {
            return;
        }
        ArrayNode f = meta.has("finalizers") && meta.get("finalizers").isArray()
                ? (ArrayNode) meta.get("finalizers") : meta.putArray("finalizers");
        if (!Json.strings(f).contains(finalizer)) {
            f.add(finalizer);
        }
    }
}

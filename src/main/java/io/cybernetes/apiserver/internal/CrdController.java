package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.DeleteOptions;
import io.cybernetes.apiserver.internal.handlers.ResourceDeleter;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.apiserver.internal.registry.Conversion;
import io.cybernetes.apiserver.internal.registry.CustomResourceSchema;
import io.cybernetes.apiserver.internal.registry.CustomResourceStrategy;
import io.cybernetes.apiserver.internal.registry.KindDefinition;
import io.cybernetes.apiserver.internal.registry.KindDefinitions;
import io.cybernetes.apiserver.internal.registry.ScalePaths;
import io.cybernetes.apiserver.internal.registry.Subresource;
import io.cybernetes.apiserver.internal.registry.TableColumn;
import io.cybernetes.apiserver.internal.registry.VersionConverter;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.apiextensions.CrdConditions;
import io.cybernetes.apiserver.internal.apiextensions.JsonPath;
import io.cybernetes.apiserver.internal.apiextensions.StructuralSchema;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.StoredObject;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Serves the kinds CustomResourceDefinitions define, as apiextensions-apiserver's naming,
 * establishing and finalizer controllers together do: follows the CRDs in the store;
 * accepts a CRD's names unless another kind of its group holds one of them
 * ({@code NamesAccepted}); then serves every served version ({@code Established}),
 * in discovery, OpenAPI and at its paths; records the storage version in
 * {@code status.storedVersions}. A deleted CRD keeps serving while its instances are
 * deleted (the {@code customresourcecleanup.apiextensions.k8s.io} finalizer, with a
 * {@code Terminating} condition, refusing new instances meanwhile); its kinds go when it
 * does. Every replica runs one and serves what the store says; their writes are the same.
 */
@Component
class CrdController implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(CrdController.class);
    private static final WriteOptions WRITE = WriteOptions.server("apiextensions-apiserver");

    private final ResourceService service;
    private final ResourceRegistry registry;
    private final KindDefinitions definitions;
    private final ResourceDeleter deleter;
    private final ResourceType crds;
    private final io.cybernetes.admission.webhook.WebhookTransport webhooks =
            new io.cybernetes.admission.webhook.WebhookTransport();
    /** The kinds each CRD serves, by CRD name. */
    private final Map<String, List<ResourceType>> served = new HashMap<>();
    /** What each CRD's kinds were built from (its spec and accepted names), by CRD name. */
    private final Map<String, JsonNode> servedFrom = new HashMap<>();
    /** The CRDs being deleted, whose kinds refuse new objects. */
    private final Set<String> terminating = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final Set<String> cleaning = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private StoreReflector reflector;
    private ScheduledExecutorService cleanup;
    private volatile boolean running;

    CrdController(ResourceService service, ResourceRegistry registry, KindDefinitions definitions) {
        this.service = service;
        this.registry = registry;
        this.definitions = definitions;
        this.deleter = new ResourceDeleter(service);
        this.crds = registry.byPath(ResourceRegistry.APIEXTENSIONS, "v1", "customresourcedefinitions").orElseThrow();
    }

    @Override
    public void start() {
        cleanup = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crd-cleanup");
            t.setDaemon(true);
            return t;
        });
        reflector = new StoreReflector(service.store(), crds, new StoreReflector.Handler() {
            @Override
            public void upsert(String key, ObjectNode object) {
                reconcile(object);
            }

            @Override
            public void delete(String key, ObjectNode lastState) {
                stopServing(Json.text(lastState, "metadata.name"));
                namesFreed(Json.text(lastState, "spec.group"));
            }
        });
        reflector.start();
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        if (reflector != null) {
            reflector.stop();
        }
        if (cleanup != null) {
            cleanup.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the store (so it can read), before the web server (so kinds are served when requests come). */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 100;
    }

    private synchronized void reconcile(ObjectNode crd) {
        String name = Json.text(crd, "metadata.name");
        try {
            if (Json.text(crd, "metadata.deletionTimestamp") != null) {
                terminating.add(name);
                // still served while its instances go (after a restart too), so clients can let them go
                if (CrdConditions.isTrue(crd.path("status"), "Established")) {
                    serve(crd, crd.path("status"));
                }
                if (Json.strings(crd.path("metadata").get("finalizers")).contains(CrdConditions.CLEANUP_FINALIZER)
                        && cleaning.add(name)) {
                    cleanup.execute(() -> cleanUp(crd));
                }
                return;
            }
            terminating.remove(name);
            ObjectNode status = status(crd);
            if (!status.equals(crd.path("status"))) {
                service.guaranteedUpdate(crds, null, name, "status", 0, WRITE, cur -> {
                    cur.set("status", status(cur));
                    return cur;
                });
                return;
            }
            if (CrdConditions.isTrue(status, "Established")) {
                serve(crd, status);
            } else {
                stopServing(name);
            }
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                log.warn("Reconciling CustomResourceDefinition {} failed: {}", name, e.getMessage());
            }
        } catch (RuntimeException e) {
            // one CRD that cannot be served must not keep the others (or the server) from starting
            log.warn("Reconciling CustomResourceDefinition {} failed", name, e);
        }
    }

    // ---- names and conditions

    /** The status the CRD should have: accepted names, conditions, stored versions. */
    private ObjectNode status(ObjectNode crd) {
        ObjectNode old = crd.path("status").isObject() ? (ObjectNode) crd.get("status") : Json.object();
        ObjectNode status = old.deepCopy();
        JsonNode names = crd.path("spec").path("names");
        Conflict conflict = conflict(crd);
        if (conflict == null) {
            status.set("acceptedNames", acceptedNames(names));
            CrdConditions.set(status, old, "NamesAccepted", "True", "NoConflicts", "no conflicts found");
            CrdConditions.set(status, old, "Established", "True", "InitialNamesAccepted",
                    "the initial names have been accepted");
        } else {
            if (!status.has("acceptedNames")) {
                status.putObject("acceptedNames").put("plural", "").put("kind", "");
            }
            CrdConditions.set(status, old, "NamesAccepted", "False", conflict.reason(), conflict.message());
            if (!CrdConditions.isTrue(old, "Established")) {
                CrdConditions.set(status, old, "Established", "False", "NotAccepted", "not all names are accepted");
            }
        }
        ArrayNode stored = status.has("storedVersions") ? (ArrayNode) status.get("storedVersions")
                : status.putArray("storedVersions");
        for (JsonNode v : crd.path("spec").path("versions")) {
            String version = Json.text(v, "name");
            if (v.path("storage").asBoolean(false) && !Json.strings(stored).contains(version)) {
                stored.add(version);
            }
        }
        return status;
    }

    private static ObjectNode acceptedNames(JsonNode names) {
        ObjectNode a = Json.object();
        a.put("plural", Json.text(names, "plural"));
        a.put("singular", Json.text(names, "singular"));
        if (!names.path("shortNames").isEmpty()) {
            a.set("shortNames", names.get("shortNames").deepCopy());
        }
        a.put("kind", Json.text(names, "kind"));
        a.put("listKind", Json.text(names, "listKind"));
        if (!names.path("categories").isEmpty()) {
            a.set("categories", names.get("categories").deepCopy());
        }
        return a;
    }

    /**
     * Why a CRD's names cannot be accepted, or null: another CRD
     * of the group has accepted its plural, singular, a short name, its kind or its list
     * kind. Built-in kinds are not asked, as Kubernetes does not ask them; a CRD's
     * version at a built-in's path is simply not served (the built-in answers there).
     */
    private Conflict conflict(ObjectNode crd) {
        String name = Json.text(crd, "metadata.name");
        String group = Json.text(crd, "spec.group");
        JsonNode names = crd.path("spec").path("names");
        Set<String> resources = new HashSet<>();
        Set<String> kinds = new HashSet<>();
        for (StoredObject o : service.store().list(new ListRequest(crds.keyPrefix(), ListRequest.Match.LATEST, 0,
                x -> true, null, 0)).items()) {
            JsonNode other = o.value();
            if (Json.text(other, "metadata.name").equals(name) || !group.equals(Json.text(other, "spec.group"))) {
                continue;
            }
            JsonNode accepted = other.path("status").path("acceptedNames");
            for (String f : List.of("plural", "singular")) {
                if (Json.text(accepted, f) != null && !Json.text(accepted, f).isEmpty()) {
                    resources.add(Json.text(accepted, f));
                }
            }
            resources.addAll(Json.strings(accepted.get("shortNames")));
            for (String f : List.of("kind", "listKind")) {
                if (Json.text(accepted, f) != null && !Json.text(accepted, f).isEmpty()) {
                    kinds.add(Json.text(accepted, f));
                }
            }
        }
        // checked in this order, the last conflict found being the one told, as the naming controller tells it
        Conflict conflict = null;
        conflict = taken("PluralConflict", Json.text(names, "plural"), resources, conflict);
        conflict = taken("SingularConflict", Json.text(names, "singular"), resources, conflict);
        List<String> shortNames = Json.strings(names.get("shortNames")).stream().filter(resources::contains)
                .map(n -> GoStrings.quote(n) + " is already in use").toList();
        if (!shortNames.isEmpty()) {
            conflict = new Conflict("ShortNamesConflict", shortNames.size() == 1 ? shortNames.get(0)
                    : "[" + String.join(", ", shortNames) + "]");
        }
        conflict = taken("KindConflict", Json.text(names, "kind"), kinds, conflict);
        return taken("ListKindConflict", Json.text(names, "listKind"), kinds, conflict);
    }

    /** Why names cannot be accepted: the condition's reason and message. */
    private record Conflict(String reason, String message) {
    }

    /** The conflict a name in use makes, else the one found before. */
    private static Conflict taken(String reason, String name, Set<String> used, Conflict before) {
        return name != null && used.contains(name) ? new Conflict(reason, GoStrings.quote(name) + " is already in use")
                : before;
    }

    /** Whether a kind with that resource's objects is one no CRD serves (a built-in, or a view of the server's). */
    private boolean builtIn(ResourceType type) {
        // by store key, not path: a CRD of another version of a built-in resource would share its objects
        return registry.all().stream().anyMatch(t -> t.keyPrefix().equals(type.keyPrefix())
                && served.values().stream().noneMatch(l -> l.contains(t)));
    }

    // ---- serving

    /** Serves the CRD's served versions (and stops serving those no longer served). */
    private void serve(ObjectNode crd, JsonNode status) {
        String name = Json.text(crd, "metadata.name");
        JsonNode spec = crd.path("spec");
        JsonNode names = status.path("acceptedNames");
        // what is served follows from the spec and the accepted names alone: unchanged, nothing to rebuild
        ObjectNode fingerprint = Json.object();
        fingerprint.set("spec", spec);
        fingerprint.set("names", names);
        if (fingerprint.equals(servedFrom.get(name))) {
            return;
        }
        List<ResourceType> now = new ArrayList<>();
        Conversion conversion = conversion(spec, names);
        for (JsonNode v : spec.path("versions")) {
            if (!v.path("served").asBoolean(false)) {
                continue;
            }
            JsonNode sub = v.path("subresources");
            Set<String> subresources = new LinkedHashSet<>();
            if (sub.has("status")) {
                subresources.add("status");
            }
            if (sub.has("scale")) {
                subresources.add("scale");
            }
            ResourceType type = new ResourceType(Json.text(spec, "group"), Json.text(v, "name"),
                    Json.text(names, "kind"), Json.text(names, "plural"), Json.text(names, "singular"),
                    "Namespaced".equals(Json.text(spec, "scope")), Json.strings(names.get("shortNames")),
                    Json.strings(names.get("categories")), subresources, ResourceType.NameRule.DNS1123_SUBDOMAIN,
                    GenericKubernetesResource.class, ResourceType.STORED_VERBS);
            if (builtIn(type)) {
                continue;
            }
            StructuralSchema schema = StructuralSchema.of(v.path("schema").path("openAPIV3Schema"));
            JsonNode scale = sub.get("scale");
            definitions.register(new KindDefinition(type,
                    new CustomResourceStrategy(sub.has("status"), () -> terminating.contains(name)),
                    columns(v.path("additionalPrinterColumns")), false, Subresource.of(type),
                    new CustomResourceSchema(schema, definitions.schemas()),
                    scale == null ? null : ScalePaths.of(Json.text(scale, "specReplicasPath"),
                            Json.text(scale, "statusReplicasPath"), Json.text(scale, "labelSelectorPath")),
                    conversion));
            definitions.schemas().putCustom(type, schema.raw());
            now.add(type);
        }
        List<ResourceType> before = served.getOrDefault(name, List.of());
        served.put(name, now);
        servedFrom.put(name, fingerprint.deepCopy());
        for (ResourceType old : before) {
            if (now.stream().noneMatch(t -> t.group().equals(old.group()) && t.version().equals(old.version())
                    && t.plural().equals(old.plural()))) {
                unserve(old);
            }
        }
        now.forEach(registry::register); // each a new generation: discovery and OpenAPI are built afresh
    }

    /**
     * How the CRD's versions convert into each other: null with one version (nothing to
     * convert), else at the storage version by its strategy (None or Webhook).
     */
    private Conversion conversion(JsonNode spec, JsonNode names) {
        if (spec.path("versions").size() < 2) {
            return null;
        }
        String storage = null;
        for (JsonNode v : spec.path("versions")) {
            if (v.path("storage").asBoolean(false)) {
                storage = Json.text(spec, "group") + "/" + Json.text(v, "name");
            }
        }
        JsonNode conversion = spec.path("conversion");
        VersionConverter converter = "Webhook".equals(Json.text(conversion, "strategy"))
                ? VersionConverter.webhook(Json.text(spec, "group"), Json.text(names, "kind"),
                        conversion.path("webhook").path("clientConfig"), webhooks)
                : VersionConverter.NONE;
        return new Conversion(storage, converter);
    }

    /** A CRD of the group went: the others of the group whose names were taken may have them now. */
    private void namesFreed(String group) {
        for (StoredObject o : service.store().list(new ListRequest(crds.keyPrefix(), ListRequest.Match.LATEST, 0,
                x -> true, null, 0)).items()) {
            if (java.util.Objects.equals(group, Json.text(o.value(), "spec.group"))
                    && !CrdConditions.isTrue(o.value().path("status"), "NamesAccepted")) {
                reconcile(o.value());
            }
        }
    }

    private synchronized void stopServing(String crdName) {
        terminating.remove(crdName);
        for (ResourceType t : served.getOrDefault(crdName, List.of())) {
            unserve(t);
        }
        served.remove(crdName);
        servedFrom.remove(crdName);
    }

    private void unserve(ResourceType t) {
        registry.unregister(t);
        definitions.unregister(t);
        definitions.schemas().removeCustom(t);
    }

    /** A custom resource's Table: its name, then its printer columns (its age when it names none). */
    private static List<TableColumn> columns(JsonNode printerColumns) {
        List<TableColumn> columns = new ArrayList<>();
        columns.add(TableColumn.NAME);
        if (printerColumns.isEmpty()) {
            columns.add(new TableColumn("Age", "date", "", 0, o -> Json.text(o, "metadata.creationTimestamp")));
            return columns;
        }
        for (JsonNode c : printerColumns) {
            JsonPath path = JsonPath.parse(Json.text(c, "jsonPath"));
            String type = Json.text(c, "type");
            columns.add(new TableColumn(Json.text(c, "name"), type, Json.text(c, "format") == null ? ""
                    : Json.text(c, "format"), c.path("priority").asInt(0), o -> cell(path.first(o), type)));
        }
        return columns;
    }

    private static Object cell(JsonNode value, String type) {
        if (value == null || value.isNull()) {
            return NullNode.getInstance();
        }
        return switch (type) {
            case "integer", "number", "boolean" -> value;
            default -> value.isString() ? value.asString() : value.toString();
        };
    }

    // ---- deletion

    /**
     * Deletes every instance of a terminating CRD, then lets it go: the finalizer is
     * removed once no instance is left (instances held by finalizers of their own keep
     * it, as in Kubernetes). Retried every second until done.
     */
    private void cleanUp(ObjectNode crd) {
        String crdName = Json.text(crd, "metadata.name");
        // the instances are where the CRD's group and plural say, whether or not this replica serves them
        String prefix = Json.text(crd, "spec.group") + "/" + Json.text(crd, "spec.names.plural") + "/";
        try {
            ResourceType kind;
            synchronized (this) {
                kind = served.getOrDefault(crdName, List.of()).stream().findFirst().orElse(null);
            }
            boolean overlapping;
            synchronized (this) {
                overlapping = registry.all().stream().anyMatch(t -> t.keyPrefix().equals(prefix)
                        && served.values().stream().noneMatch(l -> l.contains(t)));
            }
            if (overlapping) {
                // the objects there are a built-in kind's: none of them is this CRD's to delete
                finish(crdName, "OverlappingBuiltInResource", "instances overlap with built-in resources in storage");
                return;
            }
            setTerminating(crdName, "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress");
            List<StoredObject> left = service.store().list(new ListRequest(prefix, ListRequest.Match.LATEST, 0,
                    x -> true, null, 0)).items();
            for (StoredObject o : left) {
                if (kind != null && Json.text(o.value(), "metadata.deletionTimestamp") == null) {
                    try {
                        deleter.delete(kind, Json.text(o.value(), "metadata.namespace"),
                                Json.text(o.value(), "metadata.name"), new DeleteOptions("Background", null,
                                        null, null, false, WriteOptions.SERVER));
                    } catch (ApiException e) {
                        if (e.code() != 404) {
                            throw e;
                        }
                    }
                }
            }
            if (!left.isEmpty()) {
                cleanup.schedule(() -> cleanUp(crd), 1, TimeUnit.SECONDS);
                return;
            }
            finish(crdName, "InstanceDeletionCompleted", "removed all instances");
        } catch (ApiException e) {
            if (e.code() == 404) {
                cleaning.remove(crdName);
                return;
            }
            log.info("Deleting the instances of {} failed, retrying: {}", crdName, e.getMessage());
            cleanup.schedule(() -> cleanUp(crd), 1, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            log.warn("Deleting the instances of {} failed, retrying", crdName, e);
            cleanup.schedule(() -> cleanUp(crd), 1, TimeUnit.SECONDS);
        }
    }

    /** The instances are dealt with: the Terminating condition says how, and the finalizer goes. */
    private void finish(String crdName, String reason, String message) {
        setTerminating(crdName, "False", reason, message);
        service.guaranteedUpdate(crds, null, crdName, 0, WRITE, cur -> {
            ArrayNode f = (ArrayNode) cur.path("metadata").path("finalizers");
            for (int i = f.size() - 1; i >= 0; i--) {
                if (CrdConditions.CLEANUP_FINALIZER.equals(f.get(i).asString())) {
                    f.remove(i);
                }
            }
            return cur;
        });
        cleaning.remove(crdName);
    }

    private void setTerminating(String crdName, String value, String reason, String message) {
        service.guaranteedUpdate(crds, null, crdName, "status", 0, WRITE, cur -> {
            CrdConditions.set(Json.child(cur, "status"), "Terminating", value, reason, message);
            return cur;
        });
    }
}

package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.Conversion;
import io.cybernetes.apiserver.internal.registry.KindDefinition;
import io.cybernetes.apiserver.internal.registry.KindDefinitions;
import io.cybernetes.apiserver.internal.fieldmanager.Apply;
import io.cybernetes.apiserver.internal.fieldmanager.FieldType;
import io.cybernetes.apiserver.internal.registry.KindSchema;
import io.cybernetes.apiserver.internal.registry.KindStrategy;
import io.cybernetes.apiserver.internal.registry.MetaValidation;
import io.cybernetes.apiserver.internal.registry.SchemaRegistry;
import io.cybernetes.apiserver.internal.registry.StrictDecoder;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * The generic registry logic every kind shares, as the Kubernetes apiserver's generic
 * store has it: metadata that the server owns (uid, timestamps, generation,
 * resourceVersion), optimistic concurrency with retries for patches, finalizers and
 * graceful deletion, dry runs, and the mapping of store errors to API errors.
 */
public final class ResourceService {

    public static final int MAX_UPDATE_ATTEMPTS = 16;
    private static final String GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    private final Store store;
    private final SchemaRegistry schemas;
    private final Admission admission;
    private final KindDefinitions definitions;
    private final SecureRandom random = new SecureRandom();

    public ResourceService(Store store, SchemaRegistry schemas, Admission admission, KindDefinitions definitions) {
        this.store = store;
        this.schemas = schemas;
        this.admission = admission;
        this.definitions = definitions;
    }

    /** What is particular to each kind. */
    public KindDefinition definition(ResourceType type) {
        return definitions.of(type);
    }

    public Admission admission() {
        return admission;
    }

    public Store store() {
        return store;
    }

    // ---- decoding

    /** Checks apiVersion and kind against the URL (filling them in when absent) and applies field validation. */
    public List<String> decode(ResourceType type, ObjectNode body, WriteOptions opts) {
        String apiVersion = Json.text(body, "apiVersion");
        String kind = Json.text(body, "kind");
        if (apiVersion != null && !apiVersion.isEmpty() && !apiVersion.equals(type.apiVersion())) {
            throw ApiException.badRequest("the API version in the data (" + apiVersion
                    + ") does not match the expected API version (" + type.apiVersion() + ")");
        }
        if (kind != null && !kind.isEmpty() && !kind.equals(type.kind())) {
            throw ApiException.badRequest("the kind in the data (" + kind + ") does not match the expected kind ("
                    + type.kind() + ")");
        }
        putTypeMetaFirst(body, type);
        if (body.has("metadata") && !body.get("metadata").isObject() && !body.get("metadata").isNull()) {
            throw ApiException.badRequest(type.kind() + " in version \"" + type.version() + "\" cannot be handled as a "
                    + type.kind() + ": metadata must be an object");
        }
        return definitions.of(type).schema().decode(type, body, opts.fieldValidation(), opts.duplicateFields());
    }

    /**
     * Checks the body of a subresource (a Scale, a TokenRequest) against its model's types,
     * as Go decodes it: a value its field cannot hold is a 400; unknown fields are dropped.
     */
    public void decodeAs(Class<?> model, String kind, String version, ObjectNode body) {
        StrictDecoder.decode(body, schemas.schemaOf(model), kind, version, StrictDecoder.FieldValidation.IGNORE,
                List.of());
    }

    /** Puts kind and apiVersion at the front, where Go writes them and people expect to read them. */
    private static void putTypeMetaFirst(ObjectNode body, ResourceType type) {
        ObjectNode rest = body.deepCopy();
        rest.remove(List.of("apiVersion", "kind"));
        body.removeAll();
        // Go's TypeMeta order: kind, then apiVersion
        body.put("kind", type.kind());
        body.put("apiVersion", type.apiVersion());
        body.setAll(rest);
    }

    // ---- create

    public Outcome create(ResourceType type, String namespace, ObjectNode body, WriteOptions opts) {
        FieldManagement.checkFieldManager(opts, "CreateOptions");
        return createDecoded(type, namespace, body, opts, decode(type, body, opts));
    }

    /** Creates an object already decoded (the decoding's warnings given). */
    private Outcome createDecoded(ResourceType type, String namespace, ObjectNode body, WriteOptions opts,
                                  List<String> warnings) {
        ObjectNode meta = Json.child(body, "metadata");
        checkNamespace(type, namespace, meta);
        String rv = Json.text(meta, "resourceVersion");
        if (rv != null && !rv.isEmpty()) {
            throw ApiException.badRequest("resourceVersion should not be set on objects to be created");
        }
        meta.remove(List.of("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                "generation", "selfLink", "resourceVersion"));
        String generateName = Json.text(meta, "generateName");
        boolean generated = (Json.text(meta, "name") == null || Json.text(meta, "name").isEmpty())
                && generateName != null && !generateName.isEmpty();
        KindDefinition definition = definitions.of(type);
        KindStrategy strategy = definition.strategy();
        strategy.prepareForCreate(body, opts.user());
        definition.schema().normalize(body);
        meta.put("uid", UUID.randomUUID().toString());
        meta.put("creationTimestamp", now());
        if (strategy.tracksGeneration()) {
            meta.put("generation", 1);
        }
        for (int attempt = 0; ; attempt++) {
            if (generated) {
                meta.put("name", generateName + randomSuffix());
            }
            if (attempt == 0) {
                admission.mutate(type, null, namespace, body, null, opts);
                definition.schema().afterMutation(body);
            }
            validateCreate(type, body, strategy);
            List<String> admitted = admission.validate(type, null, namespace, body, null, opts);
            FieldManagement.record(type, definitions.of(type).schema().fieldType(), null, body, null, opts);
            String name = Json.text(meta, "name");
            if (opts.dryRun()) {
                if (store.get(type.key(namespace, name)).isPresent()) {
                    throw ApiException.alreadyExists(type, name);
                }
                strategy.previewCreate(body);
                return new Outcome(body, 201, warnings).withWarnings(admitted);
            }
            Runnable undo;
            try {
                undo = strategy.beforeCreate(body);
            } catch (RuntimeException e) {
                // a refused allocation: what admission reserved (quota) is given back
                admission.release(type, null, namespace, body, null, opts);
                throw e;
            }
            try {
                StoredObject created = store.create(type.key(namespace, name), forStorage(type, body));
                awaitCacheForPolicy(type, created);
                return Outcome.stored(served(type, created), 201).withWarnings(warnings).withWarnings(admitted);
            } catch (StorageException e) {
                undo.run();
                admission.release(type, null, namespace, body, null, opts);
                if (e.isExists() && generated && attempt < 8) {
                    continue;
                }
                throw translate(e, type, name);
            } catch (RuntimeException e) {
                undo.run();
                admission.release(type, null, namespace, body, null, opts);
                throw e;
            }
        }
    }

    /**
     * Admission reads namespaces, quotas, limit ranges, webhook configurations and priority classes from
     * this process's watch cache. A write of one of them returns once the cache has it, so
     * a client's next request is judged by it (a quota created, then objects: the quota
     * counts them; a namespace deleted, then a create in it: refused).
     */
    public void awaitCacheForPolicy(ResourceType type, StoredObject written) {
        if (!definitions.of(type).policy()) {
            return;
        }
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (store.cachedRevision() < written.modRevision() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void validateCreate(ResourceType type, ObjectNode body, KindStrategy strategy) {
        List<StatusCause> causes = new ArrayList<>();
        ObjectNode meta = (ObjectNode) body.get("metadata");
        MetaValidation.validateName(Json.text(meta, "name"), type.nameRule(), "metadata.name", causes);
        MetaValidation.validateMeta(meta, causes);
        definitions.of(type).schema().validate(body, null, causes);
        strategy.validate(body, causes);
        if (!causes.isEmpty()) {
            throw ApiException.invalid(type, Json.text(meta, "name"), distinct(causes));
        }
    }

    private void checkNamespace(ResourceType type, String namespace, ObjectNode meta) {
        String bodyNs = Json.text(meta, "namespace");
        if (!type.namespaced()) {
            meta.remove("namespace");
            return;
        }
        if (bodyNs != null && !bodyNs.isEmpty() && !bodyNs.equals(namespace)) {
            throw ApiException.badRequest("the namespace of the provided object does not match the namespace sent on"
                    + " the request");
        }
        meta.put("namespace", namespace);
    }

    private String randomSuffix() {
        StringBuilder sb = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            sb.append(GENERATE_ALPHABET.charAt(random.nextInt(GENERATE_ALPHABET.length())));
        }
        return sb.toString();
    }

    public static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    // ---- get and list

    public StoredObject get(ResourceType type, String namespace, String name) {
        return served(type, store.get(type.key(namespace, name)).orElseThrow(() -> ApiException.notFound(type, name)));
    }

    // ---- versions

    /** A stored object as the version the request names sees it (converted when its kind has several versions). */
    public StoredObject served(ResourceType type, StoredObject stored) {
        KindDefinition d = definitions.of(type);
        StoredObject converted = d.conversion() == null ? stored : d.conversion().served(type, stored);
        return withReadDefaults(d, converted);
    }

    /** Stored objects as the version the request names sees them. */
    public List<StoredObject> served(ResourceType type, List<StoredObject> stored) {
        KindDefinition d = definitions.of(type);
        List<StoredObject> converted = d.conversion() == null ? stored : d.conversion().served(type, stored);
        List<StoredObject> out = null;
        for (int i = 0; i < converted.size(); i++) {
            StoredObject o = withReadDefaults(d, converted.get(i));
            if (o != converted.get(i) && out == null) {
                out = new ArrayList<>(converted);
            }
            if (out != null) {
                out.set(i, o);
            }
        }
        return out == null ? converted : out;
    }

    private static StoredObject withReadDefaults(KindDefinition d, StoredObject o) {
        ObjectNode read = d.schema().onRead(o.value());
        return read == o.value() ? o : new StoredObject(o.key(), o.createRevision(), o.modRevision(), read, null,
                o.stale());
    }

    /** An object written through the request's version, as it is stored (at the kind's storage version). */
    public ObjectNode forStorage(ResourceType type, ObjectNode obj) {
        Conversion c = definitions.of(type).conversion();
        return c == null ? obj : c.forStorage(obj);
    }

    public static long parseRevision(String rv) {
        try {
            long r = Long.parseLong(rv);
            if (r < 0) {
                throw new NumberFormatException();
            }
            return r;
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("invalid resource version \"" + rv + "\"");
        }
    }

    // ---- update and patch

    /**
     * Reads the current object, lets {@code transform} compute the new one, and writes
     * it if it changed (or is stored in a form no longer written). A conflict is retried with a fresh read unless the caller named
     * a resourceVersion ({@code expectedRevision} &gt; 0), which then must be current.
     */
    public Outcome guaranteedUpdate(ResourceType type, String namespace, String name, long expectedRevision,
                             WriteOptions opts, Function<ObjectNode, ObjectNode> transform) {
        return guaranteedUpdate(type, namespace, name, null, expectedRevision, opts, transform);
    }

    /** As above, for a subresource: its strategy may allow changes the main resource forbids (binding a pod). */
    public Outcome guaranteedUpdate(ResourceType type, String namespace, String name, String subresource, long expectedRevision,
                             WriteOptions opts, Function<ObjectNode, ObjectNode> transform) {
        String key = type.key(namespace, name);
        return retryOnConflict(type, namespace, name, (cur, attempt) -> {
            if (expectedRevision > 0 && expectedRevision != cur.modRevision()) {
                throw ApiException.staleObject(type, name);
            }
            ObjectNode old = cur.value();
            ObjectNode updated = transform.apply(old.deepCopy());
            // managedFields are the server's to keep, whatever a client sent back (an apply has set them)
            if (opts.appliedConfig() == null) {
                FieldManagement.keepManagedFields(old, updated);
            }
            admission.mutate(type, subresource, namespace, updated, old, opts);
            definitions.of(type).schema().afterMutation(updated);
            finishUpdate(type, subresource, old, updated);
            // an unchanged object is not written again, unless the database holds it as no longer written
            // (encrypted with a key that is not the first): rewriting it is how a key rotates
            if (sameIgnoringVersion(old, updated) && !cur.stale()) {
                return Outcome.ok(old, List.of());
            }
            if (opts.appliedConfig() == null) {
                FieldManagement.record(type, definitions.of(type).schema().fieldType(), old, updated, subresource,
                        opts);
            }
            List<String> admitted = admission.validate(type, subresource, namespace, updated, old, opts);
            boolean finalized = Json.text(updated, "metadata.deletionTimestamp") != null
                    && updated.path("metadata").path("finalizers").isEmpty()
                    && definitions.of(type).strategy().finalized(updated);
            if (opts.dryRun()) {
                return Outcome.ok(updated, admitted);
            }
            KindStrategy.Update held = KindStrategy.Update.NONE;
            try {
                if (finalized) {
                    StoredObject last = served(type, store.delete(key, cur.modRevision(), null));
                    definitions.of(type).strategy().afterDelete(last.value());
                    admission.removed(type, namespace, last.value());
                    awaitCacheForPolicy(type, last);
                    return Outcome.stored(last, 200);
                }
                held = definitions.of(type).strategy().beforeUpdate(updated, old);
                StoredObject stored = store.update(key, forStorage(type, updated), cur.modRevision(), null);
                KindStrategy.Update done = held;
                held = KindStrategy.Update.NONE;
                done.afterStore().run();
                awaitCacheForPolicy(type, stored);
                return Outcome.stored(served(type, stored), 200).withWarnings(admitted);
            } catch (StorageException e) {
                held.undo().run();
                admission.release(type, subresource, namespace, updated, old, opts);
                if (e.isConflict() && expectedRevision > 0) {
                    throw ApiException.staleObject(type, name);
                }
                throw e;
            } catch (RuntimeException e) {
                held.undo().run();
                admission.release(type, subresource, namespace, updated, old, opts);
                throw e;
            }
        });
    }

    /** One optimistic write: decides from the object as read and writes at its revision. */
    public interface Attempt {
        Outcome run(StoredObject current, int attempt) throws StorageException;
    }

    /**
     * Runs an optimistic write until it is not refused for a conflict (another writer
     * came between its read and its write): each attempt on a fresh read, up to
     * {@link #MAX_UPDATE_ATTEMPTS}; then 409, as kube-apiserver's GuaranteedUpdate gives up.
     */
    public Outcome retryOnConflict(ResourceType type, String namespace, String name, Attempt write) {
        for (int attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
            StoredObject cur = get(type, namespace, name);
            try {
                return write.run(cur, attempt);
            } catch (StorageException e) {
                if (!e.isConflict()) {
                    throw translate(e, type, name);
                }
            }
        }
        throw ApiException.conflict(type, name, "too many concurrent updates; please try again");
    }

    /** Restores what the server owns, bumps the generation, and validates. */
    private void finishUpdate(ResourceType type, String subresource, ObjectNode old, ObjectNode updated) {
        ObjectNode meta = Json.child(updated, "metadata");
        ObjectNode oldMeta = (ObjectNode) old.get("metadata");
        List<StatusCause> causes = new ArrayList<>();
        String uid = Json.text(meta, "uid");
        if (uid != null && !uid.isEmpty() && !uid.equals(Json.text(oldMeta, "uid"))) {
            causes.add(MetaValidation.immutable("metadata.uid"));
        }
        for (String f : List.of("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                "generation", "namespace", "name")) {
            if (oldMeta.has(f)) {
                meta.set(f, oldMeta.get(f));
            } else {
                meta.remove(f);
            }
        }
        meta.remove("selfLink");
        KindStrategy strategy = definitions.of(type).strategy();
        strategy.prepareForUpdate(updated, old, subresource);
        KindSchema schema = definitions.of(type).schema();
        schema.normalize(updated);
        MetaValidation.validateMeta(meta, causes);
        schema.validate(updated, old, causes);
        strategy.validateUpdate(updated, old, subresource, causes);
        if (Json.text(oldMeta, "deletionTimestamp") != null) {
            List<String> oldF = Json.strings(oldMeta.get("finalizers"));
            for (String f : Json.strings(meta.get("finalizers"))) {
                if (!oldF.contains(f)) {
                    causes.add(ApiException.cause("metadata.finalizers", "FieldValueForbidden",
                            "Forbidden: no new finalizers can be added if the object is being deleted, found new"
                                    + " finalizers [\"" + f + "\"]"));
                }
            }
        }
        if (!causes.isEmpty()) {
            throw ApiException.invalid(type, Json.text(oldMeta, "name"), distinct(causes));
        }
        if (strategy.tracksGeneration() && !specOf(old).equals(specOf(updated))) {
            meta.put("generation", oldMeta.path("generation").asLong(1) + 1);
        }
    }

    /** One cause per field and reason: the schema and a kind's own checks may both notice the same thing. */
    private static List<StatusCause> distinct(List<StatusCause> causes) {
        java.util.Map<String, StatusCause> byField = new java.util.LinkedHashMap<>();
        for (StatusCause c : causes) {
            byField.putIfAbsent(c.getField() + "|" + c.getReason(), c);
        }
        return List.copyOf(byField.values());
    }

    private static JsonNode specOf(ObjectNode obj) {
        ObjectNode copy = obj.deepCopy();
        copy.remove(List.of("metadata", "status", "apiVersion", "kind"));
        return copy;
    }

    private static boolean sameIgnoringVersion(ObjectNode a, ObjectNode b) {
        ObjectNode x = a.deepCopy();
        ObjectNode y = b.deepCopy();
        Json.child(x, "metadata").remove("resourceVersion");
        Json.child(y, "metadata").remove("resourceVersion");
        return x.equals(y);
    }

    /** PUT of the main resource or its status subresource. */
    public Outcome update(ResourceType type, String namespace, String name, String subresource, ObjectNode body,
                   WriteOptions opts) {
        FieldManagement.checkFieldManager(opts, "UpdateOptions");
        List<String> warnings = decode(type, body, opts);
        ObjectNode meta = Json.child(body, "metadata");
        String bodyName = Json.text(meta, "name");
        if (bodyName != null && !bodyName.isEmpty() && !bodyName.equals(name)) {
            throw ApiException.badRequest("the name of the object (" + bodyName + ") does not match the name on the URL ("
                    + name + ")");
        }
        checkNamespace(type, namespace, meta);
        String rv = Json.text(meta, "resourceVersion");
        long expected = rv == null || rv.isEmpty() ? 0 : parseRevision(rv);
        return guaranteedUpdate(type, namespace, name, subresource, expected, opts,
                old -> mergeForSubresource(type, subresource, old, body.deepCopy())).withWarnings(warnings);
    }

    /**
     * Keeps what the endpoint may not change: status on the main resource, everything but
     * status on /status, everything but the ephemeral containers on a pod's /ephemeralcontainers,
     * everything but the conditions on a CertificateSigningRequest's /approval.
     */
    public static ObjectNode mergeForSubresource(ResourceType type, String subresource, ObjectNode old, ObjectNode updated) {
        if ("finalize".equals(subresource)) {
            ObjectNode result = old.deepCopy();
            Json.child(result, "spec").set("finalizers", updated.path("spec").path("finalizers").isArray()
                    ? updated.path("spec").get("finalizers") : Json.MAPPER.createArrayNode());
            return result;
        }
        if ("ephemeralcontainers".equals(subresource)) {
            ObjectNode result = old.deepCopy();
            JsonNode ephemeral = updated.path("spec").get("ephemeralContainers");
            if (ephemeral == null || ephemeral.isNull()) {
                Json.child(result, "spec").remove("ephemeralContainers");
            } else {
                Json.child(result, "spec").set("ephemeralContainers", ephemeral);
            }
            return result;
        }
        if ("approval".equals(subresource)) {
            // a CertificateSigningRequest's approval: its conditions and nothing else
            ObjectNode result = old.deepCopy();
            JsonNode conditions = updated.path("status").get("conditions");
            if (conditions == null || conditions.isNull()) {
                Json.child(result, "status").remove("conditions");
            } else {
                Json.child(result, "status").set("conditions", conditions);
            }
            return result;
        }
        if ("status".equals(subresource)) {
            ObjectNode result = old.deepCopy();
            JsonNode status = updated.get("status");
            if (status == null) {
                result.remove("status");
            } else {
                result.set("status", status);
            }
            return result;
        }
        if (type.hasSubresource("status")) {
            JsonNode status = old.get("status");
            if (status == null) {
                updated.remove("status");
            } else {
                updated.set("status", status);
            }
        }
        return updated;
    }

    public Outcome patch(ResourceType type, String namespace, String name, String subresource, PatchType patchType,
                  byte[] body, WriteOptions opts) {
        FieldManagement.checkFieldManager(opts, "PatchOptions");
        if (patchType == PatchType.STRATEGIC && !definitions.of(type).schema().strategicMerge()) {
            throw ApiException.unsupportedMediaType(List.of("application/json-patch+json",
                    "application/merge-patch+json", "application/apply-patch+yaml"));
        }
        JsonNode patch = parsePatch(patchType, body);
        long expected = 0;
        if (patch.isObject()) {
            String rv = Json.text(patch, "metadata.resourceVersion");
            expected = rv == null || rv.isEmpty() ? 0 : parseRevision(rv);
        }
        if (patchType == PatchType.APPLY) {
            List<String> repeated = FieldManagement.repeatedKeys(body, opts);
            Outcome applied = apply(type, namespace, name, subresource, (ObjectNode) patch, opts);
            return applied.withWarnings(repeated);
        }
        List<String> warnings = new ArrayList<>();
        Outcome out = guaranteedUpdate(type, namespace, name, subresource, expected, opts, old -> {
            ObjectNode patched = applyPatch(patchType, old, patch);
            warnings.clear();
            warnings.addAll(decode(type, patched, opts));
            String patchedName = Json.text(patched, "metadata.name");
            if (patchedName != null && !patchedName.equals(name)) {
                throw ApiException.badRequest("the name of the object (" + patchedName
                        + ") does not match the name on the URL (" + name + ")");
            }
            return mergeForSubresource(type, subresource, old, patched);
        });
        return out.withWarnings(List.copyOf(warnings));
    }

    /**
     * Server-side apply: the configuration decoded as any body is (Strict refuses unknown
     * fields), then merged into the live object with field ownership ({@link Apply}); an
     * absent object is created from it, the applier owning what it applied.
     */
    private Outcome apply(ResourceType type, String namespace, String name, String subresource, ObjectNode config,
                          WriteOptions opts) {
        FieldManagement.requireApplyManager(opts);
        List<String> warnings = decode(type, config, opts);
        String configName = Json.text(config, "metadata.name");
        if (configName != null && !configName.isEmpty() && !configName.equals(name)) {
            throw ApiException.badRequest("the name of the object (" + configName
                    + ") does not match the name on the URL (" + name + ")");
        }
        Json.child(config, "metadata").put("name", name);
        if (subresource == null && store.get(type.key(namespace, name)).isEmpty()) {
            return createDecoded(type, namespace, config.deepCopy(), opts.applying(config), warnings);
        }
        return applyToLive(type, namespace, name, subresource, config, opts).withWarnings(warnings);
    }

    /**
     * Applies a decoded configuration, in the kind's own shape, to the live object through
     * the endpoint named ({@code scale} hands in the replicas it was given at the kind's path).
     */
    public Outcome applyToLive(ResourceType type, String namespace, String name, String subresource,
                               ObjectNode config, WriteOptions opts) {
        FieldManagement.requireApplyManager(opts);
        FieldType fields = definitions.of(type).schema().fieldType();
        WriteOptions applying = opts.applying(config);
        return guaranteedUpdate(type, namespace, name, subresource, 0, applying, old -> {
            Apply.Result r = Apply.apply(old, config, fields, FieldManagement.applier(type, subresource, opts, old,
                    config));
            ObjectNode written = mergeForSubresource(type, subresource, old, r.object());
            FieldManagement.setManagedFields(written, r.managedFields());
            return written;
        });
    }

    public static JsonNode parsePatch(PatchType patchType, byte[] body) {
        if (patchType == PatchType.JSON) {
            try {
                JsonNode n = Json.MAPPER.readTree(body);
                if (n == null || !n.isArray()) {
                    throw ApiException.badRequest("a JSON patch must be a list of operations");
                }
                return n;
            } catch (tools.jackson.core.JacksonException e) {
                throw ApiException.badRequest("the JSON patch could not be decoded: " + e.getOriginalMessage());
            }
        }
        return Json.parseObject(body, patchType == PatchType.APPLY);
    }

    public static ObjectNode applyPatch(PatchType patchType, ObjectNode old, JsonNode patch) {
        JsonNode result = switch (patchType) {
            case MERGE -> Patches.mergePatch(old, patch);
            case JSON -> Patches.jsonPatch(old, patch);
            case STRATEGIC, APPLY -> Patches.strategicMerge(old, (ObjectNode) patch);
        };
        if (!(result instanceof ObjectNode o)) {
            throw ApiException.unprocessable("the patch turned the object into something that is not an object");
        }
        return o;
    }

    // ---- errors

    public static ApiException translate(StorageException e, ResourceType type, String name) {
        return switch (e.code()) {
            case KEY_NOT_FOUND -> ApiException.notFound(type, name);
            case KEY_EXISTS -> ApiException.alreadyExists(type, name);
            case CONFLICT -> ApiException.conflict(type, name, e.getMessage());
            case EXPIRED -> ApiException.gone(e.getMessage());
            case TOO_LARGE_REVISION -> ApiException.tooLargeResourceVersion(e.getMessage(), 1);
            case UNAVAILABLE -> ApiException.unavailable(e.getMessage(), 1);
            case INTERNAL, UNREADABLE -> ApiException.internal(e.getMessage());
        };
    }
}

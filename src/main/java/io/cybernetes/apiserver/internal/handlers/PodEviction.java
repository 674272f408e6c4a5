package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.StoredObject;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code pods/eviction}: a delete that respects the pod's PodDisruptionBudget, as
 * kube-apiserver's eviction REST does. A pod that has finished or is being deleted, or that
 * no budget covers, is deleted at once; one under a budget is deleted only if the budget
 * allows a disruption, which the eviction takes (disruptionsAllowed down by one, the pod
 * under disruptedPods) before the delete, so that evictions racing each other cannot
 * together take more than it allows. A budget at its limit answers 429 in Kubernetes'
 * words; a budget not yet looked at by the disruption controller, too. An unready pod may
 * go while the budget has its healthy pods (IfHealthyBudget), or always (AlwaysAllow).
 */
public final class PodEviction implements SubresourceHandler {

    static final String VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget.";
    private static final int ATTEMPTS = 5;

    private final ResourceType budgetType;

    public PodEviction(ResourceRegistry registry) {
        this.budgetType = registry.byPath(ResourceRegistry.POLICY, "v1", "poddisruptionbudgets").orElseThrow();
    }

    @Override
    public Answer serve(Call call) throws IOException {
        if (!call.request().method().equals("POST")) {
            throw ApiException.methodNotAllowed();
        }
        ObjectNode eviction = call.reader().readObject(call.request(), "Eviction");
        String named = Json.text(eviction, "metadata.name");
        if (named != null && !named.isEmpty() && !named.equals(call.name())) {
            throw ApiException.badRequest("name in URL does not match name in Eviction object");
        }
        ResourceService service = call.service();
        ResourceType pods = call.type();
        DeleteOptions base = new DeleteOptions(null, null, null, null,
                call.reader().writeOptions(call.request()).dryRun(), call.request().user());
        DeleteOptions opts = options(eviction.path("deleteOptions"), base);
        for (int attempt = 0; ; attempt++) {
            ObjectNode pod = service.get(pods, call.namespace(), call.name()).value();
            if (opts.preconditionUid() != null && !opts.preconditionUid().equals(Json.text(pod, "metadata.uid"))) {
                throw ApiException.conflict(pods, call.name(), "Precondition failed: UID in precondition: "
                        + opts.preconditionUid() + ", UID in object meta: " + Json.text(pod, "metadata.uid"));
            }
            if (!budgetMatters(pod)) {
                return deleted(service, pods, call, opts);
            }
            List<StoredObject> budgets = budgets(service, call.namespace(), pod);
            if (budgets.isEmpty()) {
                return deleted(service, pods, call, opts);
            }
            if (budgets.size() > 1) {
                throw ApiException.internal("This pod has more than one PodDisruptionBudget, which the eviction"
                        + " subresource does not support.");
            }
            StoredObject budget = budgets.get(0);
            try {
                takeDisruption(service, budget, pod, opts);
                return deleted(service, pods, call, opts);
            } catch (StorageException e) {
                if (!e.isConflict() || attempt >= ATTEMPTS) {
                    throw ResourceService.translate(e, budgetType, Json.text(budget.value(), "metadata.name"));
                }
            }
        }
    }

    /** Whether the pod's budget is asked at all: not for a pod that has finished, or is already being deleted. */
    private static boolean budgetMatters(ObjectNode pod) {
        String phase = Json.text(pod, "status.phase");
        return !"Succeeded".equals(phase) && !"Failed".equals(phase)
                && Json.text(pod, "metadata.deletionTimestamp") == null;
    }

    /** The budgets of the pod's namespace whose selector matches it. */
    private List<StoredObject> budgets(ResourceService service, String namespace, ObjectNode pod) {
        ResourceType type = budgetType;
        Map<String, String> labels = Json.MAPPER.convertValue(pod.path("metadata").path("labels"),
                Json.MAPPER.getTypeFactory().constructMapType(Map.class, String.class, String.class));
        List<StoredObject> out = new ArrayList<>();
        for (StoredObject o : service.store().list(new ListRequest(type.keyPrefix(namespace), ListRequest.Match.LATEST,
                0, null, null, 0)).items()) {
            JsonNode selector = o.value().path("spec").path("selector");
            if (selector.isMissingNode() || selector.isNull()) {
                continue; // policy/v1: no selector selects nothing
            }
            if (LabelSelector.fromObject(selector).matches(labels == null ? Map.of() : labels)) {
                out.add(o);
            }
        }
        return out;
    }

    /**
     * Takes one disruption of the budget for the pod, or answers why it cannot; an unready
     * pod the policy lets go takes none. The budget's status is written at the revision read
     * (a conflict: someone else took one meanwhile, and the eviction starts again).
     */
    private void takeDisruption(ResourceService service, StoredObject budget, ObjectNode pod,
                                          DeleteOptions opts) {
        ObjectNode pdb = budget.value();
        String name = Json.text(pdb, "metadata.name");
        JsonNode status = pdb.path("status");
        long generation = pdb.path("metadata").path("generation").asLong(0);
        if (status.path("observedGeneration").asLong(0) < generation) {
            throw ApiException.tooManyRequests(VIOLATES, ApiException.cause(null, "DisruptionBudget",
                    "The disruption budget " + name + " is still being processed by the server."));
        }
        boolean ready = ready(pod);
        String policy = pdb.path("spec").path("unhealthyPodEvictionPolicy").asString("IfHealthyBudget");
        if (!ready && ("AlwaysAllow".equals(policy)
                || status.path("currentHealthy").asInt(0) >= status.path("desiredHealthy").asInt(0))) {
            return;
        }
        int allowed = status.path("disruptionsAllowed").asInt(0);
        if (allowed < 0) {
            throw ApiException.forbidden("pdb disruptions allowed is negative");
        }
        if (allowed == 0) {
            throw ApiException.tooManyRequests(VIOLATES, ApiException.cause(null, "DisruptionBudget",
                    "The disruption budget " + name + " needs " + status.path("desiredHealthy").asInt(0)
                            + " healthy pods and has " + status.path("currentHealthy").asInt(0) + " currently"));
        }
        if (opts.dryRun()) {
            return;
        }
        ObjectNode updated = pdb.deepCopy();
        ObjectNode st = Json.child(updated, "status");
        st.put("disruptionsAllowed", allowed - 1);
        Json.child(st, "disruptedPods").put(Json.text(pod, "metadata.name"), ResourceService.now());
        service.store().update(budget.key(), service.forStorage(budgetType, updated), budget.modRevision(), null);
    }

    private static boolean ready(ObjectNode pod) {
        for (JsonNode c : pod.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asString(""))) {
                return "True".equals(c.path("status").asString(""));
            }
        }
        return false;
    }

    /**
     * Marks the pod {@code DisruptionTarget} (reason EvictionByEvictionAPI), as Kubernetes
     * does before an eviction's delete so that the pod's controller (a Job's failure policy)
     * knows why it goes, then deletes it — at the revision the mark wrote, when the caller
     * asked for one.
     */
    private static Answer deleted(ResourceService service, ResourceType pods, Call call, DeleteOptions opts)
            throws IOException {
        DeleteOptions delete = opts;
        if (!opts.dryRun()) {
            Outcome marked = service.guaranteedUpdate(pods, call.namespace(), call.name(), "status", 0,
                    call.reader().writeOptions(call.request()), old -> {
                        String uid = Json.text(old, "metadata.uid");
                        String rv = Json.text(old, "metadata.resourceVersion");
                        if ((opts.preconditionUid() != null && !opts.preconditionUid().equals(uid))
                                || (opts.preconditionResourceVersion() != null
                                && !opts.preconditionResourceVersion().equals(rv))) {
                            throw ApiException.conflict(pods, call.name(), "the object has been modified; please"
                                    + " apply your changes to the latest version and try again");
                        }
                        ObjectNode updated = old.deepCopy();
                        markDisruptionTarget(Json.child(updated, "status"));
                        return updated;
                    });
            if (opts.preconditionResourceVersion() != null) {
                delete = new DeleteOptions(opts.propagationPolicy(), opts.gracePeriodSeconds(), opts.preconditionUid(),
                        Json.text(marked.object(), "metadata.resourceVersion"), false, opts.user());
            }
        }
        new ResourceDeleter(service).delete(pods, call.namespace(), call.name(), delete);
        return Answer.success(201);
    }

    /** Sets the DisruptionTarget condition, its transition time kept when it was already True. */
    static void markDisruptionTarget(ObjectNode status) {
        var conditions = status.get("conditions") instanceof tools.jackson.databind.node.ArrayNode a ? a
                : status.putArray("conditions");
        ObjectNode condition = null;
        for (JsonNode c : conditions) {
            if ("DisruptionTarget".equals(c.path("type").asString(""))) {
                condition = (ObjectNode) c;
            }
        }
        if (condition == null) {
            condition = conditions.addObject().put("type", "DisruptionTarget");
        }
        if (!"True".equals(condition.path("status").asString("")) || !condition.has("lastTransitionTime")) {
            condition.put("lastTransitionTime", ResourceService.now());
        }
        condition.put("status", "True").put("reason", "EvictionByEvictionAPI").put("message", "Eviction API: evicting");
    }

    /** The Eviction's deleteOptions over the request's own (the grace period and preconditions it carries). */
    private static DeleteOptions options(JsonNode d, DeleteOptions base) {
        if (!d.isObject()) {
            return base;
        }
        Long grace = d.hasNonNull("gracePeriodSeconds") ? Long.valueOf(d.path("gracePeriodSeconds").asLong())
                : base.gracePeriodSeconds();
        String policy = d.hasNonNull("propagationPolicy") ? d.path("propagationPolicy").asString()
                : base.propagationPolicy();
        String uid = Json.text(d, "preconditions.uid");
        String rv = Json.text(d, "preconditions.resourceVersion");
        boolean dryRun = base.dryRun() || d.path("dryRun").size() > 0;
        return new DeleteOptions(policy, grace, uid != null ? uid : base.preconditionUid(),
                rv != null ? rv : base.preconditionResourceVersion(), dryRun, base.user());
    }
}

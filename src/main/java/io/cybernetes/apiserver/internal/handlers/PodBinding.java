package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.MetaValidation;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.List;

/**
 * {@code pods/binding}: a scheduler's Binding sets the pod's node once (409 when it has
 * one, or is being deleted) and marks it PodScheduled; answered with a Success Status.
 */
public final class PodBinding {

    private PodBinding() {
    }

    public static SubresourceHandler.Answer serve(SubresourceHandler.Call call) throws IOException {
        if (!call.request().method().equals("POST")) {
            throw ApiException.methodNotAllowed();
        }
        String name = call.name();
        ObjectNode binding = call.reader().readObject(call.request(), "Binding");
        String node = Json.text(binding, "target.name");
        if (node == null || node.isEmpty()) {
            throw ApiException.invalid(call.type(), name, List.of(MetaValidation.required("target.name")));
        }
        call.service().guaranteedUpdate(call.type(), call.namespace(), name, "binding", 0,
                call.reader().writeOptions(call.request()), pod -> {
                    String bound = Json.text(pod, "spec.nodeName");
                    if (bound != null && !bound.isEmpty()) {
                        throw ApiException.conflict(call.type(), name, "pod " + name + " is already assigned to node \""
                                + bound + "\"");
                    }
                    if (Json.text(pod, "metadata.deletionTimestamp") != null) {
                        throw ApiException.conflict(call.type(), name, "pod " + name
                                + " is being deleted, cannot be assigned to a host");
                    }
                    Json.child(pod, "spec").put("nodeName", node);
                    ObjectNode status = Json.child(pod, "status");
                    ArrayNode conditions = status.has("conditions") ? (ArrayNode) status.get("conditions")
                            : status.putArray("conditions");
                    for (int i = conditions.size() - 1; i >= 0; i--) {
                        if ("PodScheduled".equals(conditions.get(i).path("type").asString(""))) {
                            conditions.remove(i);
                        }
                    }
                    ObjectNode c = conditions.addObject();
                    c.put("type", "PodScheduled");
                    c.put("status", "True");
                    c.put("lastTransitionTime", ResourceService.now());
                    return pod;
                });
        return SubresourceHandler.Answer.success(201);
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/**
 * ReplicationControllers (core/v1) as Kubernetes defaults and validates them: one replica,
 * the selector and the object's labels taken from the template's labels when not given,
 * the selector a map that the template's labels must match, and pods that restart always.
 */
public final class ReplicationControllerStrategy extends DefaultingStrategy {

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        if (!spec.hasNonNull("replicas")) {
            spec.put("replicas", 1);
        }
        if (spec.get("template") instanceof ObjectNode template) {
            JsonNode labels = template.path("metadata").path("labels");
            if (labels.isObject() && !labels.isEmpty()) {
                if (!(spec.get("selector") instanceof ObjectNode s) || s.isEmpty()) {
                    spec.set("selector", labels.deepCopy());
                }
                ObjectNode meta = Json.child(obj, "metadata");
                if (!(meta.get("labels") instanceof ObjectNode l) || l.isEmpty()) {
                    meta.set("labels", labels.deepCopy());
                }
            }
            PodSpecs.setDefaults(Json.child(template, "spec"));
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode spec = obj.path("spec");
        JsonNode selector = spec.path("selector");
        if (!selector.isObject() || selector.isEmpty()) {
            causes.add(MetaValidation.required("spec.selector"));
        }
        JsonNode template = spec.get("template");
        if (template == null || !template.isObject()) {
            causes.add(MetaValidation.required("spec.template"));
            return;
        }
        JsonNode labels = template.path("metadata").path("labels");
        for (Map.Entry<String, JsonNode> e : selector.properties()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                causes.add(ApiException.cause("spec.template.metadata.labels", "FieldValueInvalid",
                        "Invalid value: " + labels + ": `selector` does not match template `labels`"));
                break;
            }
        }
        String restart = template.path("spec").path("restartPolicy").asString("Always");
        if (!restart.equals("Always")) {
            causes.add(MetaValidation.notSupported("spec.template.spec.restartPolicy", restart, "\"Always\""));
        }
        PodSpecs.validate(template.get("spec"), "spec.template.spec", causes);
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * DaemonSets (apps/v1) as Kubernetes' strategy has them: a rolling update of one pod at a
 * time by default (maxUnavailable 1, maxSurge 0), ten revisions kept, the template's
 * generation counted in the {@value #TEMPLATE_GENERATION} annotation (1 on create, one more
 * whenever the template changes), and validation in Kubernetes' words: a selector matching
 * the template, pods that restart always with no deadline, a rolling update that can make
 * progress, the selector immutable.
 */
public final class DaemonSetStrategy extends DefaultingStrategy {

    public static final String TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        ObjectNode strategy = Json.child(spec, "updateStrategy");
        PodSpecs.putIfAbsent(strategy, "type", "RollingUpdate");
        if ("RollingUpdate".equals(strategy.path("type").asString())) {
            ObjectNode ru = Json.child(strategy, "rollingUpdate");
            if (!ru.hasNonNull("maxUnavailable")) {
                ru.put("maxUnavailable", 1);
            }
            if (!ru.hasNonNull("maxSurge")) {
                ru.put("maxSurge", 0);
            }
        }
        if (!spec.hasNonNull("revisionHistoryLimit")) {
            spec.put("revisionHistoryLimit", 10);
        }
        if (spec.get("template") instanceof ObjectNode t) {
            PodSpecs.setDefaults(Json.child(t, "spec"));
        }
    }

    @Override
    public void prepareForCreate(ObjectNode obj) {
        super.prepareForCreate(obj);
        Json.child(Json.child(obj, "metadata"), "annotations").put(TEMPLATE_GENERATION, "1");
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        super.prepareForUpdate(obj, old);
        long was = old.path("metadata").path("annotations").path(TEMPLATE_GENERATION).asLong(1);
        boolean changed = !obj.path("spec").path("template").equals(old.path("spec").path("template"));
        Json.child(Json.child(obj, "metadata"), "annotations").put(TEMPLATE_GENERATION,
                Long.toString(changed ? was + 1 : was));
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode spec = obj.get("spec");
        if (spec == null || !spec.isObject()) {
            causes.add(MetaValidation.required("spec"));
            return;
        }
        WorkloadStrategy.validateSelector(spec, causes);
        WorkloadStrategy.validateLongRunningTemplate(spec, "activeDeadlineSeconds in DaemonSet is not Supported", causes);
        WorkloadStrategy.validateNotNegative(spec, "minReadySeconds", causes);
        WorkloadStrategy.validateNotNegative(spec, "revisionHistoryLimit", causes);
        String type = spec.path("updateStrategy").path("type").asString("");
        if (!type.equals("RollingUpdate") && !type.equals("OnDelete")) {
            causes.add(MetaValidation.notSupported("spec.updateStrategy.type", type, "\"OnDelete\", \"RollingUpdate\""));
        } else if (type.equals("RollingUpdate")) {
            IntOrPercentField.validateRollingUpdate(spec.path("updateStrategy").get("rollingUpdate"),
                    "spec.updateStrategy.rollingUpdate", causes);
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        WorkloadStrategy.validateSelectorUnchanged(obj, old, causes);
    }
}

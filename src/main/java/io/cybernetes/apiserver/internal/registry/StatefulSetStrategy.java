package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Set;

/**
 * StatefulSets (apps/v1) as Kubernetes' strategy has them: one replica, OrderedReady pod
 * management, a rolling update from partition 0, ten revisions kept, claims retained on
 * deletion and scale-down, claim templates defaulted as claims are; validation in
 * Kubernetes' words, and of the spec only replicas, ordinals, template, updateStrategy,
 * revisionHistoryLimit, persistentVolumeClaimRetentionPolicy and minReadySeconds may change.
 */
public final class StatefulSetStrategy extends DefaultingStrategy {

    /** What an update may change in a StatefulSet's spec; the rest is fixed at creation. */
    private static final Set<String> MUTABLE = Set.of("replicas", "ordinals", "template", "updateStrategy",
            "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy", "minReadySeconds");

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        if (!spec.hasNonNull("replicas")) {
            spec.put("replicas", 1);
        }
        PodSpecs.putIfAbsent(spec, "podManagementPolicy", "OrderedReady");
        ObjectNode strategy = Json.child(spec, "updateStrategy");
        PodSpecs.putIfAbsent(strategy, "type", "RollingUpdate");
        if ("RollingUpdate".equals(strategy.path("type").asString())) {
            ObjectNode ru = Json.child(strategy, "rollingUpdate");
            if (!ru.hasNonNull("partition")) {
                ru.put("partition", 0);
            }
        }
        if (!spec.hasNonNull("revisionHistoryLimit")) {
            spec.put("revisionHistoryLimit", 10);
        }
        ObjectNode retention = Json.child(spec, "persistentVolumeClaimRetentionPolicy");
        PodSpecs.putIfAbsent(retention, "whenDeleted", "Retain");
        PodSpecs.putIfAbsent(retention, "whenScaled", "Retain");
        for (JsonNode claim : spec.path("volumeClaimTemplates")) {
            if (claim instanceof ObjectNode c) {
                PodSpecs.putIfAbsent(c, "apiVersion", "v1");
                PodSpecs.putIfAbsent(c, "kind", "PersistentVolumeClaim");
                PodSpecs.putIfAbsent(Json.child(c, "spec"), "volumeMode", "Filesystem");
                PodSpecs.putIfAbsent(Json.child(c, "status"), "phase", "Pending");
            }
        }
        if (spec.get("template") instanceof ObjectNode t) {
            PodSpecs.setDefaults(Json.child(t, "spec"));
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode spec = obj.get("spec");
        if (spec == null || !spec.isObject()) {
            causes.add(MetaValidation.required("spec"));
            return;
        }
        String policy = spec.path("podManagementPolicy").asString("");
        if (!policy.equals("OrderedReady") && !policy.equals("Parallel")) {
            causes.add(MetaValidation.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
        }
        JsonNode strategy = spec.path("updateStrategy");
        String type = strategy.path("type").asString("");
        if (type.equals("OnDelete") && strategy.hasNonNull("rollingUpdate")) {
            causes.add(ApiException.cause("spec.updateStrategy.rollingUpdate", "FieldValueInvalid", "Invalid value: "
                    + strategy.get("rollingUpdate") + ": only allowed for updateStrategy 'RollingUpdate'"));
        } else if (type.equals("RollingUpdate")) {
            JsonNode ru = strategy.path("rollingUpdate");
            if (ru.path("partition").asLong(0) < 0) {
                causes.add(ApiException.cause("spec.updateStrategy.rollingUpdate.partition", "FieldValueInvalid",
                        "Invalid value: " + ru.path("partition").asLong() + ": must be greater than or equal to 0"));
            }
            if (ru.hasNonNull("maxUnavailable")) {
                int max = IntOrPercentField.validate(ru.get("maxUnavailable"),
                        "spec.updateStrategy.rollingUpdate.maxUnavailable", true, causes);
                if (max == 0) {
                    causes.add(ApiException.cause("spec.updateStrategy.rollingUpdate.maxUnavailable",
                            "FieldValueInvalid", "Invalid value: " + ru.get("maxUnavailable")
                                    + ": must be greater than 0"));
                }
            }
        } else {
            causes.add(MetaValidation.invalid("spec.updateStrategy", type, "must be 'RollingUpdate' or 'OnDelete'"));
        }
        WorkloadStrategy.validateNotNegative(spec, "replicas", causes);
        WorkloadStrategy.validateNotNegative(spec, "minReadySeconds", causes);
        WorkloadStrategy.validateNotNegative(spec, "revisionHistoryLimit", causes);
        if (spec.path("ordinals").path("start").asLong(0) < 0) {
            causes.add(ApiException.cause("spec.ordinals.start", "FieldValueInvalid", "Invalid value: "
                    + spec.path("ordinals").path("start").asLong() + ": must be greater than or equal to 0"));
        }
        JsonNode retention = spec.path("persistentVolumeClaimRetentionPolicy");
        for (String when : List.of("whenDeleted", "whenScaled")) {
            String v = retention.path(when).asString("Retain");
            if (!v.equals("Retain") && !v.equals("Delete")) {
                causes.add(MetaValidation.notSupported("spec.persistentVolumeClaimRetentionPolicy." + when, v,
                        "\"Retain\", \"Delete\""));
            }
        }
        JsonNode selector = spec.get("selector");
        if (selector != null && selector.isObject() && selector.path("matchLabels").isEmpty()
                && selector.path("matchExpressions").isEmpty()) {
            causes.add(ApiException.cause("spec.selector", "FieldValueInvalid", "Invalid value: " + selector
                    + ": empty selector is not valid for statefulset."));
        } else {
            WorkloadStrategy.validateSelector(spec, causes);
        }
        WorkloadStrategy.validateLongRunningTemplate(spec, "must not be specified", causes);
        JsonNode templates = spec.path("volumeClaimTemplates");
        for (int i = 0; i < templates.size(); i++) {
            String path = "spec.volumeClaimTemplates[" + i + "]";
            if (templates.path(i).path("metadata").path("name").asString("").isEmpty()) {
                causes.add(MetaValidation.required(path + ".metadata.name", "name or generateName is required"));
            }
            PersistentVolumeClaimStrategy.validateSpec(templates.path(i).path("spec"), path + ".spec", causes);
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        ObjectNode fixed = obj.path("spec").isObject() ? ((ObjectNode) obj.path("spec")).deepCopy() : Json.object();
        ObjectNode fixedOld = old.path("spec").isObject() ? ((ObjectNode) old.path("spec")).deepCopy() : Json.object();
        fixed.remove(MUTABLE);
        fixedOld.remove(MUTABLE);
        if (!fixed.equals(fixedOld)) {
            causes.add(ApiException.cause("spec", "FieldValueForbidden", "Forbidden: updates to statefulset spec for"
                    + " fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit',"
                    + " 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
        }
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/**
 * Jobs (batch/v1) as Kubernetes' job strategy has them: defaults (parallelism and
 * completions 1, backoffLimit 6, NonIndexed, not suspended, the pod replacement policy),
 * the selector generated from the Job's uid with the controller-uid and job-name labels on
 * the template unless {@code manualSelector} says otherwise, validation in Kubernetes'
 * words (restartPolicy OnFailure or Never, the indexed-only fields, the pod failure policy),
 * and the template, selector, completion mode and completions immutable.
 */
public final class JobStrategy extends DefaultingStrategy {

    public static final String CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
    public static final String JOB_NAME = "batch.kubernetes.io/job-name";
    static final String LEGACY_CONTROLLER_UID = "controller-uid";
    static final String LEGACY_JOB_NAME = "job-name";

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        if (!spec.hasNonNull("completions") && !spec.hasNonNull("parallelism")) {
            spec.put("completions", 1);
        }
        if (!spec.hasNonNull("parallelism")) {
            spec.put("parallelism", 1);
        }
        if (!spec.hasNonNull("backoffLimit")) {
            spec.put("backoffLimit", spec.hasNonNull("backoffLimitPerIndex") ? Integer.MAX_VALUE : 6);
        }
        PodSpecs.putIfAbsent(spec, "completionMode", "NonIndexed");
        if (!spec.hasNonNull("suspend")) {
            spec.put("suspend", false);
        }
        PodSpecs.putIfAbsent(spec, "podReplacementPolicy", spec.hasNonNull("podFailurePolicy") ? "Failed"
                : "TerminatingOrFailed");
        if (spec.get("podFailurePolicy") instanceof ObjectNode pfp) {
            for (JsonNode rule : pfp.path("rules")) {
                for (JsonNode c : rule.path("onPodConditions")) {
                    if (c instanceof ObjectNode cond) {
                        PodSpecs.putIfAbsent(cond, "status", "True");
                    }
                }
            }
        }
        if (spec.get("template") instanceof ObjectNode t) {
            PodSpecs.setDefaults(Json.child(t, "spec"));
        }
    }

    /**
     * The generated selector and labels, added here as Kubernetes adds them in its
     * validation (the uid and name are known by then), then the checks.
     */
    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        ObjectNode spec = Json.child(obj, "spec");
        if (!spec.path("manualSelector").asBoolean(false) && !spec.has("selector")) {
            generateSelector(obj, spec);
        }
        validateSpec(spec, causes);
    }

    private static void generateSelector(ObjectNode obj, ObjectNode spec) {
        String uid = Json.text(obj, "metadata.uid");
        String name = Json.text(obj, "metadata.name");
        if (uid == null || !(spec.get("template") instanceof ObjectNode template)) {
            return;
        }
        ObjectNode labels = Json.child(Json.child(template, "metadata"), "labels");
        labels.put(CONTROLLER_UID, uid).put(JOB_NAME, name).put(LEGACY_CONTROLLER_UID, uid).put(LEGACY_JOB_NAME, name);
        Json.child(spec, "selector").putObject("matchLabels").put(CONTROLLER_UID, uid);
    }

    private static void validateSpec(ObjectNode spec, List<StatusCause> causes) {
        for (String f : List.of("parallelism", "completions", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes")) {
            if (spec.hasNonNull(f) && spec.path(f).asLong() < 0) {
                causes.add(ApiException.cause("spec." + f, "FieldValueInvalid", "Invalid value: "
                        + spec.path(f).asLong() + ": must be greater than or equal to 0"));
            }
        }
        if (spec.hasNonNull("activeDeadlineSeconds") && spec.path("activeDeadlineSeconds").asLong() <= 0) {
            causes.add(ApiException.cause("spec.activeDeadlineSeconds", "FieldValueInvalid", "Invalid value: "
                    + spec.path("activeDeadlineSeconds").asLong() + ": must be greater than 0"));
        }
        String mode = spec.path("completionMode").asString("NonIndexed");
        if (!mode.equals("NonIndexed") && !mode.equals("Indexed")) {
            causes.add(MetaValidation.notSupported("spec.completionMode", mode, "\"NonIndexed\", \"Indexed\""));
        }
        boolean indexed = mode.equals("Indexed");
        if (indexed && !spec.hasNonNull("completions")) {
            causes.add(MetaValidation.required("spec.completions", "when completion mode is Indexed"));
        }
        if (spec.hasNonNull("backoffLimitPerIndex") && !indexed) {
            causes.add(ApiException.cause("spec.backoffLimitPerIndex", "FieldValueForbidden",
                    "Forbidden: requires indexed completion mode"));
        }
        if (spec.hasNonNull("maxFailedIndexes") && !spec.hasNonNull("backoffLimitPerIndex")) {
            causes.add(MetaValidation.required("spec.backoffLimitPerIndex",
                    "when maxFailedIndexes is specified"));
        }
        validateSelector(spec, causes);
        JsonNode template = spec.get("template");
        if (template == null || !template.isObject()) {
            causes.add(MetaValidation.required("spec.template"));
            return;
        }
        String restart = template.path("spec").path("restartPolicy").asString("Always");
        if (!restart.equals("OnFailure") && !restart.equals("Never")) {
            causes.add(MetaValidation.notSupported("spec.template.spec.restartPolicy", restart,
                    "\"OnFailure\", \"Never\""));
        } else if (spec.hasNonNull("podFailurePolicy") && !restart.equals("Never")) {
            causes.add(ApiException.cause("spec.template.spec.restartPolicy", "FieldValueInvalid", "Invalid value: \""
                    + restart + "\": only \"Never\" is supported when podFailurePolicy is specified"));
        }
        validatePodFailurePolicy(spec.path("podFailurePolicy"), indexed && spec.hasNonNull("backoffLimitPerIndex"),
                causes);
        PodSpecs.validate(template.get("spec"), "spec.template.spec", causes);
    }

    private static void validateSelector(ObjectNode spec, List<StatusCause> causes) {
        JsonNode selector = spec.get("selector");
        if (selector == null || !selector.isObject()) {
            causes.add(MetaValidation.required("spec.selector"));
            return;
        }
        JsonNode labels = spec.path("template").path("metadata").path("labels");
        for (Map.Entry<String, JsonNode> e : selector.path("matchLabels").properties()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                causes.add(ApiException.cause("spec.template.metadata.labels", "FieldValueInvalid",
                        "Invalid value: " + labels + ": `selector` does not match template `labels`"));
                return;
            }
        }
    }

    private static void validatePodFailurePolicy(JsonNode policy, boolean perIndex, List<StatusCause> causes) {
        if (policy.isMissingNode() || policy.isNull()) {
            return;
        }
        JsonNode rules = policy.path("rules");
        for (int i = 0; i < rules.size(); i++) {
            JsonNode rule = rules.get(i);
            String path = "spec.podFailurePolicy.rules[" + i + "]";
            String action = rule.path("action").asString("");
            List<String> actions = perIndex ? List.of("Count", "FailIndex", "FailJob", "Ignore")
                    : List.of("Count", "FailJob", "Ignore");
            if (!actions.contains(action)) {
                causes.add(MetaValidation.notSupported(path + ".action", action, String.join(", ",
                        actions.stream().map(a -> "\"" + a + "\"").toList())));
            }
            boolean codes = rule.has("onExitCodes") && !rule.path("onExitCodes").isNull();
            boolean conditions = rule.path("onPodConditions").size() > 0;
            if (codes == conditions) {
                causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: specifying one of"
                        + " OnExitCodes and OnPodConditions is required"));
                continue;
            }
            if (codes) {
                JsonNode on = rule.path("onExitCodes");
                String op = on.path("operator").asString("");
                if (!op.equals("In") && !op.equals("NotIn")) {
                    causes.add(MetaValidation.notSupported(path + ".onExitCodes.operator", op, "\"In\", \"NotIn\""));
                }
                JsonNode values = on.path("values");
                if (values.isEmpty()) {
                    causes.add(ApiException.cause(path + ".onExitCodes.values", "FieldValueInvalid",
                            "Invalid value: []int32(nil): at least one value is required"));
                }
                for (int j = 0; j < values.size(); j++) {
                    if (op.equals("In") && values.get(j).asInt() == 0) {
                        causes.add(ApiException.cause(path + ".onExitCodes.values[" + j + "]", "FieldValueInvalid",
                                "Invalid value: 0: must not be 0 for the In operator"));
                    }
                }
            }
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        if ("status".equals(subresource)) {
            return;
        }
        validate(obj, causes);
        JsonNode spec = obj.path("spec");
        JsonNode was = old.path("spec");
        for (String f : List.of("selector", "completionMode", "template", "podFailurePolicy", "manualSelector")) {
            if (!spec.path(f).equals(was.path(f))) {
                causes.add(MetaValidation.immutable("spec." + f));
            }
        }
        // an indexed Job scales by changing completions and parallelism together (elastic indexed Jobs)
        boolean elastic = "Indexed".equals(spec.path("completionMode").asString())
                && spec.path("completions").equals(spec.path("parallelism"));
        if (!spec.path("completions").equals(was.path("completions")) && !elastic) {
            causes.add(MetaValidation.immutable("spec.completions"));
        }
    }
}

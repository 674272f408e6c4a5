package io.cybernetes.apiserver.internal.registry;

import dev.cel.common.types.CelType;
import dev.cel.common.types.SimpleType;
import io.cybernetes.admission.validatingpolicy.ValidatingAdmissionPolicyPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * ValidatingAdmissionPolicies and their bindings, checked as Kubernetes checks them when they are
 * written: every CEL expression compiles (to bool for validations and conditions, to string for
 * messages and annotations), names are unique, the enumerations hold, a binding's paramRef names a
 * parameter or selects some, and its validationActions do not both deny and warn.
 */
public final class ValidatingAdmissionPolicyStrategy implements KindStrategy {

    private static final Pattern CEL_IDENTIFIER = Pattern.compile("[_a-zA-Z][_a-zA-Z0-9]*");
    private final boolean binding;

    public ValidatingAdmissionPolicyStrategy(boolean binding) {
        this.binding = binding;
    }

    @Override
    public boolean tracksGeneration() {
        return true;
    }

    @Override
    public void prepareForCreate(ObjectNode obj) {
        obj.remove("status");
        ObjectNode spec = obj.withObject("spec");
        if (!binding && !spec.has("failurePolicy")) {
            spec.put("failurePolicy", "Fail");
        }
        if (!binding && spec.path("matchConstraints").isObject()) {
            ObjectNode match = (ObjectNode) spec.get("matchConstraints");
            if (!match.has("matchPolicy")) {
                match.put("matchPolicy", "Equivalent");
            }
            for (String selector : List.of("namespaceSelector", "objectSelector")) {
                if (!match.has(selector)) {
                    match.putObject(selector);
                }
            }
        }
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        if (!binding && !obj.path("spec").has("failurePolicy")) {
            obj.withObject("spec").put("failurePolicy", old.path("spec").path("failurePolicy").asString("Fail"));
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        if (binding) {
            validateBinding(obj.path("spec"), causes);
        } else {
            validatePolicy(obj.path("spec"), causes);
        }
    }

    private static void validatePolicy(JsonNode spec, List<StatusCause> causes) {
        String failurePolicy = spec.path("failurePolicy").asString("Fail");
        if (!List.of("Fail", "Ignore").contains(failurePolicy)) {
            causes.add(MetaValidation.notSupported("spec.failurePolicy", failurePolicy, "\"Fail\", \"Ignore\""));
        }
        JsonNode match = spec.path("matchConstraints");
        if (!match.isObject()) {
            causes.add(MetaValidation.required("spec.matchConstraints"));
        } else if (match.path("resourceRules").isEmpty()) {
            causes.add(MetaValidation.required("spec.matchConstraints.resourceRules"));
        }
        JsonNode paramKind = spec.get("paramKind");
        if (paramKind != null && !paramKind.isNull()) {
            String apiVersion = paramKind.path("apiVersion").asString("");
            if (apiVersion.isEmpty()) {
                causes.add(MetaValidation.required("spec.paramKind.apiVersion"));
            } else if (apiVersion.split("/", -1).length > 2 || apiVersion.startsWith("/") || apiVersion.endsWith("/")) {
                causes.add(MetaValidation.invalid("spec.paramKind.apiVersion", apiVersion, "must be of the form"
                        + " <group>/<version> or <version>"));
            }
            if (paramKind.path("kind").asString("").isEmpty()) {
                causes.add(MetaValidation.required("spec.paramKind.kind"));
            }
        }
        JsonNode validations = spec.path("validations");
        if (validations.isEmpty() && spec.path("auditAnnotations").isEmpty()) {
            causes.add(MetaValidation.required("spec.validations", "validations or auditAnnotations must contain at"
                    + " least one item"));
        }
        for (int i = 0; i < validations.size(); i++) {
            JsonNode v = validations.get(i);
            String at = "spec.validations[" + i + "]";
            expression(v, "expression", at, List.of(SimpleType.BOOL), true, causes);
            expression(v, "messageExpression", at, List.of(SimpleType.STRING), false, causes);
            String message = v.path("message").asString("");
            if (message.contains("\n")) {
                causes.add(MetaValidation.invalid(at + ".message", message, "message must not contain line breaks"));
            }
            String reason = v.path("reason").asString("");
            if (!reason.isEmpty() && !List.of("Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge")
                    .contains(reason)) {
                causes.add(MetaValidation.notSupported(at + ".reason", reason,
                        "\"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\", \"Unauthorized\""));
            }
        }
        named(spec, "variables", "name", "expression", List.of(), true, causes);
        named(spec, "matchConditions", "name", "expression", List.of(SimpleType.BOOL), false, causes);
        named(spec, "auditAnnotations", "key", "valueExpression", List.of(SimpleType.STRING, SimpleType.NULL_TYPE), false,
                causes);
    }

    /**
     * A list of named expressions (variables, matchConditions, auditAnnotations): each name present and unique
     * (for variables, a CEL identifier), each expression compiling to what is wanted.
     */
    private static void named(JsonNode spec, String list, String nameField, String expressionField,
                              List<CelType> wanted, boolean celIdentifier, List<StatusCause> causes) {
        Set<String> names = new HashSet<>();
        JsonNode items = spec.path(list);
        for (int i = 0; i < items.size(); i++) {
            String at = "spec." + list + "[" + i + "]";
            String name = items.get(i).path(nameField).asString("");
            if (name.isEmpty()) {
                causes.add(MetaValidation.required(at + "." + nameField));
            } else if (celIdentifier && !CEL_IDENTIFIER.matcher(name).matches()) {
                causes.add(MetaValidation.invalid(at + "." + nameField, name, "name is not a valid CEL identifier"));
            } else if (!names.add(name)) {
                causes.add(MetaValidation.duplicate(at + "." + nameField, name));
            }
            expression(items.get(i), expressionField, at, wanted, true, causes);
        }
    }

    private static void expression(JsonNode holder, String field, String at, List<CelType> wanted, boolean required,
                                   List<StatusCause> causes) {
        String expression = holder.path(field).asString("");
        if (expression.isBlank()) {
            if (required) {
                causes.add(MetaValidation.required(at + "." + field));
            }
            return;
        }
        String error = ValidatingAdmissionPolicyPlugin.CEL.compileError(expression, wanted);
        if (error != null) {
            causes.add(ApiException.cause(at + "." + field, "FieldValueInvalid", "Invalid value: \""
                    + expression.replace("\"", "\\\"") + "\": " + error));
        }
    }

    private static void validateBinding(JsonNode spec, List<StatusCause> causes) {
        if (spec.path("policyName").asString("").isEmpty()) {
            causes.add(MetaValidation.required("spec.policyName"));
        }
        JsonNode actions = spec.path("validationActions");
        if (actions.isEmpty()) {
            causes.add(MetaValidation.required("spec.validationActions", "at least one validation action is required"));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < actions.size(); i++) {
            String action = actions.get(i).asString("");
            if (!List.of("Deny", "Warn", "Audit").contains(action)) {
                causes.add(MetaValidation.notSupported("spec.validationActions[" + i + "]", action,
                        "\"Audit\", \"Deny\", \"Warn\""));
            } else if (!seen.add(action)) {
                causes.add(MetaValidation.duplicate("spec.validationActions[" + i + "]", action));
            }
        }
        if (seen.contains("Deny") && seen.contains("Warn")) {
            causes.add(ApiException.cause("spec.validationActions", "FieldValueInvalid", "Invalid value: "
                    + Json.write(actions) + ": must not contain both Deny and Warn (repeating the same"
                    + " validation failure information in the API response and headers serves no purpose)"));
        }
        JsonNode ref = spec.get("paramRef");
        if (ref != null && !ref.isNull()) {
            boolean named = !ref.path("name").asString("").isEmpty();
            boolean selected = ref.get("selector") != null && !ref.get("selector").isNull();
            if (named && selected) {
                causes.add(ApiException.cause("spec.paramRef.name", "FieldValueForbidden",
                        "Forbidden: name and selector are mutually exclusive"));
            } else if (!named && !selected) {
                causes.add(MetaValidation.required("spec.paramRef", "one of name or selector must be specified"));
            }
            if (selected) {
                try {
                    io.cybernetes.api.LabelSelector.fromObject(ref.get("selector"));
                } catch (ApiException invalid) {
                    causes.add(MetaValidation.invalid("spec.paramRef.selector", Json.write(ref.get("selector")),
                            invalid.getMessage()));
                }
            }
            String action = ref.path("parameterNotFoundAction").asString("");
            if (action.isEmpty()) {
                causes.add(MetaValidation.required("spec.paramRef.parameterNotFoundAction"));
            } else if (!List.of("Allow", "Deny").contains(action)) {
                causes.add(MetaValidation.notSupported("spec.paramRef.parameterNotFoundAction", action,
                        "\"Allow\", \"Deny\""));
            }
        }
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.admission.webhook.MatchConditions;
import io.cybernetes.api.ApiException;

import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Validation of Mutating- and ValidatingWebhookConfigurations, as admissionregistration/v1
 * has it: each webhook has a unique, fully qualified name, exactly one of url and
 * service, declared side effects (None or NoneOnDryRun), v1 among its review versions, a
 * failure policy of Fail or Ignore and a timeout of 1 to 30 seconds.
 */
public final class WebhookConfigurationStrategy implements KindStrategy {

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        Set<String> names = new HashSet<>();
        int i = 0;
        for (JsonNode w : obj.path("webhooks")) {
            String p = "webhooks[" + i++ + "]";
            String name = w.path("name").asString("");
            if (name.isEmpty()) {
                causes.add(MetaValidation.required(p + ".name"));
            } else if (!name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}")) {
                causes.add(MetaValidation.invalid(p + ".name", name, "should be a domain with at least three segments"
                        + " separated by dots"));
            } else if (!names.add(name)) {
                causes.add(MetaValidation.duplicate(p + ".name", name));
            }
            JsonNode cc = w.path("clientConfig");
            boolean url = cc.hasNonNull("url");
            boolean service = cc.hasNonNull("service");
            if (url == service) {
                causes.add(MetaValidation.required(p + ".clientConfig", "exactly one of url or service is required"));
            } else if (url && !cc.get("url").asString("").matches("https?://.+")) {
                causes.add(MetaValidation.invalid(p + ".clientConfig.url", cc.get("url").asString(""),
                        "must be an http or https URL"));
            }
            String sideEffects = w.path("sideEffects").asString("");
            if (!sideEffects.equals("None") && !sideEffects.equals("NoneOnDryRun")) {
                causes.add(sideEffects.isEmpty() ? MetaValidation.required(p + ".sideEffects",
                        "must specify one of None, NoneOnDryRun") : MetaValidation.notSupported(p + ".sideEffects",
                        sideEffects, "\"None\", \"NoneOnDryRun\""));
            }
            boolean v1 = false;
            for (JsonNode v : w.path("admissionReviewVersions")) {
                v1 |= v.asString("").equals("v1");
            }
            if (!v1) {
                causes.add(MetaValidation.required(p + ".admissionReviewVersions",
                        "must include at least one of v1"));
            }
            String policy = w.path("failurePolicy").asString("Fail");
            if (!policy.equals("Fail") && !policy.equals("Ignore")) {
                causes.add(MetaValidation.notSupported(p + ".failurePolicy", policy, "\"Fail\", \"Ignore\""));
            }
            if (w.has("timeoutSeconds") && (w.get("timeoutSeconds").asInt(0) < 1 || w.get("timeoutSeconds").asInt(0) > 30)) {
                causes.add(MetaValidation.invalid(p + ".timeoutSeconds", w.get("timeoutSeconds").toString(),
                        "the timeout value must be between 1 and 30 seconds"));
            }
            validateMatchConditions(w.path("matchConditions"), p + ".matchConditions", causes);
        }
    }

    /** At most 64, each with a unique qualified name and a CEL expression that compiles to a bool. */
    static void validateMatchConditions(JsonNode conditions, String p, List<StatusCause> causes) {
        if (conditions.size() > MatchConditions.MAX) {
            causes.add(ApiException.cause(p, "FieldValueTooMany", "Too many: " + conditions.size()
                    + ": must have at most " + MatchConditions.MAX + " items"));
            return;
        }
        Set<String> names = new HashSet<>();
        int i = 0;
        for (JsonNode c : conditions) {
            String at = p + "[" + i++ + "]";
            String name = c.path("name").asString("");
            if (name.isEmpty()) {
                causes.add(MetaValidation.required(at + ".name"));
            } else if (!names.add(name)) {
                causes.add(MetaValidation.duplicate(at + ".name", name));
            } else {
                MetaValidation.validateQualifiedName(name, at + ".name", causes);
            }
            String expression = c.path("expression").asString("");
            if (expression.isBlank()) {
                causes.add(MetaValidation.required(at + ".expression"));
                continue;
            }
            String error = MatchConditions.compileError(expression);
            if (error != null) {
                causes.add(MetaValidation.invalid(at + ".expression", expression, error));
            }
        }
    }
}

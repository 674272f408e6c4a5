package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.registry.MetaValidation;
import io.cybernetes.auth.Selectors;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code fieldSelector} and {@code labelSelector} of an access review's resource
 * attributes ({@code rawSelector} or {@code requirements}), as kube-apiserver reads them:
 * validated first (a 422 naming every bad field), then turned into {@link Selectors},
 * where a requirement an authorizer could not use is left out and noted — leaving one out
 * only widens what the check is about. What was left out is reported in the review's
 * {@code status.evaluationError}.
 */
final class ReviewSelectors {

    private static final String FIELD = "spec.resourceAttributes.fieldSelector";
    private static final String LABEL = "spec.resourceAttributes.labelSelector";

    private ReviewSelectors() {
    }

    /** The selectors of {@code resourceAttributes}; a 422 when their form is invalid. */
    static Selectors read(ResourceType type, JsonNode attributes) {
        JsonNode field = attributes.get("fieldSelector");
        JsonNode label = attributes.get("labelSelector");
        List<StatusCause> causes = new ArrayList<>();
        validate(field, FIELD, false, causes);
        validate(label, LABEL, true, causes);
        if (!causes.isEmpty()) {
            throw ApiException.invalid(type, "", causes);
        }
        Selectors fields = present(field) ? fields(field) : Selectors.NONE;
        Selectors labels = present(label) ? labels(label) : Selectors.NONE;
        return new Selectors(fields.field(), fields.fieldError(), labels.label(), labels.labelError());
    }

    /** What the review's status says of selectors it could not use whole. */
    static List<String> evaluationErrors(Selectors s) {
        List<String> out = new ArrayList<>();
        if (!s.fieldError().isEmpty()) {
            out.add(FIELD + (s.field().isEmpty() ? "" : " partially") + " ignored due to parse error");
        }
        if (!s.labelError().isEmpty()) {
            out.add(LABEL + (s.label().isEmpty() ? "" : " partially") + " ignored due to parse error");
        }
        return out;
    }

    private static boolean present(JsonNode n) {
        return n != null && n.isObject();
    }

    private static void validate(JsonNode selector, String path, boolean labels, List<StatusCause> causes) {
        if (!present(selector)) {
            return;
        }
        String raw = selector.path("rawSelector").asString("");
        JsonNode requirements = selector.path("requirements");
        boolean hasRequirements = requirements.isArray() && !requirements.isEmpty();
        if (!raw.isEmpty() && hasRequirements) {
            causes.add(MetaValidation.invalid(path + ".rawSelector", raw,
                    "may not specified at the same time as requirements"));
        }
        if (raw.isEmpty() && !hasRequirements) {
            causes.add(MetaValidation.required(path + ".requirements", "when " + path
                    + " is specified, requirements or rawSelector is required"));
        }
        for (int i = 0; hasRequirements && i < requirements.size(); i++) {
            JsonNode r = requirements.get(i);
            String at = path + ".requirements[" + i + "]";
            String key = r.path("key").asString("");
            if (key.isEmpty()) {
                causes.add(MetaValidation.required(at + ".key", "must be specified"));
            } else if (labels) {
                MetaValidation.validateQualifiedName(key, at + ".key", causes);
            }
            boolean hasValues = r.path("values").isArray() && !r.path("values").isEmpty();
            switch (r.path("operator").asString("")) {
                case Selectors.IN, Selectors.NOT_IN -> {
                    if (!hasValues) {
                        causes.add(MetaValidation.required(at + ".values",
                                "must be specified when `operator` is 'In' or 'NotIn'"));
                    }
                }
                case Selectors.EXISTS, Selectors.DOES_NOT_EXIST -> {
                    if (hasValues) {
                        causes.add(ApiException.cause(at + ".values", "FieldValueForbidden",
                                "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                    }
                }
                default -> {
                    // an operator this server does not know passes validation, and is left out below
                }
            }
        }
    }

    private static Selectors fields(JsonNode selector) {
        String raw = selector.path("rawSelector").asString("");
        if (!raw.isEmpty()) {
            return Selectors.parse(raw, null);
        }
        List<Selectors.Requirement> kept = new ArrayList<>();
        String error = "";
        for (JsonNode r : selector.path("requirements")) {
            String op = r.path("operator").asString("");
            List<String> values = values(r);
            String why = switch (op) {
                case Selectors.IN, Selectors.NOT_IN -> values.size() == 1 ? ""
                        : "fieldSelectors do not yet support multiple values";
                case Selectors.EXISTS, Selectors.DOES_NOT_EXIST -> "fieldSelectors do not yet support " + op;
                default -> "\"" + op + "\" is not a valid field selector operator";
            };
            if (why.isEmpty()) {
                kept.add(new Selectors.Requirement(r.path("key").asString(""), op, values));
            } else if (error.isEmpty()) {
                error = why;
            }
        }
        return new Selectors(kept, error, List.of(), "");
    }

    private static Selectors labels(JsonNode selector) {
        String raw = selector.path("rawSelector").asString("");
        if (!raw.isEmpty()) {
            return Selectors.parse(null, raw);
        }
        List<Selectors.Requirement> kept = new ArrayList<>();
        String error = "";
        for (JsonNode r : selector.path("requirements")) {
            try {
                // one requirement at a time, so that a bad one costs only itself
                ObjectNode one = Json.object();
                one.putArray("matchExpressions").add(r);
                kept.addAll(Selectors.labels(LabelSelector.validated(LabelSelector.fromObject(one))));
            } catch (ApiException e) {
                if (error.isEmpty()) {
                    error = e.getMessage();
                }
            }
        }
        return new Selectors(List.of(), "", kept, error);
    }

    private static List<String> values(JsonNode r) {
        List<String> out = new ArrayList<>();
        r.path("values").forEach(v -> out.add(v.asString()));
        return out;
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * FlowSchemas and PriorityLevelConfigurations (flowcontrol.apiserver.k8s.io/v1), checked as Kubernetes
 * checks them: a schema names its priority level, a precedence from 1 to 10000, a known distinguisher,
 * subjects and rules for each rule set; a level is Exempt exactly when it is named {@code exempt}, and a
 * Limited one has shares, percentages and (when it queues) queues, a hand no larger than them and with no
 * more than 60 bits of entropy, and a queue length limit.
 */
public final class FlowControlStrategy implements KindStrategy {

    private final boolean schema;

    public FlowControlStrategy(boolean schema) {
        this.schema = schema;
    }

    @Override
    public void prepareForCreate(ObjectNode obj) {
        obj.remove("status");
        if (!schema) {
            JsonNode limited = obj.path("spec").path("limited");
            if (limited instanceof ObjectNode l) {
                if (!l.has("nominalConcurrencyShares")) {
                    l.put("nominalConcurrencyShares", 30);
                }
                if (!l.has("lendablePercent")) {
                    l.put("lendablePercent", 0);
                }
            }
        } else if (!obj.path("spec").has("matchingPrecedence")) {
            obj.withObject("spec").put("matchingPrecedence", 1000);
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        if (schema) {
            validateSchema(Json.text(obj, "metadata.name"), obj.path("spec"), causes);
        } else {
            validateLevel(Json.text(obj, "metadata.name"), obj.path("spec"), causes);
        }
    }

    private static void validateSchema(String name, JsonNode spec, List<StatusCause> causes) {
        if (spec.path("priorityLevelConfiguration").path("name").asString("").isEmpty()) {
            causes.add(MetaValidation.required("spec.priorityLevelConfiguration.name", "must reference a priority"
                    + " level"));
        }
        int precedence = spec.path("matchingPrecedence").asInt(1000);
        String precedenceField = "spec.matchingPrecedence";
        if (precedence <= 0) {
            causes.add(ApiException.cause(precedenceField, "FieldValueInvalid", "Invalid value: " + precedence
                    + ": must be a positive value"));
        }
        if (precedence > 10000) {
            causes.add(ApiException.cause(precedenceField, "FieldValueInvalid", "Invalid value: " + precedence
                    + ": must not be greater than 10000"));
        }
        if (precedence == 1 && !"exempt".equals(name)) {
            causes.add(ApiException.cause(precedenceField, "FieldValueInvalid", "Invalid value: 1: only the schema"
                    + " named 'exempt'"
                    + " may have matchingPrecedence 1"));
        }
        String distinguisher = spec.path("distinguisherMethod").path("type").asString("");
        if (spec.path("distinguisherMethod").isObject() && !List.of("ByUser", "ByNamespace").contains(distinguisher)) {
            causes.add(MetaValidation.notSupported("spec.distinguisherMethod.type", distinguisher,
                    "\"ByNamespace\", \"ByUser\""));
        }
        JsonNode rules = spec.path("rules");
        for (int i = 0; i < rules.size(); i++) {
            String at = "spec.rules[" + i + "]";
            JsonNode rule = rules.get(i);
            if (rule.path("subjects").isEmpty()) {
                causes.add(MetaValidation.required(at + ".subjects", "subjects must contain at least one value"));
            }
            for (int j = 0; j < rule.path("subjects").size(); j++) {
                subject(rule.path("subjects").get(j), at + ".subjects[" + j + "]", causes);
            }
            if (rule.path("resourceRules").isEmpty() && rule.path("nonResourceRules").isEmpty()) {
                causes.add(MetaValidation.required(at, "at least one of resourceRules and nonResourceRules has to be"
                        + " non-empty"));
            }
            JsonNode resourceRules = rule.path("resourceRules");
            for (int j = 0; j < resourceRules.size(); j++) {
                String r = at + ".resourceRules[" + j + "]";
                JsonNode rr = resourceRules.get(j);
                for (String f : List.of("verbs", "apiGroups", "resources")) {
                    if (rr.path(f).isEmpty()) {
                        causes.add(MetaValidation.required(r + "." + f, f + " must contain at least one value"));
                    }
                }
                if (!rr.path("clusterScope").asBoolean(false) && rr.path("namespaces").isEmpty()) {
                    causes.add(MetaValidation.required(r + ".namespaces", "resource rules that are not cluster scoped"
                            + " must supply at least one namespace"));
                }
            }
            JsonNode nonResourceRules = rule.path("nonResourceRules");
            for (int j = 0; j < nonResourceRules.size(); j++) {
                String r = at + ".nonResourceRules[" + j + "]";
                for (String f : List.of("verbs", "nonResourceURLs")) {
                    if (nonResourceRules.get(j).path(f).isEmpty()) {
                        causes.add(MetaValidation.required(r + "." + f, f + " must contain at least one value"));
                    }
                }
            }
        }
    }

    private static void subject(JsonNode s, String at, List<StatusCause> causes) {
        String kind = s.path("kind").asString("");
        String field = switch (kind) {
            case "User" -> "user";
            case "Group" -> "group";
            case "ServiceAccount" -> "serviceAccount";
            default -> null;
        };
        if (field == null) {
            causes.add(MetaValidation.notSupported(at + ".kind", kind, "\"Group\", \"ServiceAccount\", \"User\""));
            return;
        }
        if (s.path(field).path("name").asString("").isEmpty()) {
            causes.add(MetaValidation.required(at + "." + field + ".name"));
        }
        if (field.equals("serviceAccount") && s.path(field).path("namespace").asString("").isEmpty()) {
            causes.add(MetaValidation.required(at + ".serviceAccount.namespace"));
        }
    }

    private static void validateLevel(String name, JsonNode spec, List<StatusCause> causes) {
        String type = spec.path("type").asString("");
        if (!List.of("Exempt", "Limited").contains(type)) {
            causes.add(MetaValidation.notSupported("spec.type", type, "\"Exempt\", \"Limited\""));
            return;
        }
        if (type.equals("Exempt") != "exempt".equals(name)) {
            causes.add(MetaValidation.invalid("spec.type", type, "type must be 'Exempt' if and only if name is"
                    + " 'exempt'"));
        }
        if (type.equals("Exempt")) {
            if (spec.path("limited").isObject()) {
                causes.add(ApiException.cause("spec.limited", "FieldValueForbidden", "Forbidden: must be nil if the"
                        + " type is not Limited"));
            }
            return;
        }
        JsonNode limited = spec.path("limited");
        if (!limited.isObject()) {
            causes.add(MetaValidation.required("spec.limited", "must not be empty when type is Limited"));
            return;
        }
        int shares = limited.path("nominalConcurrencyShares").asInt(30);
        if (shares < 0) {
            causes.add(ApiException.cause("spec.limited.nominalConcurrencyShares", "FieldValueInvalid",
                    "Invalid value: " + shares + ": must be a non-negative integer"));
        }
        int lendable = limited.path("lendablePercent").asInt(0);
        if (lendable < 0 || lendable > 100) {
            causes.add(ApiException.cause("spec.limited.lendablePercent", "FieldValueInvalid", "Invalid value: "
                    + lendable + ": must be between 0 and 100, inclusive"));
        }
        JsonNode borrowing = limited.get("borrowingLimitPercent");
        if (borrowing != null && !borrowing.isNull() && borrowing.asInt() < 0) {
            causes.add(ApiException.cause("spec.limited.borrowingLimitPercent", "FieldValueInvalid", "Invalid value: "
                    + borrowing.asInt() + ": if specified, must be a non-negative integer"));
        }
        JsonNode response = limited.path("limitResponse");
        String responseType = response.path("type").asString("");
        if (!List.of("Queue", "Reject").contains(responseType)) {
            causes.add(MetaValidation.notSupported("spec.limited.limitResponse.type", responseType,
                    "\"Queue\", \"Reject\""));
            return;
        }
        JsonNode queuing = response.path("queuing");
        if (responseType.equals("Reject")) {
            if (queuing.isObject()) {
                causes.add(ApiException.cause("spec.limited.limitResponse.queuing", "FieldValueForbidden",
                        "Forbidden: must be nil if limited.limitResponse.type is not Limited"));
            }
            return;
        }
        String at = "spec.limited.limitResponse.queuing";
        int queues = queuing.path("queues").asInt(64);
        int handSize = queuing.path("handSize").asInt(8);
        int queueLength = queuing.path("queueLengthLimit").asInt(50);
        if (queues <= 0) {
            causes.add(ApiException.cause(at + ".queues", "FieldValueInvalid", "Invalid value: " + queues
                    + ": must be positive"));
        }
        if (queueLength <= 0) {
            causes.add(ApiException.cause(at + ".queueLengthLimit", "FieldValueInvalid", "Invalid value: " + queueLength
                    + ": must be positive"));
        }
        if (handSize <= 0) {
            causes.add(ApiException.cause(at + ".handSize", "FieldValueInvalid", "Invalid value: " + handSize
                    + ": must be positive"));
        } else if (queues > 0 && handSize > queues) {
            causes.add(ApiException.cause(at + ".handSize", "FieldValueInvalid", "Invalid value: " + handSize
                    + ": should not be greater than queues (" + queues + ")"));
        } else if (queues > 0 && Math.ceil(handSize * Math.log(queues) / Math.log(2)) > 60) {
            causes.add(ApiException.cause(at + ".handSize", "FieldValueInvalid", "Invalid value: " + handSize
                    + ": required entropy bits of deckSize " + queues + " and handSize " + handSize
                    + " should not be greater than 60"));
        }
    }
}

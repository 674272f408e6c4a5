package io.cybernetes.admission.validatingpolicy;

import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import io.cybernetes.admission.AccessChecker;
import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.CelAuthorizer;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.ValidatingAdmissionPlugin;
import io.cybernetes.admission.webhook.MatchConditions;
import io.cybernetes.admission.webhook.WebhookMatcher;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.CelPrograms;
import io.cybernetes.api.CelValues;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1), as kube-apiserver's plugin of that
 * name: every binding whose policy and own matchResources take in the write, with the parameters its
 * paramRef selects (none, one by name, or each of those a selector picks), runs the policy's
 * matchConditions, variables and validations in CEL; a validation that fails is handled by the binding's
 * validationActions (Deny refuses the write, Warn warns the client, Audit annotates the audit event), an
 * expression that errs by the policy's failurePolicy (Fail counts it as failed, Ignore skips it); the
 * policy's auditAnnotations go to the audit event.
 */
public final class ValidatingAdmissionPolicyPlugin implements ValidatingAdmissionPlugin {

    public static final String NAME = "ValidatingAdmissionPolicy";
    static final String GROUP = "admissionregistration.k8s.io";
    static final String FAILURE_ANNOTATION = "validation.policy.admission.k8s.io/validation_failure";
    /** The environment every policy expression is written in, and checked against when it is written. */
    public static final CelPrograms CEL = new CelPrograms(CelAuthorizer.declare(CelValues.builder())
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("request", SimpleType.DYN)
            .addVar("params", SimpleType.DYN)
            .addVar("namespaceObject", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .build(), 1_000_000);
    /** What the expressions of one policy evaluation (one binding, one set of parameters) may spend together. */
    static final long REQUEST_BUDGET = 10_000_000;
    /** What a binding's match conditions may spend together, for one set of parameters (Kubernetes': a quarter). */
    public static final long MATCH_CONDITIONS_BUDGET = 2_500_000;

    private final ClusterReader cluster;
    private final ResourceRegistry registry;
    private final WebhookMatcher matcher;
    private final AccessChecker access;

    public ValidatingAdmissionPolicyPlugin(ClusterReader cluster, ResourceRegistry registry, AccessChecker access) {
        this.cluster = cluster;
        this.registry = registry;
        this.access = access;
        this.matcher = new WebhookMatcher(cluster);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Policies and bindings themselves are never judged by policies, so that a broken one can be fixed. */
    @Override
    public boolean handles(Attributes a) {
        return !(a.group().equals(GROUP) && (a.resource().equals("validatingadmissionpolicies")
                || a.resource().equals("validatingadmissionpolicybindings")));
    }

    /** What one validation concluded: its message, reason, and the index of its expression. */
    private record Failure(String message, String reason, int index) {
    }

    @Override
    public void validate(Attributes a) {
        List<ObjectNode> bindings = new ArrayList<>(cluster.list(GROUP, "validatingadmissionpolicybindings", ""));
        if (bindings.isEmpty()) {
            return;
        }
        bindings.sort(Comparator.comparing(b -> b.path("metadata").path("name").asString("")));
        Map<String, Object> base = null;
        for (ObjectNode binding : bindings) {
            String policyName = binding.path("spec").path("policyName").asString("");
            ObjectNode policy = cluster.get(GROUP, "validatingadmissionpolicies", "", policyName).orElse(null);
            if (policy == null || !matcher.matchesResources(policy.path("spec").get("matchConstraints"), a, false)
                    || !matcher.matchesResources(binding.path("spec").get("matchResources"), a, true)) {
                continue;
            }
            if (base == null) {
                base = variables(a);
            }
            check(a, policy, binding, base);
        }
    }

    private Map<String, Object> variables(Attributes a) {
        Map<String, Object> vars = new HashMap<>();
        vars.put("object", a.object() == null ? NullValue.NULL_VALUE : CelValues.lazy(a.object()));
        vars.put("oldObject", a.oldObject() == null ? NullValue.NULL_VALUE : CelValues.lazy(a.oldObject()));
        vars.put("request", MatchConditions.request(a));
        Optional<ObjectNode> ns = a.namespace().isEmpty() ? Optional.empty()
                : cluster.get("", "namespaces", "", a.namespace());
        vars.put("namespaceObject", ns.<Object>map(CelValues::lazy).orElse(NullValue.NULL_VALUE));
        CelAuthorizer.bind(vars, access, a);
        return vars;
    }

    private void check(Attributes a, ObjectNode policy, ObjectNode binding, Map<String, Object> base) {
        JsonNode spec = policy.path("spec");
        boolean failClosed = !"Ignore".equals(spec.path("failurePolicy").asString("Fail"));
        List<ObjectNode> params;
        try {
            params = params(a, spec.get("paramKind"), binding.path("spec").get("paramRef"));
        } catch (IllegalStateException misconfigured) {
            if (failClosed) {
                decide(a, policy, binding, List.of(new Failure("failed to configure binding: "
                        + misconfigured.getMessage(), "", -1)));
            }
            return;
        }
        if (params == null) {
            return; // no parameters, and the binding allows that
        }
        for (ObjectNode param : params) {
            Map<String, Object> vars = new HashMap<>(base);
            vars.put("params", param == null ? NullValue.NULL_VALUE : CelValues.lazy(param));
            String conditionError = matchConditionsError(spec, vars);
            if (SKIPPED.equals(conditionError)) {
                continue;
            }
            if (conditionError != null) {
                if (failClosed) {
                    decide(a, policy, binding, List.of(new Failure(conditionError, "", -1)));
                }
                continue;
            }
            CelPrograms.Budget budget = new CelPrograms.Budget(REQUEST_BUDGET);
            List<Failure> failures;
            try {
                failures = validate(a, policy, vars, budget, failClosed);
            } catch (CelPrograms.BudgetExhausted spent) {
                // as Kubernetes: no further expressions run, none of the policy's audit annotations are kept, and
                // the policy's failure policy decides
                String own = Json.text(policy, "metadata.name") + "/";
                a.auditAnnotations().keySet().removeIf(k -> k.startsWith(own));
                failures = failClosed ? List.of(new Failure(spent.getMessage(), "", -1)) : List.of();
            }
            decide(a, policy, binding, failures);
        }
    }

    /** Marks a policy whose match conditions do not take in the request. */
    private static final String SKIPPED = "";

    /**
     * What the policy's match conditions say: null when all are true, {@link #SKIPPED} when one is false, else
     * why they could not be evaluated (judged by the failure policy).
     */
    private static String matchConditionsError(JsonNode spec, Map<String, Object> vars) {
        String conditionError = null;
        CelPrograms.Budget budget = new CelPrograms.Budget(MATCH_CONDITIONS_BUDGET);
        for (JsonNode c : spec.path("matchConditions")) {
            String expression = c.path("expression").asString("");
            try {
                Object r = CEL.evaluate(expression, vars, budget);
                if (Boolean.FALSE.equals(r)) {
                    return SKIPPED;
                }
                if (!(r instanceof Boolean)) {
                    conditionError = "expression '" + expression + "' resulted in error: must evaluate to bool";
                }
            } catch (CelPrograms.BudgetExhausted spent) {
                return spent.getMessage();
            } catch (Exception e) {
                conditionError = "expression '" + expression + "' resulted in error: " + MatchConditions.message(e);
            }
        }
        return conditionError;
    }

    /**
     * Evaluates the policy's variables, validations and audit annotations within the budget: the validations
     * that failed, and those that could not be evaluated when the policy fails closed.
     */
    private static List<Failure> validate(Attributes a, ObjectNode policy, Map<String, Object> vars,
                                          CelPrograms.Budget budget, boolean failClosed) {
        JsonNode spec = policy.path("spec");
        vars.put("variables", new Variables(spec.path("variables"), vars, budget));
        List<Failure> failures = new ArrayList<>();
        JsonNode validations = spec.path("validations");
        for (int i = 0; i < validations.size(); i++) {
            JsonNode v = validations.get(i);
            String expression = v.path("expression").asString("");
            String error = null;
            Object result = null;
            try {
                result = CEL.evaluate(expression, vars, budget);
                if (!(result instanceof Boolean)) {
                    error = "expression '" + expression + "' resulted in error: must evaluate to bool";
                }
            } catch (CelPrograms.BudgetExhausted spent) {
                throw spent;
            } catch (Exception e) {
                error = "expression '" + expression + "' resulted in error: " + errorOf(e);
            }
            if (error != null) {
                if (failClosed) {
                    failures.add(new Failure(error, "", i));
                }
            } else if (Boolean.FALSE.equals(result)) {
                failures.add(new Failure(message(v, vars, budget), v.path("reason").asString(""), i));
            }
        }
        annotate(a, policy, vars, budget);
        return failures;
    }

    /**
     * A policy's variables as its expressions see them: each evaluated when one first reads it and then kept,
     * as Kubernetes composes them, its cost taken from the evaluation's budget; one that fails makes every
     * expression reading it fail with its error.
     */
    private static final class Variables extends CelValues.LazyMap {
        private final Map<String, String> expressions = new LinkedHashMap<>();
        private final Map<String, Object> values = new HashMap<>();
        private final Map<String, VariableFailed> failed = new HashMap<>();
        private final Map<String, Object> vars;
        private final CelPrograms.Budget budget;

        Variables(JsonNode declared, Map<String, Object> vars, CelPrograms.Budget budget) {
            declared.forEach(v -> expressions.put(v.path("name").asString(""), v.path("expression").asString("")));
            this.vars = vars;
            this.budget = budget;
        }

        @Override
        protected java.util.Collection<String> names() {
            return expressions.keySet();
        }

        @Override
        protected Object valueOf(String name) {
            if (values.containsKey(name)) {
                return values.get(name);
            }
            if (failed.containsKey(name)) {
                throw failed.get(name);
            }
            try {
                Object value = CEL.evaluate(expressions.get(name), vars, budget);
                values.put(name, value);
                return value;
            } catch (CelPrograms.BudgetExhausted spent) {
                throw spent;
            } catch (Exception e) {
                VariableFailed f = new VariableFailed(errorOf(e));
                failed.put(name, f);
                throw f;
            }
        }
    }

    /** A variable's evaluation failed: the expressions reading it fail with its error. */
    private static final class VariableFailed extends RuntimeException {
        VariableFailed(String message) {
            super(message, null, false, false);
        }
    }

    /** What went wrong in an evaluation: a variable's own error when one it read failed. */
    private static String errorOf(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof VariableFailed f) {
                return f.getMessage();
            }
        }
        return MatchConditions.message(e);
    }

    /** The message of a failed validation: its messageExpression's string, else its message, else the expression. */
    private static String message(JsonNode v, Map<String, Object> vars, CelPrograms.Budget budget) {
        String messageExpression = v.path("messageExpression").asString("");
        if (!messageExpression.isEmpty()) {
            try {
                if (CEL.evaluate(messageExpression, vars, budget) instanceof String s && !s.isBlank()
                        && !s.contains("\n")) {
                    return s.length() > 5120 ? s.substring(0, 5120) : s;
                }
            } catch (CelPrograms.BudgetExhausted spent) {
                throw spent;
            } catch (Exception ignored) {
                // Kubernetes falls back to the static message
            }
        }
        String message = v.path("message").asString("");
        return message.isEmpty() ? "failed expression: " + v.path("expression").asString("") : message;
    }

    private static void annotate(Attributes a, ObjectNode policy, Map<String, Object> vars,
                                 CelPrograms.Budget budget) {
        String policyName = Json.text(policy, "metadata.name");
        for (JsonNode annotation : policy.path("spec").path("auditAnnotations")) {
            String expression = annotation.path("valueExpression").asString("");
            try {
                if (CEL.evaluate(expression, vars, budget) instanceof String s && !s.isEmpty()) {
                    a.auditAnnotations().put(policyName + "/" + annotation.path("key").asString(""),
                            s.length() > 10240 ? s.substring(0, 10240) : s);
                }
            } catch (CelPrograms.BudgetExhausted spent) {
                throw spent;
            } catch (Exception ignored) {
                // an annotation that cannot be computed is left out
            }
        }
    }

    /** Applies the binding's validationActions to the failed validations: Deny refuses the write. */
    private static void decide(Attributes a, ObjectNode policy, ObjectNode binding, List<Failure> failures) {
        if (failures.isEmpty()) {
            return;
        }
        String policyName = Json.text(policy, "metadata.name");
        String bindingName = Json.text(binding, "metadata.name");
        List<String> actions = Json.strings(binding.path("spec").get("validationActions"));
        if (actions.contains("Audit")) {
            ArrayNode all = a.auditAnnotations().containsKey(FAILURE_ANNOTATION)
                    ? (ArrayNode) Json.MAPPER.readTree(a.auditAnnotations().get(FAILURE_ANNOTATION))
                    : Json.MAPPER.createArrayNode();
            for (Failure f : failures) {
                ObjectNode entry = all.addObject().put("message", f.message()).put("policy", policyName)
                        .put("binding", bindingName).put("expressionIndex", Math.max(f.index(), 0));
                ArrayNode list = entry.putArray("validationActions");
                actions.forEach(list::add);
            }
            a.auditAnnotations().put(FAILURE_ANNOTATION, Json.write(all));
        }
        if (actions.contains("Warn")) {
            for (Failure f : failures) {
                a.warnings().add("Validation failed for ValidatingAdmissionPolicy '" + policyName + "' with binding '"
                        + bindingName + "': " + f.message());
            }
        }
        if (actions.contains("Deny")) {
            Failure f = failures.get(0);
            String reason = f.reason().isEmpty() ? "Invalid" : f.reason();
            int code = switch (reason) {
                case "Unauthorized" -> 401;
                case "Forbidden" -> 403;
                case "RequestEntityTooLarge" -> 413;
                default -> 422;
            };
            String groupResource = a.group().isEmpty() ? a.resource() : a.resource() + "." + a.group();
            throw ApiException.of(code, reason, (a.name().isEmpty() ? groupResource : groupResource + " \""
                    + a.name() + "\"") + " is forbidden: ValidatingAdmissionPolicy '" + policyName + "' with binding '"
                    + bindingName + "' denied request: " + f.message());
        }
    }

    /**
     * The parameters to evaluate with: a list holding null when the policy takes none; null when the binding
     * finds none and allows that; IllegalStateException when the binding cannot be used.
     */
    private List<ObjectNode> params(Attributes a, JsonNode paramKind, JsonNode paramRef) {
        if (paramKind == null || paramKind.isNull() || paramKind.isMissingNode()) {
            List<ObjectNode> none = new ArrayList<>();
            none.add(null);
            return none;
        }
        if (paramRef == null || paramRef.isNull() || paramRef.isMissingNode()) {
            throw new IllegalStateException("the policy has a paramKind and the binding no paramRef");
        }
        String apiVersion = paramKind.path("apiVersion").asString("");
        String kind = paramKind.path("kind").asString("");
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        String version = apiVersion.contains("/") ? apiVersion.substring(apiVersion.indexOf('/') + 1) : apiVersion;
        ResourceType type = registry.all().stream().filter(t -> t.group().equals(group) && t.version().equals(version)
                && t.kind().equals(kind)).findFirst().orElseThrow(() -> new IllegalStateException(
                "failed to find resource referenced by paramKind: '" + apiVersion + ", Kind=" + kind + "'"));
        String namespace = "";
        if (type.namespaced()) {
            namespace = paramRef.path("namespace").asString("");
            if (namespace.isEmpty()) {
                if (a.namespace().isEmpty()) {
                    throw new IllegalStateException("cannot use a namespaced paramRef in a policy binding that matches"
                            + " cluster-scoped resources");
                }
                namespace = a.namespace();
            }
        }
        List<ObjectNode> found = new ArrayList<>();
        String name = paramRef.path("name").asString("");
        if (!name.isEmpty()) {
            cluster.get(type.group(), type.plural(), namespace, name).ifPresent(found::add);
        } else {
            JsonNode selector = paramRef.get("selector");
            LabelSelector sel;
            try {
                sel = selector == null || selector.isNull() ? LabelSelector.EVERYTHING
                        : LabelSelector.fromObject(selector);
            } catch (ApiException invalid) {
                throw new IllegalStateException("the paramRef's selector is invalid: " + invalid.getMessage());
            }
            for (ObjectNode p : cluster.list(type.group(), type.plural(), namespace)) {
                Map<String, String> labels = new HashMap<>();
                p.path("metadata").path("labels").properties().forEach(e -> labels.put(e.getKey(),
                        e.getValue().asString("")));
                if (sel.matches(labels)) {
                    found.add(p);
                }
            }
        }
        if (found.isEmpty()) {
            if ("Allow".equals(paramRef.path("parameterNotFoundAction").asString("Deny"))) {
                return null;
            }
            throw new IllegalStateException("no params found for policy binding with `Deny` parameterNotFoundAction");
        }
        return found;
    }
}

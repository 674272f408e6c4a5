package io.cybernetes.apiserver.internal.apiextensions;

import dev.cel.bundle.Cel;
import io.cybernetes.api.CelValues;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CEL validation rules of a structural schema ({@code x-kubernetes-validations}),
 * compiled once per CRD version and evaluated as apiextensions-apiserver evaluates them:
 * {@code self} is the value at the rule's node, {@code oldSelf} the value it had before
 * an update (a rule that reads it, a transition rule, runs only on updates that had one,
 * unless {@code optionalOldSelf}); a false result is a 422 cause at the node (or its
 * {@code fieldPath}) with the rule's message, its {@code messageExpression}, or
 * {@code failed rule: <rule>}. Each evaluation has a cost budget, as Kubernetes' per-call
 * limit: past it the rule fails instead of running on.
 */
public final class CelRules {

    /** Kubernetes' per-expression runtime cost limit, counted here in evaluation steps. */
    static final long PER_CALL_LIMIT = 1_000_000;

    private static final Cel CEL = CelValues.builder()
            .addVar("self", SimpleType.DYN)
            .addVar("oldSelf", SimpleType.DYN)
            .build();

    /** One compiled rule. */
    private record Compiled(StructuralSchema.ValidationRule rule, CelRuntime.Program program,
                            CelRuntime.Program message, boolean transition) {
    }

    private final Map<StructuralSchema, List<Compiled>> byNode;

    private CelRules(Map<StructuralSchema, List<Compiled>> byNode) {
        this.byNode = byNode;
    }

    /** The compiled rules of a schema; a rule that does not compile is left out ({@link #errors} tells). */
    public static CelRules of(StructuralSchema schema) {
        Map<StructuralSchema, List<Compiled>> byNode = new IdentityHashMap<>();
        compile(schema, "", byNode, new ArrayList<>());
        return new CelRules(byNode);
    }

    /** The causes of the rules that do not compile, at {@code <path>.x-kubernetes-validations[i].rule}. */
    public static List<StatusCause> errors(JsonNode openApiV3Schema, String path) {
        List<StatusCause> causes = new ArrayList<>();
        compile(StructuralSchema.of(openApiV3Schema), path, new IdentityHashMap<>(), causes);
        return causes;
    }

    public boolean isEmpty() {
        return byNode.isEmpty();
    }

    private static void compile(StructuralSchema s, String path, Map<StructuralSchema, List<Compiled>> out,
                                List<StatusCause> errors) {
        List<Compiled> compiled = new ArrayList<>();
        for (int i = 0; i < s.rules.size(); i++) {
            StructuralSchema.ValidationRule r = s.rules.get(i);
            String at = path + ".x-kubernetes-validations[" + i + "]";
            CelRuntime.Program program = program(r.rule(), at + ".rule", r, errors);
            CelRuntime.Program message = r.messageExpression() == null ? null
                    : program(r.messageExpression(), at + ".messageExpression", r, errors);
            if (program != null && (r.messageExpression() == null || message != null)) {
                compiled.add(new Compiled(r, program, message, r.rule() != null && r.rule().contains("oldSelf")));
            }
        }
        if (!compiled.isEmpty()) {
            out.put(s, compiled);
        }
        s.properties.forEach((name, child) -> compile(child, path + ".properties[" + name + "]", out, errors));
        if (s.items != null) {
            compile(s.items, path + ".items", out, errors);
        }
        if (s.additionalProperties != null) {
            compile(s.additionalProperties, path + ".additionalProperties", out, errors);
        }
    }

    private static CelRuntime.Program program(String expression, String at, StructuralSchema.ValidationRule r,
                                              List<StatusCause> errors) {
        if (expression == null || expression.isBlank()) {
            errors.add(ApiException.cause(at, "FieldValueRequired", "Required value: rule is not specified"));
            return null;
        }
        CelValidationResult result = CEL.compile(expression);
        if (result.hasError()) {
            errors.add(ApiException.cause(at, "FieldValueInvalid", "Invalid value: " + ruleValue(r)
                    + ": compilation failed: " + result.getErrorString()));
            return null;
        }
        try {
            return CEL.createProgram(result.getAst());
        } catch (CelValidationException | CelEvaluationException e) {
            errors.add(ApiException.cause(at, "FieldValueInvalid", "Invalid value: " + ruleValue(r)
                    + ": compilation failed: " + e.getMessage()));
            return null;
        }
    }

    /** The rule as Go's {@code %#v} prints the one a CRD gave. */
    private static String ruleValue(StructuralSchema.ValidationRule r) {
        return "apiextensions.ValidationRule{Rule:" + GoStrings.quote(nz(r.rule())) + ", Message:"
                + GoStrings.quote(nz(r.message())) + ", MessageExpression:" + GoStrings.quote(nz(r.messageExpression()))
                + ", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:" + GoStrings.quote(nz(r.fieldPath()))
                + ", OptionalOldSelf:(*bool)(nil)}";
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    /** Evaluates every rule on the object (and its old self on an update; null on create). */
    public void validate(JsonNode object, JsonNode old, StructuralSchema schema, List<StatusCause> causes) {
        if (byNode.isEmpty()) {
            return;
        }
        for (Map.Entry<String, StructuralSchema> p : schema.properties.entrySet()) {
            if (!p.getKey().equals("metadata") && object.has(p.getKey())) {
                walk(object.get(p.getKey()), old == null ? null : old.get(p.getKey()), p.getValue(), p.getKey(),
                        causes);
            }
        }
        evaluate(object, old, schema, "", causes);
    }

    private void walk(JsonNode value, JsonNode old, StructuralSchema s, String path, List<StatusCause> causes) {
        if (value == null || value.isNull()) {
            return;
        }
        if (value.isObject()) {
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                StructuralSchema child = s.properties.get(e.getKey());
                if (child != null) {
                    walk(e.getValue(), old == null ? null : old.get(e.getKey()), child, path + "." + e.getKey(),
                            causes);
                } else if (s.additionalProperties != null) {
                    walk(e.getValue(), old == null ? null : old.get(e.getKey()), s.additionalProperties,
                            path + "[" + e.getKey() + "]", causes);
                }
            }
        } else if (value.isArray() && s.items != null) {
            for (int i = 0; i < value.size(); i++) {
                walk(value.get(i), correlated(value.get(i), old, s), s.items, path + "[" + i + "]", causes);
            }
        }
        evaluate(value, old, s, path, causes);
    }

    /** The old item an item of a list-type=map list stands for (same keys); other lists correlate nothing. */
    private static JsonNode correlated(JsonNode item, JsonNode oldList, StructuralSchema list) {
        if (oldList == null || !oldList.isArray() || !"map".equals(list.listType) || list.listMapKeys.isEmpty()) {
            return null;
        }
        for (JsonNode candidate : oldList) {
            boolean same = true;
            for (String k : list.listMapKeys) {
                same &= java.util.Objects.equals(candidate.get(k), item.get(k));
            }
            if (same) {
                return candidate;
            }
        }
        return null;
    }

    private void evaluate(JsonNode value, JsonNode old, StructuralSchema s, String path, List<StatusCause> causes) {
        List<Compiled> rules = byNode.get(s);
        if (rules == null) {
            return;
        }
        for (Compiled c : rules) {
            if (c.transition() && (old == null || old.isNull()) && !c.rule().optionalOldSelf()) {
                continue;
            }
            Map<String, Object> vars = new HashMap<>();
            vars.put("self", toCel(value));
            vars.put("oldSelf", old == null ? NullValue.NULL_VALUE : toCel(old));
            String field = path + (c.rule().fieldPath() == null ? "" : c.rule().fieldPath());
            if (field.startsWith(".")) {
                field = field.substring(1);
            }
            try {
                Object result = run(c.program(), vars);
                if (!Boolean.TRUE.equals(result)) {
                    causes.add(failure(c, vars, s, field));
                }
            } catch (CelEvaluationException | RuntimeException e) {
                causes.add(ApiException.cause(field, "FieldValueInvalid", "Invalid value: " + GoStrings.quote(
                        typeOf(s)) + ": " + evaluationError(e)));
            }
        }
    }

    private static Object run(CelRuntime.Program program, Map<String, Object> vars) throws CelEvaluationException {
        return CelValues.run(program, vars, PER_CALL_LIMIT);
    }

    private static String evaluationError(Exception e) {
        if (CelValues.costExceeded(e)) {
            return "validation failed due to running out of cost budget, no further validation rules will be run";
        }
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m.replaceFirst("^evaluation error: ", "");
    }

    private StatusCause failure(Compiled c, Map<String, Object> vars, StructuralSchema s, String field) {
        String message = c.rule().message() != null && !c.rule().message().isEmpty() ? c.rule().message()
                : "failed rule: " + c.rule().rule().trim();
        if (c.message() != null) {
            try {
                Object m = run(c.message(), vars);
                if (m instanceof String text && !text.isBlank() && !text.contains("\n")) {
                    message = text;
                }
            } catch (CelEvaluationException | RuntimeException e) {
                // as Kubernetes: a messageExpression that fails leaves the static message (or the default)
            }
        }
        String reason = c.rule().reason() == null ? "FieldValueInvalid" : c.rule().reason();
        return switch (reason) {
            case "FieldValueForbidden" -> ApiException.cause(field, reason, "Forbidden: " + message);
            case "FieldValueRequired" -> ApiException.cause(field, reason, "Required value: " + message);
            case "FieldValueDuplicate" -> ApiException.cause(field, reason, "Duplicate value: " + message);
            default -> ApiException.cause(field, "FieldValueInvalid", "Invalid value: " + GoStrings.quote(typeOf(s))
                    + ": " + message);
        };
    }

    /** What Kubernetes shows as the invalid value of a failed rule: the node's type. */
    private static String typeOf(StructuralSchema s) {
        return s.type == null || s.type.isEmpty() ? "object" : s.type;
    }

    static Object toCel(JsonNode n) {
        return CelValues.of(n);
    }
}

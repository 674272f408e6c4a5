package io.cybernetes.admission.webhook;

import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.runtime.CelEvaluationException;
import io.cybernetes.admission.AccessChecker;
import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.CelAuthorizer;
import io.cybernetes.api.CelPrograms;
import io.cybernetes.api.CelValues;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An admission webhook's {@code matchConditions}: CEL expressions over {@code object},
 * {@code oldObject} (null on create, the object on delete), {@code request} (kind,
 * resource, subResource, name, namespace, operation, userInfo, dryRun) and {@code authorizer}, all of which must
 * be true for the webhook to be called. One that is false skips the webhook; one that fails
 * (when none is false) skips it under failurePolicy Ignore and forbids the request under
 * Fail, as kube-apiserver does. Expressions are
 * checked when the configuration is written and compiled once.
 */
public final class MatchConditions {

    /** The most conditions a webhook may have. */
    public static final int MAX = 64;
    /** What one webhook's conditions may spend together for a request. */
    static final long BUDGET = 2_500_000;
    private static final CelPrograms CEL = new CelPrograms(CelAuthorizer.declare(CelValues.builder())
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("request", SimpleType.DYN)
            .build(), 1_000_000);

    /** What the conditions say: call the webhook, skip it, or they could not be evaluated (why). */
    public record Outcome(boolean matched, String error) {
        static final Outcome MATCH = new Outcome(true, null);
        static final Outcome NO_MATCH = new Outcome(false, null);
    }

    private MatchConditions() {
    }

    /** Why the expression does not compile to a bool, or null when it does. */
    public static String compileError(String expression) {
        return CEL.compileError(expression, List.of(SimpleType.BOOL));
    }

    /** Evaluates the webhook's conditions for the request. */
    public static Outcome evaluate(JsonNode conditions, Attributes a, AccessChecker access) {
        if (conditions == null || !conditions.isArray() || conditions.isEmpty()) {
            return Outcome.MATCH;
        }
        Map<String, Object> vars = new HashMap<>();
        vars.put("object", a.object() == null ? NullValue.NULL_VALUE : CelValues.lazy(a.object()));
        vars.put("oldObject", a.oldObject() == null ? NullValue.NULL_VALUE : CelValues.lazy(a.oldObject()));
        vars.put("request", request(a));
        CelAuthorizer.bind(vars, access, a);
        List<String> errors = new ArrayList<>();
        // the webhook's conditions share one budget, as Kubernetes' (a quarter of a policy's)
        CelPrograms.Budget budget = new CelPrograms.Budget(BUDGET);
        for (JsonNode c : conditions) {
            String expression = c.path("expression").asString("");
            try {
                Object result = CEL.evaluate(expression, vars, budget);
                if (!(result instanceof Boolean b)) {
                    errors.add("expression '" + expression + "' resulted in error: must evaluate to bool");
                } else if (!b) {
                    return Outcome.NO_MATCH;
                }
            } catch (CelPrograms.BudgetExhausted spent) {
                return new Outcome(false, spent.getMessage());
            } catch (CelEvaluationException | CelValidationException | RuntimeException e) {
                errors.add("expression '" + expression + "' resulted in error: " + message(e));
            }
        }
        // one error as it is, several as Go's aggregate prints them
        return errors.isEmpty() ? Outcome.MATCH : new Outcome(false, errors.size() == 1 ? errors.get(0)
                : "[" + String.join(", ", errors) + "]");
    }

    /** What went wrong in an evaluation, as Kubernetes words it. */
    public static String message(Exception e) {
        if (CelValues.costExceeded(e)) {
            return "operation cancelled: actual cost limit exceeded";
        }
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        // cel-go's words for what dev.cel reports with its position: "no such key: name"
        m = m.replaceFirst("^evaluation error(?: at [^:]*:\\d+)?: ", "");
        return m.replaceFirst("^key '(.*)' is not present in map\\.?$", "no such key: $1");
    }

    /** The admission request as the expressions see it (the {@code request} variable, in policies too). */
    public static Object request(Attributes a) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("kind", Map.of("group", a.group(), "version", a.version(), "kind", a.kind()));
        r.put("resource", Map.of("group", a.group(), "version", a.version(), "resource", a.resource()));
        r.put("subResource", a.subresource());
        r.put("name", a.name());
        r.put("namespace", a.namespace());
        r.put("operation", a.operation().name());
        Map<String, Object> user = new LinkedHashMap<>();
        if (a.user() != null) {
            user.put("username", a.user().name());
            user.put("uid", a.user().uid() == null ? "" : a.user().uid());
            user.put("groups", List.copyOf(a.user().groups()));
            Map<String, Object> extra = new LinkedHashMap<>();
            a.user().extra().forEach((k, v) -> extra.put(k, List.copyOf(v)));
            user.put("extra", extra);
        }
        r.put("userInfo", user);
        r.put("dryRun", a.dryRun());
        return r;
    }
}

package io.cybernetes.api;

import dev.cel.bundle.Cel;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.CelType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Expressions of one CEL environment (admission match conditions, policies), checked when they are
 * written and compiled once when they run, evaluated under a step budget.
 */
public final class CelPrograms {

    private static final int MAX_PROGRAMS = 10_000;

    private final Cel cel;
    private final long stepLimit;
    private final Map<String, CelRuntime.Program> programs = new ConcurrentHashMap<>();

    public CelPrograms(Cel cel, long stepLimit) {
        this.cel = cel;
        this.stepLimit = stepLimit;
    }

    /**
     * Why the expression does not compile to one of the types wanted (the first named in the message;
     * none: any type), in Kubernetes' words; null when it does.
     */
    public String compileError(String expression, List<CelType> wanted) {
        CelValidationResult result = cel.compile(expression);
        if (result.hasError()) {
            return "compilation failed: " + result.getErrorString();
        }
        try {
            CelType type = result.getAst().getResultType();
            if (!wanted.isEmpty() && !type.equals(SimpleType.DYN) && !wanted.contains(type)) {
                return "must evaluate to " + wanted.get(0).name().toLowerCase(Locale.ROOT);
            }
            cel.createProgram(result.getAst());
            return null;
        } catch (CelValidationException | CelEvaluationException e) {
            return "compilation failed: " + e.getMessage();
        }
    }

    /** Evaluates the expression with the variables, within the budget. */
    public Object evaluate(String expression, Map<String, Object> vars) throws CelEvaluationException,
            CelValidationException {
        return CelValues.run(program(expression), vars, stepLimit);
    }

    /**
     * Evaluates the expression within the budget it shares with others: each takes from it what it spends, and
     * one that would spend more than is left stops with {@link BudgetExhausted}.
     */
    public Object evaluate(String expression, Map<String, Object> vars, Budget budget) throws CelEvaluationException,
            CelValidationException {
        if (budget.remaining <= 0) {
            throw new BudgetExhausted();
        }
        long limit = Math.min(stepLimit, budget.remaining);
        CelValues.Meter meter = new CelValues.Meter(limit);
        try {
            return CelValues.run(program(expression), vars, meter);
        } catch (CelEvaluationException | RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof BudgetExhausted inner) {
                    throw inner; // spent by an expression this one reads (a policy's variable)
                }
            }
            if (limit < stepLimit && CelValues.costExceeded(e)) {
                budget.remaining = 0;
                throw new BudgetExhausted();
            }
            throw e;
        } finally {
            budget.remaining = Math.max(0, budget.remaining - meter.spent());
        }
    }

    /** What the expressions of one evaluation (a policy with one set of parameters) may spend together. */
    public static final class Budget {
        private long remaining;

        public Budget(long total) {
            this.remaining = total;
        }
    }

    /** Thrown when an evaluation's shared budget runs out: Kubernetes runs no further expressions then. */
    public static final class BudgetExhausted extends RuntimeException {
        public static final String MESSAGE = "validation failed due to running out of cost budget, no further"
                + " validation rules will be run";

        BudgetExhausted() {
            super(MESSAGE, null, false, false);
        }
    }

    private CelRuntime.Program program(String expression) throws CelValidationException, CelEvaluationException {
        CelRuntime.Program p = programs.get(expression);
        if (p != null) {
            return p;
        }
        CelValidationResult result = cel.compile(expression);
        p = cel.createProgram(result.getAst());
        if (programs.size() >= MAX_PROGRAMS) {
            programs.clear();
        }
        programs.put(expression, p);
        return p;
    }
}

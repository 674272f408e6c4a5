package io.cybernetes.api;

import dev.cel.bundle.CelBuilder;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.values.NullValue;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CEL as Kubernetes evaluates it wherever it takes expressions (CRD validation rules,
 * admission match conditions): the standard macros, the strings, encoders and sets
 * libraries, a bound on comprehension iterations; and JSON values as CEL sees them.
 */
public final class CelValues {

    /** The most iterations one comprehension may make. */
    public static final int MAX_ITERATIONS = 100_000;

    private CelValues() {
    }

    /** A builder with Kubernetes' options and libraries; the caller declares its variables. */
    public static CelBuilder builder() {
        return CelFactory.standardCelBuilder()
                .setOptions(CelOptions.current().comprehensionMaxIterations(MAX_ITERATIONS)
                        .maxExpressionCodePointSize(100_000).enableTimestampEpoch(true)
                        .enableHeterogeneousNumericComparisons(true).build())
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .addCompilerLibraries(CelExtensions.strings(), CelExtensions.encoders(), CelExtensions.sets(
                        CelOptions.DEFAULT))
                .addRuntimeLibraries(CelExtensions.strings(), CelExtensions.encoders(), CelExtensions.sets(
                        CelOptions.DEFAULT));
    }

    /**
     * Evaluates the program, stopping it with {@link CostExceeded} once it has taken more than
     * {@code stepLimit} evaluation steps (how a cost budget is counted here).
     */
    public static Object run(dev.cel.runtime.CelRuntime.Program program, Map<String, Object> vars, long stepLimit)
            throws dev.cel.runtime.CelEvaluationException {
        return run(program, vars, new Meter(stepLimit));
    }

    /**
     * Evaluates the program on the meter: each step costs one, and functions that do more (an authorization
     * check) {@link #charge} more; past the meter's limit it stops with {@link CostExceeded}.
     */
    public static Object run(dev.cel.runtime.CelRuntime.Program program, Map<String, Object> vars, Meter meter)
            throws dev.cel.runtime.CelEvaluationException {
        Meter outer = RUNNING.get();
        RUNNING.set(meter);
        try {
            // resolved by name from the map itself: no copy of the variables for each evaluation
            dev.cel.runtime.CelVariableResolver resolver = name -> java.util.Optional.ofNullable(vars.get(name));
            return program.trace(resolver, (expr, result) -> meter.spend(1));
        } finally {
            RUNNING.set(outer);
        }
    }

    /** Adds the cost of work a function does beyond one step to the evaluation running on this thread. */
    public static void charge(long cost) {
        Meter meter = RUNNING.get();
        if (meter != null) {
            meter.spend(cost);
        }
    }

    private static final ThreadLocal<Meter> RUNNING = new ThreadLocal<>();

    /** What one evaluation may spend, and has spent. */
    public static final class Meter {
        private final long limit;
        private long spent;

        public Meter(long limit) {
            this.limit = limit;
        }

        void spend(long cost) {
            spent += cost;
            if (spent > limit) {
                throw new CostExceeded();
            }
        }

        public long spent() {
            return spent;
        }
    }

    /** Whether the failure was an evaluation stopped for spending more than its budget. */
    public static boolean costExceeded(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CostExceeded) {
                return true;
            }
        }
        return false;
    }

    /** Thrown from the evaluation listener to stop an expression that spends more than its budget. */
    public static final class CostExceeded extends RuntimeException {
        CostExceeded() {
            super("operation cancelled: actual cost limit exceeded", null, false, false);
        }
    }

    /**
     * A JSON value as CEL sees it, converted as the expression reaches into it: an object is a map whose
     * fields become CEL values when read, so an expression that looks at {@code object.spec.containers} of a
     * large object does not pay for converting all of it. Equal, as a map, to {@link #of}'s.
     */
    public static Object lazy(JsonNode n) {
        if (n != null && n.isObject()) {
            return new LazyObject((tools.jackson.databind.node.ObjectNode) n);
        }
        if (n != null && n.isArray()) {
            List<Object> l = new ArrayList<>(n.size());
            n.forEach(x -> l.add(lazy(x)));
            return l;
        }
        return of(n);
    }

    /**
     * A map for CEL whose values are made when an expression reads them by name; only iterating over it
     * (a comprehension over its keys, an equality) makes them all.
     */
    public abstract static class LazyMap extends java.util.AbstractMap<String, Object> {

        /** The keys. */
        protected abstract java.util.Collection<String> names();

        /** The value of a key the map has. */
        protected abstract Object valueOf(String name);

        @Override
        public Object get(Object key) {
            return containsKey(key) ? valueOf((String) key) : null;
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String && names().contains(key);
        }

        @Override
        public int size() {
            return names().size();
        }

        @Override
        public java.util.Set<Map.Entry<String, Object>> entrySet() {
            Map<String, Object> all = new LinkedHashMap<>();
            names().forEach(name -> all.put(name, valueOf(name)));
            return all.entrySet();
        }
    }

    /** A JSON object read as a CEL map, its fields converted when read. */
    private static final class LazyObject extends LazyMap {
        private final tools.jackson.databind.node.ObjectNode node;

        LazyObject(tools.jackson.databind.node.ObjectNode node) {
            this.node = node;
        }

        @Override
        protected java.util.Collection<String> names() {
            return node.propertyNames();
        }

        @Override
        protected Object valueOf(String name) {
            return lazy(node.get(name));
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String k && node.has(k);
        }
    }

    /** A JSON value as CEL sees it: maps, lists, int64, double, string, bool, null. */
    public static Object of(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return NullValue.NULL_VALUE;
        }
        if (n.isObject()) {
            Map<String, Object> m = new LinkedHashMap<>();
            n.properties().forEach(e -> m.put(e.getKey(), of(e.getValue())));
            return m;
        }
        if (n.isArray()) {
            List<Object> l = new ArrayList<>();
            n.forEach(x -> l.add(of(x)));
            return l;
        }
        if (n.isString()) {
            return n.asString();
        }
        if (n.isBoolean()) {
            return n.asBoolean();
        }
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            return n.asLong();
        }
        return n.asDouble();
    }
}

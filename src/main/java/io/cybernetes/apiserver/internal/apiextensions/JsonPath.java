package io.cybernetes.apiserver.internal.apiextensions;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The JSONPath of printer columns, as kubectl's and the apiserver's {@code jsonpath}
 * reads it without the braces: fields ({@code .spec.replicas}, {@code ['a.b']}), indices
 * ({@code [0]}, {@code [-1]}), wildcards ({@code [*]}, {@code .*}) and filters on a field
 * ({@code [?(@.type=="Ready")]}, with {@code ==}, {@code !=} or a bare existence test).
 */
public final class JsonPath {

    private sealed interface Step permits Field, Index, All, Filter {
    }

    private record Field(String name) implements Step {
    }

    private record Index(int index) implements Step {
    }

    private record All() implements Step {
    }

    private record Filter(List<Step> path, String op, String literal) implements Step {
    }

    private final List<Step> steps;

    private JsonPath(List<Step> steps) {
        this.steps = steps;
    }

    /** Parses a path that starts with '.' (or is just '.'); throws IllegalArgumentException when it is not one. */
    public static JsonPath parse(String text) {
        String t = text.trim();
        if (t.startsWith("{") && t.endsWith("}")) {
            t = t.substring(1, t.length() - 1).trim();
        }
        if (!t.startsWith(".") && !t.startsWith("[")) {
            throw new IllegalArgumentException("must start with .");
        }
        int[] pos = {0};
        List<Step> steps = steps(t, pos, false);
        if (pos[0] != t.length()) {
            throw new IllegalArgumentException("unexpected " + t.substring(pos[0]));
        }
        return new JsonPath(steps);
    }

    private static List<Step> steps(String t, int[] pos, boolean inFilter) {
        List<Step> steps = new ArrayList<>();
        while (pos[0] < t.length()) {
            char c = t.charAt(pos[0]);
            if (c == '.') {
                pos[0]++;
                int start = pos[0];
                while (pos[0] < t.length() && (Character.isLetterOrDigit(t.charAt(pos[0]))
                        || "_-/".indexOf(t.charAt(pos[0])) >= 0 || t.charAt(pos[0]) == '*')) {
                    pos[0]++;
                }
                String name = t.substring(start, pos[0]);
                if (name.equals("*")) {
                    steps.add(new All());
                } else if (!name.isEmpty()) {
                    steps.add(new Field(name));
                } else if (pos[0] < t.length() && t.charAt(pos[0]) != '[') {
                    throw new IllegalArgumentException("empty field name");
                }
            } else if (c == '[') {
                int end = closing(t, pos[0]);
                String inner = t.substring(pos[0] + 1, end).trim();
                pos[0] = end + 1;
                steps.add(bracket(inner));
            } else if (inFilter) {
                break;
            } else {
                throw new IllegalArgumentException("unexpected " + c);
            }
        }
        return steps;
    }

    private static int closing(String t, int open) {
        int depth = 0;
        char quote = 0;
        for (int i = open; i < t.length(); i++) {
            char c = t.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '[') {
                depth++;
            } else if (c == ']' && --depth == 0) {
                return i;
            }
        }
        throw new IllegalArgumentException("unclosed [");
    }

    private static Step bracket(String inner) {
        if (inner.equals("*")) {
            return new All();
        }
        if (inner.length() >= 2 && (inner.startsWith("'") && inner.endsWith("'")
                || inner.startsWith("\"") && inner.endsWith("\""))) {
            return new Field(inner.substring(1, inner.length() - 1));
        }
        if (inner.startsWith("?(") && inner.endsWith(")")) {
            String expr = inner.substring(2, inner.length() - 1).trim();
            if (!expr.startsWith("@")) {
                throw new IllegalArgumentException("a filter must start with @");
            }
            int[] pos = {1};
            List<Step> path = steps(expr, pos, true);
            String rest = expr.substring(pos[0]).trim();
            if (rest.isEmpty()) {
                return new Filter(path, null, null);
            }
            String op = rest.startsWith("==") ? "==" : rest.startsWith("!=") ? "!=" : null;
            if (op == null) {
                throw new IllegalArgumentException("unsupported filter " + rest);
            }
            String literal = rest.substring(2).trim();
            if (literal.length() >= 2 && (literal.startsWith("\"") || literal.startsWith("'"))) {
                literal = literal.substring(1, literal.length() - 1);
            }
            return new Filter(path, op, literal);
        }
        try {
            return new Index(Integer.parseInt(inner));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad index " + inner);
        }
    }

    /** Every value the path reaches in the object, in document order. */
    public List<JsonNode> find(JsonNode root) {
        List<JsonNode> current = List.of(root);
        for (Step step : steps) {
            current = apply(step, current);
        }
        return current;
    }

    /** The first value the path reaches, or null. */
    public JsonNode first(JsonNode root) {
        List<JsonNode> all = find(root);
        return all.isEmpty() ? null : all.get(0);
    }

    private static List<JsonNode> apply(Step step, List<JsonNode> in) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode n : in) {
            if (step instanceof Field f) {
                JsonNode v = n.isObject() ? n.get(f.name()) : null;
                if (v != null) {
                    out.add(v);
                }
            } else if (step instanceof Index i) {
                if (n.isArray()) {
                    int idx = i.index() < 0 ? n.size() + i.index() : i.index();
                    if (idx >= 0 && idx < n.size()) {
                        out.add(n.get(idx));
                    }
                }
            } else if (step instanceof All) {
                n.forEach(out::add);
            } else if (step instanceof Filter f) {
                for (JsonNode item : n) {
                    List<JsonNode> reached = List.of(item);
                    for (Step s : f.path()) {
                        reached = apply(s, reached);
                    }
                    if (matches(reached, f)) {
                        out.add(item);
                    }
                }
            }
        }
        return out;
    }

    private static boolean matches(List<JsonNode> reached, Filter f) {
        if (f.op() == null) {
            return !reached.isEmpty();
        }
        boolean equal = !reached.isEmpty() && text(reached.get(0)).equals(f.literal());
        return f.op().equals("==") == equal;
    }

    private static String text(JsonNode n) {
        return n.isString() ? n.asString() : n.toString();
    }
}

package io.cybernetes.api;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A parsed label selector in its string form, as {@code ?labelSelector=} carries it:
 * {@code a=b}, {@code a==b}, {@code a!=b}, {@code a in (x,y)}, {@code a notin (x,y)},
 * {@code a} (exists) and {@code !a} (does not exist), joined by commas (AND).
 */
public final class LabelSelector {

    /** One requirement on one label key. */
    public record Requirement(String key, Op op, Set<String> values) {
        boolean matches(Map<String, String> labels) {
            String v = labels.get(key);
            return switch (op) {
                case EQUALS, IN -> v != null && values.contains(v);
                case NOT_EQUALS, NOT_IN -> v == null || !values.contains(v);
                case EXISTS -> v != null;
                case DOES_NOT_EXIST -> v == null;
            };
        }
    }

    public enum Op { EQUALS, NOT_EQUALS, IN, NOT_IN, EXISTS, DOES_NOT_EXIST }

    private static final Pattern KEY = Pattern.compile(
            "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");
    private static final Pattern VALUE = Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");

    public static final LabelSelector EVERYTHING = new LabelSelector(List.of());

    private final List<Requirement> requirements;

    private LabelSelector(List<Requirement> requirements) {
        this.requirements = List.copyOf(requirements);
    }

    public static LabelSelector of(List<Requirement> requirements) {
        return new LabelSelector(requirements);
    }

    public List<Requirement> requirements() {
        return requirements;
    }

    public boolean isEmpty() {
        return requirements.isEmpty();
    }

    public boolean matches(Map<String, String> labels) {
        for (Requirement r : requirements) {
            if (!r.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The selector of a {@code metav1.LabelSelector} object ({@code matchLabels} and
     * {@code matchExpressions} with In, NotIn, Exists, DoesNotExist). Null or empty selects everything.
     */
    public static LabelSelector fromObject(JsonNode selector) {
        if (selector == null || !selector.isObject()) {
            return EVERYTHING;
        }
        List<Requirement> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : selector.path("matchLabels").properties()) {
            out.add(new Requirement(e.getKey(), Op.EQUALS, Set.of(e.getValue().asString())));
        }
        for (JsonNode expr : selector.path("matchExpressions")) {
            Set<String> values = new java.util.LinkedHashSet<>();
            expr.path("values").forEach(v -> values.add(v.asString()));
            String key = expr.path("key").asString("");
            String op = expr.path("operator").asString("");
            out.add(switch (op) {
                case "In" -> new Requirement(key, Op.IN, values);
                case "NotIn" -> new Requirement(key, Op.NOT_IN, values);
                case "Exists" -> new Requirement(key, Op.EXISTS, Set.of());
                case "DoesNotExist" -> new Requirement(key, Op.DOES_NOT_EXIST, Set.of());
                default -> throw ApiException.badRequest("\"" + op + "\" is not a valid label selector operator");
            });
        }
        return new LabelSelector(out);
    }

    /**
     * A workload's {@code spec.selector}: a {@code metav1.LabelSelector} object, or the plain
     * map of labels a ReplicationController has.
     */
    public static LabelSelector fromSpecSelector(JsonNode selector) {
        if (selector != null && selector.isObject() && !selector.isEmpty() && !selector.has("matchLabels")
                && !selector.has("matchExpressions")) {
            List<Requirement> out = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : selector.properties()) {
                out.add(new Requirement(e.getKey(), Op.EQUALS, Set.of(e.getValue().asString())));
            }
            return new LabelSelector(out);
        }
        return fromObject(selector);
    }

    /** Parses the string form; a malformed selector is a 400 BadRequest. */
    public static LabelSelector parse(String selector) {
        if (selector == null || selector.isBlank()) {
            return EVERYTHING;
        }
        List<Requirement> out = new ArrayList<>();
        for (String part : splitTopLevel(selector)) {
            out.add(requirement(part.trim(), selector));
        }
        return new LabelSelector(out);
    }

    /**
     * The selector, when its keys and values are valid labels and each operator has the values it takes
     * (as a selector object's requirements are checked); else a 400 BadRequest.
     */
    public static LabelSelector validated(LabelSelector selector) {
        String whole = selector.toString();
        for (Requirement r : selector.requirements) {
            key(r.key(), whole);
            r.values().forEach(v -> value(v, whole));
            if ((r.op() == Op.IN || r.op() == Op.NOT_IN) && r.values().isEmpty()) {
                throw invalid(whole, "for 'in', 'notin' operators, values set can't be empty");
            }
        }
        return selector;
    }

    private static List<String> splitTopLevel(String s) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(s.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(s.substring(start));
        return parts;
    }

    private static Requirement requirement(String p, String whole) {
        if (p.isEmpty()) {
            throw invalid(whole, "found ',', expected: !, identifier, or 'end of string'");
        }
        if (p.startsWith("!")) {
            return new Requirement(key(p.substring(1).trim(), whole), Op.DOES_NOT_EXIST, Set.of());
        }
        int paren = p.indexOf('(');
        if (paren > 0) {
            String head = p.substring(0, paren).trim();
            if (!p.endsWith(")")) {
                throw invalid(whole, "found '" + p + "', expected: ')'");
            }
            String[] words = head.split("\\s+");
            if (words.length != 2 || !(words[1].equals("in") || words[1].equals("notin"))) {
                throw invalid(whole, "found '" + head + "', expected: in, notin");
            }
            Set<String> values = new java.util.LinkedHashSet<>();
            for (String v : p.substring(paren + 1, p.length() - 1).split(",")) {
                values.add(value(v.trim(), whole));
            }
            return new Requirement(key(words[0], whole), words[1].equals("in") ? Op.IN : Op.NOT_IN, values);
        }
        int ne = p.indexOf("!=");
        if (ne > 0) {
            return new Requirement(key(p.substring(0, ne).trim(), whole), Op.NOT_EQUALS,
                    Set.of(value(p.substring(ne + 2).trim(), whole)));
        }
        int eq = p.indexOf('=');
        if (eq > 0) {
            int valueStart = p.startsWith("==", eq) ? eq + 2 : eq + 1;
            return new Requirement(key(p.substring(0, eq).trim(), whole), Op.EQUALS,
                    Set.of(value(p.substring(valueStart).trim(), whole)));
        }
        return new Requirement(key(p, whole), Op.EXISTS, Set.of());
    }

    private static String key(String k, String whole) {
        if (!KEY.matcher(k).matches() || k.length() > 317) {
            throw invalid(whole, "invalid label key \"" + k + "\"");
        }
        return k;
    }

    private static String value(String v, String whole) {
        if (!VALUE.matcher(v).matches() || v.length() > 63) {
            throw invalid(whole, "invalid label value: \"" + v + "\"");
        }
        return v;
    }

    private static ApiException invalid(String selector, String why) {
        return ApiException.badRequest("unable to parse requirement: " + why + " (in labelSelector \"" + selector + "\")");
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        for (Requirement r : requirements) {
            parts.add(switch (r.op()) {
                case EQUALS -> r.key() + "=" + r.values().iterator().next();
                case NOT_EQUALS -> r.key() + "!=" + r.values().iterator().next();
                case IN -> r.key() + " in (" + String.join(",", r.values()) + ")";
                case NOT_IN -> r.key() + " notin (" + String.join(",", r.values()) + ")";
                case EXISTS -> r.key();
                case DOES_NOT_EXIST -> "!" + r.key();
            });
        }
        return String.join(",", parts);
    }
}

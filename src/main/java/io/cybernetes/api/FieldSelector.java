package io.cybernetes.api;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A parsed field selector ({@code metadata.name=x,status.phase!=Running}). Only the
 * fields a kind indexes may be used, as in Kubernetes; anything else is a 400.
 */
public final class FieldSelector {

    /** One {@code field=value} or {@code field!=value} term. */
    public record Term(String field, boolean equals, String value) {
    }

    public static final FieldSelector EVERYTHING = new FieldSelector(List.of());

    private static final Set<String> COMMON = Set.of("metadata.name", "metadata.namespace");

    private final List<Term> terms;

    private FieldSelector(List<Term> terms) {
        this.terms = List.copyOf(terms);
    }

    public List<Term> terms() {
        return terms;
    }

    public boolean isEmpty() {
        return terms.isEmpty();
    }

    /** The fields a kind can be selected by: name and namespace, plus the kind's own. */
    public static Set<String> supportedFields(ResourceType type) {
        Set<String> fields = new java.util.HashSet<>(COMMON);
        switch (type.kind()) {
            case "Pod" -> fields.addAll(Set.of("spec.nodeName", "status.phase", "spec.schedulerName",
                    "spec.serviceAccountName", "spec.restartPolicy", "status.podIP", "status.nominatedNodeName"));
            case "Event" -> fields.addAll(Set.of("involvedObject.kind", "involvedObject.namespace",
                    "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion",
                    "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent",
                    "source", "type"));
            case "Namespace" -> fields.add("status.phase");
            case "Node" -> fields.add("spec.unschedulable");
            case "ReplicaSet" -> fields.add("status.replicas");
            case "Secret" -> fields.add("type");
            default -> { }
        }
        return fields;
    }

    public static FieldSelector parse(String selector, ResourceType type) {
        if (selector == null || selector.isBlank()) {
            return EVERYTHING;
        }
        Set<String> supported = supportedFields(type);
        List<Term> terms = terms(selector);
        for (Term t : terms) {
            if (!supported.contains(t.field())) {
                throw ApiException.badRequest("field label not supported: " + t.field());
            }
        }
        return new FieldSelector(terms);
    }

    /**
     * The terms of a field selector as Kubernetes parses one, whatever the fields: split at commas not
     * escaped by a backslash, sorted, each split at its first {@code !=}, {@code ==} or {@code =}, the value
     * unescaped ({@code \\}, {@code \,}, {@code \=}; a bare {@code ,} or {@code =} in it is refused). A term
     * without an operator or a bad value is a 400 BadRequest in Kubernetes' words.
     */
    public static List<Term> terms(String selector) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        boolean escaped = false;
        for (int i = 0; i < selector.length(); i++) {
            char c = selector.charAt(i);
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == ',') {
                parts.add(selector.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(selector.substring(start));
        parts.sort(null);
        List<Term> terms = new ArrayList<>();
        for (String part : parts) {
            if (part.isEmpty()) {
                continue;
            }
            Term t = term(part);
            if (t == null) {
                throw ApiException.badRequest("invalid selector: '" + selector + "'; can't understand '" + part + "'");
            }
            terms.add(t);
        }
        return terms;
    }

    private static Term term(String part) {
        for (int i = 0; i < part.length(); i++) {
            if (part.startsWith("!=", i)) {
                return new Term(part.substring(0, i), false, unescape(part.substring(i + 2)));
            }
            if (part.startsWith("==", i)) {
                return new Term(part.substring(0, i), true, unescape(part.substring(i + 2)));
            }
            if (part.charAt(i) == '=') {
                return new Term(part.substring(0, i), true, unescape(part.substring(i + 1)));
            }
        }
        return null;
    }

    private static String unescape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        boolean escaped = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (escaped) {
                if (c != '\\' && c != ',' && c != '=') {
                    throw ApiException.badRequest("invalid field selector: invalid escape sequence: \\" + c);
                }
                out.append(c);
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == ',' || c == '=') {
                throw ApiException.badRequest("invalid field selector: unescaped character in value: " + c);
            } else {
                out.append(c);
            }
        }
        if (escaped) {
            throw ApiException.badRequest("invalid field selector: invalid escape sequence: \\");
        }
        return out.toString();
    }

    /** Selector fields that name a nested field under another name, as Kubernetes' field label conversions do. */
    private static final java.util.Map<String, String> ALIASES = java.util.Map.of("source", "source.component");

    public boolean matches(JsonNode object) {
        for (Term t : terms) {
            String actual = Json.text(object, ALIASES.getOrDefault(t.field(), t.field()));
            if (actual == null) {
                actual = "";
            }
            if (actual.equals(t.value()) != t.equals()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return String.join(",", terms.stream().map(t -> t.field() + (t.equals() ? "=" : "!=") + t.value()).toList());
    }
}

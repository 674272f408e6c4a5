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
        List<Term> terms = new ArrayList<>();
        for (String part : selector.split(",")) {
            String p = part.trim();
            int ne = p.indexOf("!=");
            int eq = p.indexOf('=');
            Term t;
            if (ne > 0) {
                t = new Term(p.substring(0, ne).trim(), false, p.substring(ne + 2).trim());
            } else if (eq > 0) {
                int vs = p.startsWith("==", eq) ? eq + 2 : eq + 1;
                t = new Term(p.substring(0, eq).trim(), true, p.substring(vs).trim());
            } else {
                throw ApiException.badRequest("invalid field selector: '" + p + "': expected an operator (=, ==, !=)");
            }
            if (!supported.contains(t.field())) {
                throw ApiException.badRequest("field label not supported: " + t.field());
            }
            terms.add(t);
        }
        return new FieldSelector(terms);
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

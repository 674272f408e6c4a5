package io.cybernetes.auth;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.FieldSelector;
import io.cybernetes.api.LabelSelector;

import java.util.ArrayList;
import java.util.List;

/**
 * The field and label selectors a request narrows itself by, as Kubernetes hands them to
 * authorizers (authorization with selectors, GA in 1.34): requirements in the vocabulary of
 * the authorization API — a key, an operator ({@code In}, {@code NotIn}, and for labels
 * {@code Exists}, {@code DoesNotExist}) and values — so that an authorizer may allow a
 * list of only some objects ({@code spec.nodeName=node-1}). A selector that cannot be parsed
 * keeps what could be made of it and says why it could not; selectors only narrow, so an
 * authorizer that reads fewer requirements decides about more objects, never fewer.
 */
public record Selectors(List<Requirement> field, String fieldError, List<Requirement> label, String labelError) {

    /** Neither selector. */
    public static final Selectors NONE = new Selectors(List.of(), "", List.of(), "");

    public static final String IN = "In";
    public static final String NOT_IN = "NotIn";
    public static final String EXISTS = "Exists";
    public static final String DOES_NOT_EXIST = "DoesNotExist";

    /** One requirement: {@code key In [values]}. */
    public record Requirement(String key, String operator, List<String> values) {
        public Requirement {
            values = List.copyOf(values);
        }
    }

    public Selectors {
        field = List.copyOf(field);
        label = List.copyOf(label);
        fieldError = fieldError == null ? "" : fieldError;
        labelError = labelError == null ? "" : labelError;
    }

    /** The selectors of a request's {@code fieldSelector} and {@code labelSelector} parameters (null: absent). */
    public static Selectors parse(String fieldSelector, String labelSelector) {
        List<Requirement> field = List.of();
        String fieldError = "";
        if (fieldSelector != null && !fieldSelector.isEmpty()) {
            try {
                field = parseFields(fieldSelector);
            } catch (ApiException e) {
                fieldError = e.getMessage();
            }
        }
        List<Requirement> label = List.of();
        String labelError = "";
        if (labelSelector != null && !labelSelector.isEmpty()) {
            try {
                label = labels(LabelSelector.parse(labelSelector));
            } catch (ApiException e) {
                labelError = e.getMessage();
            }
        }
        return new Selectors(field, fieldError, label, labelError);
    }

    /** Whether the field selector requires {@code key} to equal {@code value} (so only such objects are asked for). */
    public boolean requiresField(String key, String value) {
        return field.stream().anyMatch(r -> r.key().equals(key) && r.operator().equals(IN)
                && r.values().equals(List.of(value)));
    }

    /** A label selector's requirements as the authorization API writes them. */
    public static List<Requirement> labels(LabelSelector selector) {
        List<Requirement> out = new ArrayList<>();
        for (LabelSelector.Requirement r : selector.requirements()) {
            String op = switch (r.op()) {
                case EQUALS, IN -> IN;
                case NOT_EQUALS, NOT_IN -> NOT_IN;
                case EXISTS -> EXISTS;
                case DOES_NOT_EXIST -> DOES_NOT_EXIST;
            };
            out.add(new Requirement(r.key(), op, new ArrayList<>(r.values())));
        }
        return out;
    }

    /** A field selector's terms (as {@link FieldSelector#terms} parses them) as requirements; a 400 when it does not parse. */
    private static List<Requirement> parseFields(String selector) {
        List<Requirement> out = new ArrayList<>();
        for (FieldSelector.Term t : FieldSelector.terms(selector)) {
            out.add(new Requirement(t.field(), t.equals() ? IN : NOT_IN, List.of(t.value())));
        }
        return out;
    }
}

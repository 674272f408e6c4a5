package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.store.StoredObject;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/** What a write answers: the object, the HTTP status and any warnings for the Warning header. */
public record Outcome(ObjectNode object, int code, List<String> warnings, String json) {

    public Outcome(ObjectNode object, int code, List<String> warnings) {
        this(object, code, warnings, null);
    }

    public static Outcome ok(ObjectNode object, List<String> warnings) {
        return new Outcome(object, 200, warnings);
    }

    public static Outcome stored(StoredObject stored, int code) {
        return new Outcome(stored.value(), code, List.of(), stored.json());
    }

    /** The same answer with more warnings after its own. */
    public Outcome withWarnings(List<String> more) {
        if (more.isEmpty()) {
            return this;
        }
        if (warnings.isEmpty()) {
            return new Outcome(object, code, more, json);
        }
        List<String> all = new java.util.ArrayList<>(warnings);
        all.addAll(more);
        return new Outcome(object, code, List.copyOf(all), json);
    }
}

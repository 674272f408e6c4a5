package io.cybernetes.apiserver.internal;

import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/** What a write answers: the object, the HTTP status and any warnings for the Warning header. */
record Outcome(ObjectNode object, int code, List<String> warnings) {

    static Outcome ok(ObjectNode object, List<String> warnings) {
        return new Outcome(object, 200, warnings);
    }
}

package io.cybernetes.api;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * JSON Patch (RFC 6902): what {@code kubectl patch --type=json} sends and what mutating
 * webhooks answer. A failing operation is a 422 naming it; a malformed one a 400.
 */
public final class JsonPatch {

    private JsonPatch() {
    }

    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (!patch.isArray()) {
            throw ApiException.badRequest("a JSON patch must be a list of operations");
        }
        JsonNode doc = target.deepCopy();
        for (JsonNode op : patch) {
            String kind = op.path("op").asString("");
            String path = op.path("path").asString(null);
            if (path == null) {
                throw ApiException.badRequest("JSON patch operation " + op + " has no path");
            }
            switch (kind) {
                case "add" -> doc = add(doc, path, required(op, "value"));
                case "remove" -> doc = remove(doc, path);
                case "replace" -> {
                    doc = remove(doc, path);
                    doc = add(doc, path, required(op, "value"));
                }
                case "move" -> {
                    String from = op.path("from").asString("");
                    JsonNode v = get(doc, from);
                    doc = remove(doc, from);
                    doc = add(doc, path, v);
                }
                case "copy" -> doc = add(doc, path, get(doc, op.path("from").asString("")).deepCopy());
                case "test" -> {
                    if (!get(doc, path).equals(required(op, "value"))) {
                        throw failed("testing value " + path + " failed");
                    }
                }
                default -> throw ApiException.badRequest("unexpected JSON patch operation \"" + kind + "\"");
            }
        }
        return doc;
    }

    private static JsonNode required(JsonNode op, String field) {
        JsonNode v = op.get(field);
        if (v == null) {
            throw ApiException.badRequest("JSON patch operation " + op + " is missing \"" + field + "\"");
        }
        return v.deepCopy();
    }

    private static List<String> tokens(String path) {
        if (path.isEmpty()) {
            return List.of();
        }
        if (!path.startsWith("/")) {
            throw ApiException.badRequest("JSON pointer must start with '/': " + path);
        }
        List<String> out = new ArrayList<>();
        for (String t : path.substring(1).split("/", -1)) {
            out.add(t.replace("~1", "/").replace("~0", "~"));
        }
        return out;
    }

    private static JsonNode get(JsonNode doc, String path) {
        JsonNode cur = doc;
        for (String t : tokens(path)) {
            cur = step(cur, t, path);
        }
        return cur;
    }

    private static JsonNode step(JsonNode cur, String token, String path) {
        JsonNode next = null;
        if (cur != null && cur.isObject()) {
            next = cur.get(token);
        } else if (cur != null && cur.isArray()) {
            int i = index(token, cur.size() - 1, path);
            next = cur.get(i);
        }
        if (next == null) {
            throw failed("path " + path + " does not exist");
        }
        return next;
    }

    private static JsonNode add(JsonNode doc, String path, JsonNode value) {
        List<String> t = tokens(path);
        if (t.isEmpty()) {
            return value;
        }
        JsonNode parent = doc;
        for (String s : t.subList(0, t.size() - 1)) {
            parent = step(parent, s, path);
        }
        String last = t.get(t.size() - 1);
        if (parent.isObject()) {
            ((ObjectNode) parent).set(last, value);
        } else if (parent.isArray()) {
            ArrayNode arr = (ArrayNode) parent;
            if (last.equals("-")) {
                arr.add(value);
            } else {
                arr.insert(index(last, arr.size(), path), value);
            }
        } else {
            throw failed("path " + path + " does not point into an object or list");
        }
        return doc;
    }

    private static JsonNode remove(JsonNode doc, String path) {
        List<String> t = tokens(path);
        if (t.isEmpty()) {
            throw failed("cannot remove the whole document");
        }
        JsonNode parent = doc;
        for (String s : t.subList(0, t.size() - 1)) {
            parent = step(parent, s, path);
        }
        String last = t.get(t.size() - 1);
        if (parent.isObject() && parent.has(last)) {
            ((ObjectNode) parent).remove(last);
        } else if (parent.isArray()) {
            ((ArrayNode) parent).remove(index(last, parent.size() - 1, path));
        } else {
            throw failed("path " + path + " does not exist");
        }
        return doc;
    }

    private static int index(String token, int max, String path) {
        try {
            int i = Integer.parseInt(token);
            if (i < 0 || i > max) {
                throw failed("index " + i + " out of bounds in " + path);
            }
            return i;
        } catch (NumberFormatException e) {
            throw failed("\"" + token + "\" is not a list index in " + path);
        }
    }

    private static ApiException failed(String message) {
        return ApiException.unprocessable("the patch could not be applied: " + message);
    }
}

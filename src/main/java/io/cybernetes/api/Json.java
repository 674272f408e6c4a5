package io.cybernetes.api;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** The one JSON (and YAML) mapper of the wire format, and small helpers for object trees. */
public final class Json {

    public static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    public static final YAMLMapper YAML = YAMLMapper.builder().build();

    private Json() {
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** Parses a JSON object; anything else (or malformed text) is a 400 BadRequest. */
    public static ObjectNode parseObject(byte[] body, boolean yaml) {
        JsonNode node;
        try {
            node = yaml ? YAML.readTree(body) : MAPPER.readTree(body);
        } catch (JacksonException e) {
            throw ApiException.badRequest("the body of the request could not be decoded: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw ApiException.badRequest("the body of the request must be a JSON or YAML object");
        }
        return (ObjectNode) node;
    }

    public static ObjectNode parseStored(String json) {
        return (ObjectNode) MAPPER.readTree(json);
    }

    public static String write(JsonNode node) {
        return MAPPER.writeValueAsString(node);
    }

    public static <T> T convert(JsonNode node, Class<T> type) {
        return MAPPER.treeToValue(node, type);
    }

    public static ObjectNode toTree(Object value) {
        return MAPPER.valueToTree(value);
    }

    /** The text at a dotted path (for example {@code metadata.name}), or null when absent or not a scalar. */
    public static String text(JsonNode node, String dottedPath) {
        JsonNode cur = node;
        for (String part : dottedPath.split("\\.")) {
            if (cur == null || !cur.isObject()) {
                return null;
            }
            cur = cur.get(part);
        }
        if (cur == null || cur.isNull() || cur.isContainer()) {
            return null;
        }
        return cur.asString();
    }

    /** The object at {@code name} inside {@code parent}, created when absent. */
    public static ObjectNode child(ObjectNode parent, String name) {
        JsonNode n = parent.get(name);
        if (n instanceof ObjectNode o) {
            return o;
        }
        return parent.putObject(name);
    }

    /** The strings of a JSON array (empty when the node is missing, null or not an array). */
    public static java.util.List<String> strings(JsonNode arr) {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (arr != null && arr.isArray()) {
            arr.forEach(n -> out.add(n.asString("")));
        }
        return java.util.List.copyOf(out);
    }

    /** Appends the values (none when null) to the array. */
    public static void addStrings(tools.jackson.databind.node.ArrayNode arr, java.util.Collection<String> values) {
        if (values != null) {
            values.forEach(arr::add);
        }
    }
}

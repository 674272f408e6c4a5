package io.cybernetes.api;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The one JSON (and YAML) mapper of the wire format, and small helpers for object trees. */
public final class Json {

    public static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    public static final YAMLMapper YAML = YAMLMapper.builder().build();

    /** Go's indentation: two spaces, {@code "name": value}, every array element on a line of its own. */
    private static final tools.jackson.databind.ObjectWriter PRETTY = MAPPER.writer().with(
            new tools.jackson.core.util.DefaultPrettyPrinter()
                    .withSeparators(tools.jackson.core.util.Separators.createDefaultInstance()
                            .withObjectNameValueSpacing(tools.jackson.core.util.Separators.Spacing.AFTER)
                            .withObjectEmptySeparator("")
                            .withArrayEmptySeparator(""))
                    .withArrayIndenter(new tools.jackson.core.util.DefaultIndenter("  ", "\n"))
                    .withObjectIndenter(new tools.jackson.core.util.DefaultIndenter("  ", "\n")));

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

    /**
     * The paths of the keys a JSON object repeats ({@code spec.replicas},
     * {@code spec.containers[0].name}), which a tree keeps only the last of: what strict
     * decoding in Kubernetes reports as duplicate fields. Empty for a body that is not JSON.
     */
    public static List<String> duplicateFields(byte[] json) {
        List<String> duplicates = new ArrayList<>();
        try (JsonParser p = MAPPER.createParser(json)) {
            if (p.nextToken() != null) {
                duplicates(p, "", duplicates);
            }
        } catch (JacksonException notJson) {
            // nothing to report: decoding it fails on its own
        }
        return duplicates;
    }

    /** Walks the value the parser is at (nesting is bounded by the parser's own depth limit). */
    private static void duplicates(JsonParser p, String path, List<String> found) {
        if (p.currentToken() == JsonToken.START_OBJECT) {
            Set<String> seen = new HashSet<>();
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                String child = path.isEmpty() ? name : path + "." + name;
                if (!seen.add(name)) {
                    found.add(child);
                }
                p.nextToken();
                duplicates(p, child, found);
            }
        } else if (p.currentToken() == JsonToken.START_ARRAY) {
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                duplicates(p, path + "[" + i++ + "]", found);
            }
        }
    }

    /**
     * Whether a response is to be indented, as kube-apiserver decides: a non-empty
     * {@code pretty} parameter decides alone (Go's {@code strconv.ParseBool}: {@code 1 t T
     * TRUE true True}); without one, clients people use by hand (a User-Agent starting
     * with {@code curl}, {@code Wget} or {@code Mozilla/5.0}) get indented JSON.
     */
    public static boolean prettyRequested(String prettyParameter, String userAgent) {
        if (prettyParameter != null && !prettyParameter.isEmpty()) {
            return switch (prettyParameter) {
                case "1", "t", "T", "TRUE", "true", "True" -> true;
                default -> false;
            };
        }
        return userAgent != null && (userAgent.startsWith("curl") || userAgent.startsWith("Wget")
                || userAgent.startsWith("Mozilla/5.0"));
    }

    /** JSON indented by two spaces, as Go's {@code json.MarshalIndent(v, "", "  ")} (no newline after it). */
    public static byte[] pretty(JsonNode node) {
        return PRETTY.writeValueAsBytes(node);
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
    public static List<String> strings(JsonNode arr) {
        List<String> out = new ArrayList<>();
        if (arr != null && arr.isArray()) {
            arr.forEach(n -> out.add(n.asString("")));
        }
        return List.copyOf(out);
    }

    /** Appends the values (none when null) to the array. */
    public static void addStrings(tools.jackson.databind.node.ArrayNode arr, java.util.Collection<String> values) {
        if (values != null) {
            values.forEach(arr::add);
        }
    }
}

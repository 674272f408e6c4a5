package io.cybernetes.api;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The one JSON (and YAML) mapper of the wire format, and small helpers for object trees. */
public final class Json {

    public static final JsonMapper MAPPER = JsonMapper.builder()
            .nodeFactory(CompactNodeFactory.INSTANCE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            // a number keeps what it says (1e400 is not Infinity), so a field's range can be checked against it
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    /** YAML bodies: the first document is the object, as Kubernetes reads them (the rest is not looked at). */
    public static final YAMLMapper YAML = YAMLMapper.builder()
            .nodeFactory(CompactNodeFactory.INSTANCE)
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

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
        return CompactNodeFactory.INSTANCE.objectNode();
    }

    /** Parses a JSON object; anything else (or malformed text) is a 400 BadRequest. */
    public static ObjectNode parseObject(byte[] body, boolean yaml) {
        return parseObject(body, yaml, null);
    }

    /**
     * Parses a request's object, refusing anything else with kube-apiserver's words: Go's
     * JSON syntax error, or the YAML parser's, after {@code the object provided is
     * unrecognized (must be of type Kind)} when the kind the URL wants is known, and Go's
     * summary of the body. Bytes that are not UTF-8 inside a JSON string become U+FFFD, as
     * Go reads them.
     */
    public static ObjectNode parseObject(byte[] body, boolean yaml, String kind) {
        JsonNode node;
        try {
            node = yaml ? YAML.readTree(body) : MAPPER.readTree(body);
        } catch (JacksonException e) {
            node = yaml ? null : lenientUtf8(body);
            if (node == null) {
                throw unrecognized(kind, yaml ? yamlError(e) : jsonError(body, e), body);
            }
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw unrecognized(kind, yaml ? "yaml: document is empty" : "unexpected end of JSON input", body);
        }
        if (!node.isObject()) {
            String what = node.isArray() ? "array" : node.isString() ? "string" : node.isBoolean() ? "bool" : "number";
            throw unrecognized(kind, "json: cannot unmarshal " + what + " into Go value of type struct { APIVersion"
                    + " string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }", body);
        }
        return (ObjectNode) node;
    }

    /** The body read again with bytes that are not UTF-8 taken as U+FFFD, as Go takes them; null if still not JSON. */
    private static JsonNode lenientUtf8(byte[] body) {
        if (GoJsonSyntax.errorOf(body) != null) {
            return null;
        }
        try {
            return MAPPER.readTree(new String(body, java.nio.charset.StandardCharsets.UTF_8));
        } catch (JacksonException stillNot) {
            return null;
        }
    }

    private static String jsonError(byte[] body, JacksonException e) {
        String go = GoJsonSyntax.errorOf(body);
        if (go != null) {
            return go;
        }
        // well-formed, but past what this parser takes (nesting, a number's or a name's length)
        return "invalid character '" + (body.length > 0 ? (char) body[0] : ' ') + "' exceeded max depth";
    }

    /** The YAML parser's problem as go-yaml words its errors: {@code yaml: line 2: <problem>}. */
    private static String yamlError(JacksonException e) {
        Throwable cause = e;
        while (cause != null && !(cause instanceof org.yaml.snakeyaml.error.MarkedYAMLException)) {
            cause = cause.getCause();
        }
        if (cause instanceof org.yaml.snakeyaml.error.MarkedYAMLException marked) {
            String problem = marked.getProblem() == null ? "could not parse" : marked.getProblem();
            return marked.getProblemMark() == null ? "yaml: " + problem
                    : "yaml: line " + (marked.getProblemMark().getLine() + 1) + ": " + problem;
        }
        String text = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (text.contains("UTF-8") || text.contains("special characters")) {
            return "yaml: invalid leading UTF-8 octet";
        }
        return "yaml: could not parse the document";
    }

    private static ApiException unrecognized(String kind, String why, byte[] body) {
        String detail = (why.startsWith("yaml:") ? why : "couldn't get version/kind; json parse error: " + why)
                + " (" + GoJsonSyntax.summary(body) + ")";
        return ApiException.badRequest(kind == null ? detail
                : "the object provided is unrecognized (must be of type " + kind + "): " + detail);
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

    /**
     * The keys a YAML (or JSON) document repeats within one mapping, as Go's YAML decoder
     * reports them in strict mode: {@code line 5: key "a" already set in map}. Empty for a
     * document that does not parse (decoding it fails on its own).
     */
    public static List<String> repeatedYamlKeys(byte[] yaml) {
        List<String> found = new ArrayList<>();
        try (JsonParser p = YAML.createParser(yaml)) {
            java.util.Deque<Set<String>> open = new java.util.ArrayDeque<>();
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                switch (t) {
                    case START_OBJECT -> open.push(new HashSet<>());
                    case END_OBJECT -> open.pop();
                    case PROPERTY_NAME -> {
                        if (!open.isEmpty() && !open.peek().add(p.currentName())) {
                            found.add("line " + p.currentTokenLocation().getLineNr() + ": key "
                                    + GoStrings.quote(p.currentName()) + " already set in map");
                        }
                    }
                    default -> {
                    }
                }
            }
        } catch (JacksonException notYaml) {
            // nothing to report: decoding it fails on its own
        }
        return found;
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

package io.cybernetes.apiserver.internal.openapi;

import com.google.protobuf.CodedOutputStream;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * A Swagger 2.0 document in the protobuf form kubectl asks for first
 * ({@code application/com.github.proto-openapi.spec.v2@v1.0+protobuf}, answered as
 * {@code ...spec.v2.v1.0+protobuf} as kube-apiserver answers it): gnostic's
 * {@code openapi.v2.Document}, written field by field. Maps are lists of named pairs in
 * document order, vendor extensions ({@code x-...}) carry their value as YAML text (JSON
 * is YAML), and oneofs are chosen as gnostic chooses them: a body parameter or a query or
 * path one, a schema or a boolean for additional properties. A key the encoder does not
 * know is a mistake in the document and fails loudly rather than being left out.
 */
final class OpenApiV2Protobuf {

    /** What clients ask for (client-go's name, with an '@'). */
    static final String ACCEPTED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    /** What is answered, and accepted too: the same with a '.', a media type Go's parser reads. */
    static final String MEDIA_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

    private OpenApiV2Protobuf() {
    }

    static byte[] encode(ObjectNode doc) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : doc.properties()) {
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "swagger" -> m.string(1, v.asString());
                case "info" -> m.message(2, info(v));
                case "paths" -> m.message(8, paths(v));
                case "definitions" -> m.message(9, named(v, 1, OpenApiV2Protobuf::schema));
                case "security" -> v.forEach(req -> m.message(12, named(req, 1, OpenApiV2Protobuf::stringArray)));
                case "securityDefinitions" -> m.message(13, named(v, 1, OpenApiV2Protobuf::securityDefinition));
                default -> unknown("document", e.getKey());
            }
        }
        return m.bytes();
    }

    private static Message info(JsonNode info) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : info.properties()) {
            switch (e.getKey()) {
                case "title" -> m.string(1, e.getValue().asString());
                case "version" -> m.string(2, e.getValue().asString());
                case "description" -> m.string(3, e.getValue().asString());
                default -> unknown("info", e.getKey());
            }
        }
        return m;
    }

    private static Message paths(JsonNode paths) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : paths.properties()) {
            m.message(2, new Message().string(1, e.getKey()).message(2, pathItem(e.getValue())));
        }
        return m;
    }

    private static Message pathItem(JsonNode item) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : item.properties()) {
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "get" -> m.message(2, operation(v));
                case "put" -> m.message(3, operation(v));
                case "post" -> m.message(4, operation(v));
                case "delete" -> m.message(5, operation(v));
                case "options" -> m.message(6, operation(v));
                case "head" -> m.message(7, operation(v));
                case "patch" -> m.message(8, operation(v));
                case "parameters" -> v.forEach(p -> m.message(9, parametersItem(p)));
                default -> m.extension(10, e.getKey(), v, "path item");
            }
        }
        return m;
    }

    private static Message operation(JsonNode op) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : op.properties()) {
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "tags" -> v.forEach(t -> m.string(1, t.asString()));
                case "summary" -> m.string(2, v.asString());
                case "description" -> m.string(3, v.asString());
                case "operationId" -> m.string(5, v.asString());
                case "produces" -> v.forEach(t -> m.string(6, t.asString()));
                case "consumes" -> v.forEach(t -> m.string(7, t.asString()));
                case "parameters" -> v.forEach(p -> m.message(8, parametersItem(p)));
                case "responses" -> m.message(9, responses(v));
                case "schemes" -> v.forEach(t -> m.string(10, t.asString()));
                case "deprecated" -> m.bool(11, v.asBoolean());
                default -> m.extension(13, e.getKey(), v, "operation");
            }
        }
        return m;
    }

    /** A parameter: a body parameter, or a query or path one (gnostic's oneofs, nested). */
    private static Message parametersItem(JsonNode p) {
        String in = p.path("in").asString();
        Message parameter = new Message();
        switch (in) {
            case "body" -> parameter.message(1, bodyParameter(p));
            case "query" -> parameter.message(2, new Message().message(3, subSchema(p, true)));
            case "path" -> parameter.message(2, new Message().message(4, subSchema(p, false)));
            default -> unknown("parameter location", in);
        }
        return new Message().message(1, parameter);
    }

    private static Message bodyParameter(JsonNode p) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : p.properties()) {
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "description" -> m.string(1, v.asString());
                case "name" -> m.string(2, v.asString());
                case "in" -> m.string(3, v.asString());
                case "required" -> m.bool(4, v.asBoolean());
                case "schema" -> m.message(5, schema(v));
                default -> m.extension(6, e.getKey(), v, "body parameter");
            }
        }
        return m;
    }

    /** A query parameter's sub-schema, or a path parameter's (the same fields, numbered apart after name). */
    private static Message subSchema(JsonNode p, boolean query) {
        int shift = query ? 1 : 0; // a query parameter has allowEmptyValue (5) where a path one has none
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : p.properties()) {
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "required" -> m.bool(1, v.asBoolean());
                case "in" -> m.string(2, v.asString());
                case "description" -> m.string(3, v.asString());
                case "name" -> m.string(4, v.asString());
                case "type" -> m.string(5 + shift, v.asString());
                case "format" -> m.string(6 + shift, v.asString());
                case "uniqueItems" -> m.bool(19 + shift, v.asBoolean());
                default -> m.extension(22 + shift, e.getKey(), v, "parameter");
            }
        }
        return m;
    }

    private static Message responses(JsonNode responses) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : responses.properties()) {
            Message response = new Message();
            for (Map.Entry<String, JsonNode> f : e.getValue().properties()) {
                switch (f.getKey()) {
                    case "description" -> response.string(1, f.getValue().asString());
                    case "schema" -> response.message(2, new Message().message(1, schema(f.getValue())));
                    default -> response.extension(5, f.getKey(), f.getValue(), "response");
                }
            }
            m.message(1, new Message().string(1, e.getKey()).message(2, new Message().message(1, response)));
        }
        return m;
    }

    private static Message schema(JsonNode s) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : s.properties()) {
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "$ref" -> m.string(1, v.asString());
                case "format" -> m.string(2, v.asString());
                case "title" -> m.string(3, v.asString());
                case "description" -> m.string(4, v.asString());
                case "default" -> m.message(5, any(v));
                case "maximum" -> m.number(7, v.asDouble());
                case "minimum" -> m.number(9, v.asDouble());
                case "maxLength" -> m.int64(11, v.asLong());
                case "minLength" -> m.int64(12, v.asLong());
                case "pattern" -> m.string(13, v.asString());
                case "maxItems" -> m.int64(14, v.asLong());
                case "minItems" -> m.int64(15, v.asLong());
                case "uniqueItems" -> m.bool(16, v.asBoolean());
                case "required" -> v.forEach(r -> m.string(19, r.asString()));
                case "enum" -> v.forEach(x -> m.message(20, any(x)));
                case "additionalProperties" -> m.message(21, v.isBoolean() ? new Message().bool(2, v.asBoolean())
                        : new Message().message(1, schema(v)));
                case "type" -> m.message(22, new Message().string(1, v.asString()));
                case "items" -> m.message(23, new Message().message(1, schema(v)));
                case "allOf" -> v.forEach(x -> m.message(24, schema(x)));
                case "properties" -> m.message(25, named(v, 1, OpenApiV2Protobuf::schema));
                case "readOnly" -> m.bool(27, v.asBoolean());
                default -> m.extension(31, e.getKey(), v, "schema");
            }
        }
        return m;
    }

    private static Message securityDefinition(JsonNode d) {
        if (!"apiKey".equals(d.path("type").asString())) {
            unknown("security definition type", d.path("type").asString());
        }
        Message key = new Message();
        for (Map.Entry<String, JsonNode> e : d.properties()) {
            switch (e.getKey()) {
                case "type" -> key.string(1, e.getValue().asString());
                case "name" -> key.string(2, e.getValue().asString());
                case "in" -> key.string(3, e.getValue().asString());
                case "description" -> key.string(4, e.getValue().asString());
                default -> key.extension(5, e.getKey(), e.getValue(), "security definition");
            }
        }
        return new Message().message(2, key);
    }

    private static Message stringArray(JsonNode values) {
        Message m = new Message();
        values.forEach(v -> m.string(1, v.asString()));
        return m;
    }

    /** gnostic's {@code Any}: the value as YAML text. */
    private static Message any(JsonNode v) {
        return new Message().string(2, Json.write(v) + "\n");
    }

    /** A map as gnostic writes one: a repeated message of (name 1, value 2) pairs under {@code field}. */
    private static Message named(JsonNode map, int field, java.util.function.Function<JsonNode, Message> value) {
        Message m = new Message();
        for (Map.Entry<String, JsonNode> e : map.properties()) {
            m.message(field, new Message().string(1, e.getKey()).message(2, value.apply(e.getValue())));
        }
        return m;
    }

    private static void unknown(String where, String key) {
        throw new IllegalStateException("the OpenAPI v2 protobuf encoding has no " + where + " field " + key);
    }

    /** One message being written. Empty strings and false are left out, as proto3 leaves defaults out. */
    private static final class Message {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        private final CodedOutputStream out = CodedOutputStream.newInstance(buffer);

        Message string(int field, String v) {
            if (v != null && !v.isEmpty()) {
                write(() -> out.writeString(field, v));
            }
            return this;
        }

        Message bool(int field, boolean v) {
            if (v) {
                write(() -> out.writeBool(field, true));
            }
            return this;
        }

        Message number(int field, double v) {
            write(() -> out.writeDouble(field, v));
            return this;
        }

        Message int64(int field, long v) {
            write(() -> out.writeInt64(field, v));
            return this;
        }

        Message message(int field, Message m) {
            byte[] bytes = m.bytes();
            write(() -> out.writeByteArray(field, bytes));
            return this;
        }

        /** A vendor extension ({@code x-...}) as a NamedAny; anything else is unknown. */
        Message extension(int field, String key, JsonNode v, String where) {
            if (!key.startsWith("x-")) {
                unknown(where, key);
            }
            return message(field, new Message().string(1, key).message(2, any(v)));
        }

        byte[] bytes() {
            write(out::flush);
            return buffer.toByteArray();
        }

        private interface Write {
            void run() throws IOException;
        }

        private static void write(Write w) {
            try {
                w.run();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

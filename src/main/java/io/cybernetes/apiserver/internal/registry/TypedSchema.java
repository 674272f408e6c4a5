package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.fieldmanager.FieldType;
import io.cybernetes.apiserver.internal.fieldmanager.TypedFieldType;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The schema of a built-in kind, its Go types as the fabric8 model mirrors them: decoded
 * as Go decodes JSON ({@link StrictDecoder}), written as Go encodes it (struct fields
 * present, empty maps left out), validated by {@link SchemaValidator}.
 */
public record TypedSchema(Schema schema) implements KindSchema {

    @Override
    public List<String> decode(ResourceType type, ObjectNode body, StrictDecoder.FieldValidation mode,
                               List<String> duplicateFields) {
        return StrictDecoder.decode(body, schema, type, mode, duplicateFields);
    }

    /**
     * The object as Go's JSON encoding of the kind's types writes it. {@code spec} and
     * {@code status} are struct fields, so present on every object (empty as {@code {}})
     * where the kind has them, as a client that reads them (the Python client's models)
     * expects; maps are {@code omitempty} in every Kubernetes type, so an empty or null map
     * ({@code annotations: {}}, as kubectl's diff patches send) is left out.
     */
    @Override
    public void normalize(ObjectNode body) {
        Map<String, Schema> fields = schema.properties();
        for (String field : List.of("spec", "status")) {
            Schema s = fields == null ? null : fields.get(field);
            if (s != null && s.type() == Schema.Type.OBJECT && !body.hasNonNull(field)) {
                body.putObject(field);
            }
        }
        dropEmptyMaps(body, schema);
    }

    @Override
    public FieldType fieldType() {
        return TypedFieldType.of(schema);
    }

    @Override
    public void validate(ObjectNode body, ObjectNode old, List<StatusCause> causes) {
        SchemaValidator.validate(body, schema, "", causes);
    }

    private static void dropEmptyMaps(JsonNode value, Schema schema) {
        if (schema == null || value == null) {
            return;
        }
        switch (schema.type()) {
            case OBJECT -> {
                if (value instanceof ObjectNode o && schema.properties() != null) {
                    List<String> empty = new ArrayList<>();
                    for (Map.Entry<String, JsonNode> e : o.properties()) {
                        Schema field = schema.properties().get(e.getKey());
                        if (field != null && field.type() == Schema.Type.MAP
                                && (e.getValue().isNull() || e.getValue().isObject() && e.getValue().isEmpty())) {
                            empty.add(e.getKey());
                        } else {
                            dropEmptyMaps(e.getValue(), field);
                        }
                    }
                    o.remove(empty);
                }
            }
            case ARRAY -> value.forEach(item -> dropEmptyMaps(item, schema.items()));
            case MAP -> value.forEach(item -> dropEmptyMaps(item, schema.items()));
            default -> {
            }
        }
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.apiextensions.CelRules;
import io.cybernetes.apiserver.internal.apiextensions.CustomResourceValues;
import io.cybernetes.apiserver.internal.apiextensions.StructuralSchema;
import io.cybernetes.apiserver.internal.fieldmanager.FieldType;
import io.cybernetes.apiserver.internal.fieldmanager.TypedFieldType;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The schema of a custom resource: its metadata decoded as ObjectMeta (a value of the
 * wrong type a 400, as for every kind), everything else pruned by the CRD's structural
 * schema (unknown fields reported as field validation asks), defaulted, then validated
 * with the schema's value constraints and its CEL rules.
 */
public final class CustomResourceSchema implements KindSchema {

    private final StructuralSchema schema;
    private final CelRules rules;
    private final Schema envelope;

    public CustomResourceSchema(StructuralSchema schema, SchemaRegistry schemas) {
        this.schema = schema;
        this.rules = CelRules.of(schema);
        this.envelope = new Schema(Schema.Type.OBJECT, "io.fabric8.kubernetes.api.model.GenericKubernetesResource",
                Map.of("apiVersion", Schema.scalar(Schema.Type.STRING), "kind", Schema.scalar(Schema.Type.STRING),
                        "metadata", schemas.schemaOf(ObjectMeta.class)), null);
    }

    public StructuralSchema structural() {
        return schema;
    }

    @Override
    public List<String> decode(ResourceType type, ObjectNode body, StrictDecoder.FieldValidation mode,
                               List<String> duplicateFields) {
        ObjectNode typeAndMeta = body.objectNode();
        for (String f : List.of("apiVersion", "kind", "metadata")) {
            if (body.has(f)) {
                typeAndMeta.set(f, body.get(f));
            }
        }
        List<String> unknown = new ArrayList<>(StrictDecoder.unknownFields(typeAndMeta, envelope, type.kind(),
                type.version()));
        unknown.addAll(CustomResourceValues.prune(body, schema));
        return StrictDecoder.report(type.kind(), type.version(), mode, unknown, duplicateFields);
    }

    /** The structural schema's, with metadata as ObjectMeta. */
    @Override
    public FieldType fieldType() {
        FieldType root = schema.fieldType();
        FieldType meta = TypedFieldType.of(envelope.properties().get("metadata"));
        return new FieldType() {
            @Override
            public Kind kind() {
                return Kind.STRUCT;
            }

            @Override
            public FieldType field(String name) {
                return name.equals("metadata") ? meta : root.field(name);
            }

            @Override
            public FieldType items() {
                return root.items();
            }

            @Override
            public List<String> keys() {
                return List.of();
            }
        };
    }

    @Override
    public void afterMutation(ObjectNode body) {
        CustomResourceValues.prune(body, schema);
        CustomResourceValues.applyDefaults(body, schema);
    }

    @Override
    public ObjectNode onRead(ObjectNode stored) {
        if (!CustomResourceValues.lacksDefaults(stored, schema)) {
            return stored;
        }
        ObjectNode copy = stored.deepCopy();
        CustomResourceValues.applyDefaults(copy, schema);
        return copy;
    }

    @Override
    public boolean strategicMerge() {
        return false;
    }

    @Override
    public void normalize(ObjectNode body) {
        CustomResourceValues.applyDefaults(body, schema);
    }

    @Override
    public void validate(ObjectNode body, ObjectNode old, List<StatusCause> causes) {
        int before = causes.size();
        CustomResourceValues.validate(body, schema, causes);
        if (causes.size() == before) {
            // rules assume the values have their schema's types: only a structurally valid object is given to them
            rules.validate(body, old, schema, causes);
        }
    }

}

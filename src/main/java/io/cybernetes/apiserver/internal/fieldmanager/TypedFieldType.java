package io.cybernetes.apiserver.internal.fieldmanager;

import io.cybernetes.apiserver.internal.registry.Schema;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A built-in kind's schema node for field management: the Go types (as the fabric8 model
 * mirrors them) with the list types Kubernetes declares on them ({@code +listType},
 * {@code +listMapKey}); a list Kubernetes declares nothing for is atomic, as
 * structured-merge-diff takes it.
 */
public final class TypedFieldType implements FieldType {

    /** The keyed lists of the built-in kinds, by Go struct and field, with their keys. */
    private static final Map<String, List<String>> KEYED = Map.ofEntries(
            Map.entry("PodSpec.containers", List.of("name")),
            Map.entry("PodSpec.initContainers", List.of("name")),
            Map.entry("PodSpec.ephemeralContainers", List.of("name")),
            Map.entry("PodSpec.volumes", List.of("name")),
            Map.entry("PodSpec.imagePullSecrets", List.of("name")),
            Map.entry("PodSpec.hostAliases", List.of("ip")),
            Map.entry("PodSpec.topologySpreadConstraints", List.of("topologyKey", "whenUnsatisfiable")),
            Map.entry("PodSpec.schedulingGates", List.of("name")),
            Map.entry("PodSpec.resourceClaims", List.of("name")),
            Map.entry("Container.ports", List.of("containerPort", "protocol")),
            Map.entry("Container.env", List.of("name")),
            Map.entry("Container.volumeMounts", List.of("mountPath")),
            Map.entry("Container.volumeDevices", List.of("devicePath")),
            Map.entry("EphemeralContainer.ports", List.of("containerPort", "protocol")),
            Map.entry("EphemeralContainer.env", List.of("name")),
            Map.entry("EphemeralContainer.volumeMounts", List.of("mountPath")),
            Map.entry("ObjectMeta.ownerReferences", List.of("uid")),
            Map.entry("PodStatus.conditions", List.of("type")),
            Map.entry("NodeStatus.conditions", List.of("type")),
            Map.entry("NodeStatus.addresses", List.of("type")),
            Map.entry("NamespaceStatus.conditions", List.of("type")),
            Map.entry("DeploymentStatus.conditions", List.of("type")),
            Map.entry("ReplicaSetStatus.conditions", List.of("type")),
            Map.entry("ServiceSpec.ports", List.of("port", "protocol")));

    /** The defaults Kubernetes declares on key fields ({@code +default}), by Go struct and field. */
    private static final Map<String, JsonNode> KEY_DEFAULTS = Map.of(
            "ContainerPort.protocol", StringNode.valueOf("TCP"),
            "ServicePort.protocol", StringNode.valueOf("TCP"));

    /** The lists Kubernetes declares as sets. */
    private static final Set<String> SETS = Set.of("ObjectMeta.finalizers", "NamespaceSpec.finalizers");

    private final Schema schema;
    private final Kind kind;
    private final List<String> keys;
    private final JsonNode defaultValue;

    private TypedFieldType(Schema schema, Kind kind, List<String> keys, JsonNode defaultValue) {
        this.schema = schema;
        this.kind = kind;
        this.keys = keys;
        this.defaultValue = defaultValue;
    }

    /** The field type of a kind's schema. */
    public static FieldType of(Schema schema) {
        return of(schema, null);
    }

    private static FieldType of(Schema schema, String structField) {
        return switch (schema.type()) {
            case OBJECT -> new TypedFieldType(schema, Kind.STRUCT, List.of(), null);
            case MAP -> new TypedFieldType(schema, Kind.MAP, List.of(), null);
            case ARRAY -> {
                List<String> k = structField == null ? null : KEYED.get(structField);
                yield k != null ? new TypedFieldType(schema, Kind.KEYED_LIST, k, null)
                        : new TypedFieldType(schema, structField != null && SETS.contains(structField) ? Kind.SET
                        : Kind.ATOMIC, List.of(), null);
            }
            case FREE -> DEDUCED;
            default -> new TypedFieldType(schema, Kind.SCALAR, List.of(),
                    structField == null ? null : KEY_DEFAULTS.get(structField));
        };
    }

    @Override
    public Kind kind() {
        return kind;
    }

    @Override
    public FieldType field(String name) {
        if (kind == Kind.MAP) {
            return of(schema.items(), null);
        }
        Schema child = schema.properties() == null ? null : schema.properties().get(name);
        if (child == null) {
            return null;
        }
        String struct = schema.typeName() == null ? "" : schema.typeName().substring(schema.typeName().lastIndexOf('.') + 1);
        return of(child, struct + "." + name);
    }

    @Override
    public FieldType items() {
        return of(schema.items(), null);
    }

    @Override
    public List<String> keys() {
        return keys;
    }

    @Override
    public JsonNode defaultValue() {
        return defaultValue;
    }
}

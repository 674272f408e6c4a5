package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.SchemaRegistry;
import io.cybernetes.apiserver.internal.registry.StrictDecoder;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.kubernetes.client.proto.Runtime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every field of every served kind that kubectl may send as Protocol Buffers decodes to
 * the JSON the kind's Go model writes: a message with every field set, decoded, passes
 * strict decoding against the kind's schema (no field unknown to it, none of another
 * type) and the model writes it back as it came. A field protobuf carries apart that
 * JSON inlines (a Volume's source) would be unknown.
 */
class ProtobufRoundTripTest {

    private static final Map<String, String> OUTER = Map.of("", "V1", "apps", "V1Apps", "rbac.authorization.k8s.io",
            "V1Rbac", "coordination.k8s.io", "V1Coordination", "scheduling.k8s.io", "V1Scheduling",
            "admissionregistration.k8s.io", "V1Admissionregistration");

    private static final SchemaRegistry SCHEMAS = new SchemaRegistry();

    /** Fields the protobuf library has from Kubernetes releases after 1.32, which this server speaks. */
    private static final java.util.Set<String> AFTER_1_32 = java.util.Set.of("PodSpec.workloadRef");

    static Stream<ResourceType> kinds() {
        return ResourceRegistry.builtIn().all().stream().filter(t -> !t.view() && OUTER.containsKey(t.group()))
                .filter(t -> protoClass(t) != null);
    }

    private static Class<?> protoClass(ResourceType t) {
        try {
            return Class.forName("io.kubernetes.client.proto." + OUTER.get(t.group()) + "$" + t.kind());
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /** A message with every field set to a sample of its type, nested down to {@code depth}. */
    private static Message full(Message.Builder b, int depth) {
        String type = b.getDescriptorForType().getName();
        switch (type) {
            case "Time", "MicroTime" -> {
                return b.setField(field(b, "seconds"), 1_700_000_000L).build();
            }
            case "Quantity" -> {
                return b.setField(field(b, "string"), "250m").build();
            }
            case "IntOrString" -> {
                return b.setField(field(b, "type"), 1L).setField(field(b, "strVal"), "25%").build();
            }
            case "RawExtension", "FieldsV1" -> {
                FieldDescriptor raw = field(b, "raw") != null ? field(b, "raw") : field(b, "Raw");
                return b.setField(raw, ByteString.copyFromUtf8("{\"f:a\":{}}")).build();
            }
            case "Duration" -> {
                return b.setField(field(b, "duration"), 1_500_000_000L).build();
            }
            default -> {
            }
        }
        for (FieldDescriptor fd : b.getDescriptorForType().getFields()) {
            if ((fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE && depth <= 0)
                    || AFTER_1_32.contains(type + "." + fd.getName())) {
                continue;
            }
            if (fd.isMapField()) {
                Message.Builder entry = b.newBuilderForField(fd);
                FieldDescriptor value = entry.getDescriptorForType().findFieldByName("value");
                entry.setField(entry.getDescriptorForType().findFieldByName("key"), "k");
                entry.setField(value, sample(entry, value, depth - 1));
                b.addRepeatedField(fd, entry.build());
            } else if (fd.isRepeated()) {
                b.addRepeatedField(fd, sample(b, fd, depth - 1));
            } else {
                b.setField(fd, sample(b, fd, depth - 1));
            }
        }
        return b.build();
    }

    private static Object sample(Message.Builder parent, FieldDescriptor fd, int depth) {
        return switch (fd.getJavaType()) {
            case MESSAGE -> full(parent.newBuilderForField(fd), depth);
            case STRING -> "s";
            case INT -> 7;
            case LONG -> 7L;
            case BOOLEAN -> true;
            case BYTE_STRING -> ByteString.copyFromUtf8("ab");
            case DOUBLE -> 1.5d;
            case FLOAT -> 1.5f;
            case ENUM -> fd.getEnumType().getValues().get(0);
        };
    }

    private static FieldDescriptor field(Message.Builder b, String name) {
        return b.getDescriptorForType().findFieldByName(name);
    }

    private static byte[] envelope(ResourceType t, Message m) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {0x6b, 0x38, 0x73, 0x00});
        out.writeBytes(Runtime.Unknown.newBuilder()
                .setTypeMeta(Runtime.TypeMeta.newBuilder().setApiVersion(t.apiVersion()).setKind(t.kind()))
                .setRaw(m.toByteString()).build().toByteArray());
        return out.toByteArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void everyFieldDecodesToWhatTheJsonModelHolds(ResourceType type) throws Exception {
        Method newBuilder = protoClass(type).getMethod("newBuilder");
        Message full = full((Message.Builder) newBuilder.invoke(null), 9);
        ObjectNode json = ProtobufBodies.decode(envelope(type, full));
        // every field is one the kind's schema (its Go fields) has, of the type it has there
        ObjectNode checked = json.deepCopy();
        StrictDecoder.decode(checked, SCHEMAS.of(type), type, StrictDecoder.FieldValidation.STRICT, List.of());
        assertThat(checked).isEqualTo(json);
        // and the model reads it and writes it back as it came
        Object model = Json.MAPPER.treeToValue(json, type.modelClass());
        JsonNode written = Json.MAPPER.valueToTree(model);
        // the model gives the claims a StatefulSet embeds their apiVersion and kind, as the API server's defaults do
        for (JsonNode claim : written.path("spec").path("volumeClaimTemplates")) {
            ((ObjectNode) claim).remove(List.of("apiVersion", "kind"));
        }
        assertThat(written).as(type.kind()).isEqualTo(json);
    }
}

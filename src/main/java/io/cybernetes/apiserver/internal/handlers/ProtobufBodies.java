package io.cybernetes.apiserver.internal.handlers;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.CompactNodeFactory;
import io.cybernetes.api.GoStrings;
import io.cybernetes.api.Json;
import io.cybernetes.api.Times;
import io.kubernetes.client.proto.Runtime;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Request bodies in Kubernetes' protobuf encoding ({@code application/vnd.kubernetes.protobuf}),
 * which kubectl sends for imperative creates: the {@code k8s\0} magic, a
 * {@code runtime.Unknown} envelope naming apiVersion and kind, and the typed message,
 * decoded with the generated Kubernetes classes and turned into the JSON form the rest
 * of the server speaks (times as RFC 3339, int-or-string and quantities as scalars, bytes
 * as base64).
 */
public final class ProtobufBodies {

    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
    private static final byte[] MAGIC = {0x6b, 0x38, 0x73, 0x00};
    private static final String PROTO = "io.kubernetes.client.proto.";
    /** The generated outer class of each API group's messages. */
    private static final Map<String, String> OUTER = Map.ofEntries(
            Map.entry("", "V1"), Map.entry("apps", "V1Apps"), Map.entry("autoscaling", "V1Autoscaling"),
            Map.entry("rbac.authorization.k8s.io", "V1Rbac"), Map.entry("authorization.k8s.io", "V1Authorization"),
            Map.entry("authentication.k8s.io", "V1Authentication"), Map.entry("scheduling.k8s.io", "V1Scheduling"),
            Map.entry("batch", "V1Batch"), Map.entry("policy", "V1Policy"),
            Map.entry("admissionregistration.k8s.io", "V1Admissionregistration"),
            Map.entry("certificates.k8s.io", "V1Certificates"));
    private static final Map<String, Method> PARSERS = new ConcurrentHashMap<>();

    private ProtobufBodies() {
    }

    public static ObjectNode decode(byte[] body) {
        if (body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
            throw ApiException.badRequest("the protobuf body does not start with the Kubernetes magic number");
        }
        Runtime.Unknown envelope;
        try {
            envelope = Runtime.Unknown.parseFrom(Arrays.copyOfRange(body, MAGIC.length, body.length));
        } catch (InvalidProtocolBufferException e) {
            throw ApiException.badRequest("the protobuf body could not be decoded: " + e.getMessage());
        }
        String apiVersion = envelope.getTypeMeta().getApiVersion();
        String kind = envelope.getTypeMeta().getKind();
        Message message = parse(apiVersion, kind, envelope.getRaw());
        ObjectNode out = CompactNodeFactory.INSTANCE.objectNode();
        out.put("apiVersion", apiVersion);
        out.put("kind", kind);
        ((ObjectNode) toJson(message)).properties().forEach(e -> out.set(e.getKey(), e.getValue()));
        return out;
    }

    private static Message parse(String apiVersion, String kind, ByteString raw) {
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        String outer = OUTER.get(group);
        if (outer == null || !kind.matches("[A-Za-z0-9]+")) {
            throw ApiException.badRequest("no kind " + GoStrings.quote(kind) + " is registered for version "
                    + GoStrings.quote(apiVersion));
        }
        Method parser = PARSERS.computeIfAbsent(outer + "$" + kind, name -> {
            try {
                return Class.forName(PROTO + name).getMethod("parseFrom", ByteString.class);
            } catch (ReflectiveOperationException e) {
                return null;
            }
        });
        if (parser == null) {
            throw ApiException.badRequest("no kind " + GoStrings.quote(kind) + " is registered for version "
                    + GoStrings.quote(apiVersion));
        }
        try {
            return (Message) parser.invoke(null, raw);
        } catch (InvocationTargetException e) {
            // Go's protobuf words it so; the Java library's own text names its internals
            throw ApiException.badRequest("proto: cannot parse invalid wire-format data");
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JSON form of a message, as Kubernetes' JSON encoding writes the same object. */
    /**
     * The fields protobuf carries as a message of their own that JSON writes inline, as Go's
     * embedded structs ({@code json:",inline"}): a Volume's source, a Probe's handler, ...
     * (and every {@code localObjectReference}, the name of a ConfigMap or Secret referred to)
     */
    private static final java.util.Set<String> INLINE = java.util.Set.of("Volume.volumeSource",
            "PersistentVolumeSpec.persistentVolumeSource", "Probe.handler", "EphemeralContainer.ephemeralContainerCommon",
            "RuleWithOperations.rule", "NamedRuleWithOperations.ruleWithOperations");

    /** Field names protobuf capitalises and JSON does not (a DaemonEndpoint's Port is capitalised in both). */
    private static final java.util.Set<String> CAPITALISED = java.util.Set.of("Webhooks", "Expression", "Name");

    /** 0000-01-01T00:00:00Z, the earliest time RFC 3339 can write. */
    private static final long EARLIEST = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();

    public static JsonNode toJson(Message m) {
        JsonNodeFactory f = CompactNodeFactory.INSTANCE;
        String type = m.getDescriptorForType().getName();
        switch (type) {
            case "Time", "MicroTime" -> {
                if (m.getAllFields().isEmpty()) {
                    return f.nullNode();
                }
                long seconds = (Long) field(m, "seconds", 0L);
                int nanos = (Integer) field(m, "nanos", 0);
                if (seconds < EARLIEST || seconds > Times.LATEST.getEpochSecond() || nanos < 0 || nanos > 999_999_999) {
                    // Go could not write it as RFC 3339 either (years 0 to 9999)
                    throw ApiException.badRequest("a " + type + " of " + seconds + "s " + nanos
                            + "ns is outside the years 0 to 9999 a timestamp can hold");
                }
                Instant t = Instant.ofEpochSecond(seconds, nanos);
                return f.stringNode(type.equals("Time") ? t.truncatedTo(ChronoUnit.SECONDS).toString()
                        : DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
                        .withZone(java.time.ZoneOffset.UTC).format(t));
            }
            case "IntOrString" -> {
                long kind = ((Number) field(m, "type", 0L)).longValue();
                return kind == 1 ? f.stringNode((String) field(m, "strVal", "")) : f.numberNode((Integer) field(m, "intVal", 0));
            }
            case "Quantity" -> {
                return f.stringNode((String) field(m, "string", ""));
            }
            case "RawExtension", "FieldsV1" -> {
                // RawExtension calls it raw, FieldsV1 Raw
                ByteString raw = (ByteString) field(m, "raw", field(m, "Raw", ByteString.EMPTY));
                return raw.isEmpty() ? f.nullNode() : Json.MAPPER.readTree(raw.toByteArray());
            }
            case "Duration" -> {
                return f.stringNode(goDuration((Long) field(m, "duration", 0L)));
            }
            case "ExtraValue" -> {
                // a user's extra values: a list of strings in JSON, as Go's []string
                FieldDescriptor items = m.getDescriptorForType().findFieldByName("items");
                return value(items, m.getField(items));
            }
            default -> {
                // Go writes every non-pointer field into protobuf, empty or not; its JSON leaves the
                // empty ones out. Do the same, so that "" does not read as a value that was set.
                ObjectNode o = f.objectNode();
                for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
                    JsonNode v = value(e.getKey(), e.getValue());
                    boolean empty = v.isNull() || (v.isString() && v.asString().isEmpty())
                            || (v.isObject() && v.isEmpty());
                    if (empty) {
                        continue;
                    }
                    String name = e.getKey().getName();
                    if ((INLINE.contains(type + "." + name) || name.equals("localObjectReference"))
                            && v instanceof ObjectNode embedded) {
                        o.setAll(embedded); // an embedded Go struct: its fields are the object's own in JSON
                    } else {
                        // a few fields are capitalised in protobuf alone (a webhook configuration's Webhooks,
                        // a policy's validations' and variables' Expression and Name): JSON's are not
                        o.set(CAPITALISED.contains(name) ? Character.toLowerCase(name.charAt(0)) + name.substring(1)
                                : name, v);
                    }
                }
                return o;
            }
        }
    }

    private static JsonNode value(FieldDescriptor fd, Object v) {
        JsonNodeFactory f = CompactNodeFactory.INSTANCE;
        if (fd.isMapField()) {
            ObjectNode o = f.objectNode();
            for (Object entry : (List<?>) v) {
                Message kv = (Message) entry;
                FieldDescriptor key = kv.getDescriptorForType().findFieldByName("key");
                FieldDescriptor val = kv.getDescriptorForType().findFieldByName("value");
                o.set(String.valueOf(kv.getField(key)), scalar(val, kv.getField(val)));
            }
            return o;
        }
        if (fd.isRepeated()) {
            ArrayNode a = f.arrayNode();
            for (Object item : (List<?>) v) {
                a.add(scalar(fd, item));
            }
            return a;
        }
        return scalar(fd, v);
    }

    private static JsonNode scalar(FieldDescriptor fd, Object v) {
        JsonNodeFactory f = CompactNodeFactory.INSTANCE;
        return switch (fd.getJavaType()) {
            case MESSAGE -> toJson((Message) v);
            case BYTE_STRING -> f.stringNode(Base64.getEncoder().encodeToString(((ByteString) v).toByteArray()));
            case STRING -> f.stringNode((String) v);
            case BOOLEAN -> f.booleanNode((Boolean) v);
            case INT -> f.numberNode((Integer) v);
            case LONG -> f.numberNode((Long) v);
            case FLOAT -> f.numberNode((Float) v);
            case DOUBLE -> f.numberNode((Double) v);
            case ENUM -> f.stringNode(v.toString());
        };
    }

    private static Object field(Message m, String name, Object fallback) {
        FieldDescriptor fd = m.getDescriptorForType().findFieldByName(name);
        return fd == null || !m.hasField(fd) ? fallback : m.getField(fd);
    }

    /** A Go time.Duration string (1h2m3s, 1.5s, 250ms) from nanoseconds. */
    public static String goDuration(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        java.time.Duration d = java.time.Duration.ofNanos(Math.abs(nanos));
        StringBuilder sb = new StringBuilder(nanos < 0 ? "-" : "");
        if (d.toHours() > 0) {
            sb.append(d.toHours()).append('h');
        }
        if (d.toHours() > 0 || d.toMinutesPart() > 0) {
            sb.append(d.toMinutesPart()).append('m');
        }
        long subNanos = d.toNanosPart();
        sb.append(d.toSecondsPart());
        if (subNanos > 0) {
            sb.append('.').append(String.format("%09d", subNanos).replaceAll("0+$", ""));
        }
        return sb.append('s').toString();
    }
}

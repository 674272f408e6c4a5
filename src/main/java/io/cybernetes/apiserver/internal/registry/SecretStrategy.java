package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/** Secrets: type Opaque by default, and {@code stringData} folded into base64 {@code data}. */
public final class SecretStrategy implements KindStrategy {

    @Override
    public void prepareForCreate(ObjectNode obj) {
        fold(obj);
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        fold(obj);
    }

    public static void fold(ObjectNode obj) {
        PodSpecs.putIfAbsent(obj, "type", "Opaque");
        JsonNode stringData = obj.remove("stringData");
        if (stringData != null && stringData.isObject()) {
            ObjectNode data = Json.child(obj, "data");
            for (Map.Entry<String, JsonNode> e : stringData.properties()) {
                data.put(e.getKey(), Base64.getEncoder().encodeToString(
                        e.getValue().asString().getBytes(StandardCharsets.UTF_8)));
            }
        }
    }
}

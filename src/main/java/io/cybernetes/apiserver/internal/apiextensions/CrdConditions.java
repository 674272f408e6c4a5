package io.cybernetes.apiserver.internal.apiextensions;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The conditions of a CustomResourceDefinition's status (NamesAccepted, Established,
 * Terminating), set as apiextensions-apiserver's controllers set them, and the finalizer
 * that holds a deleted CRD until its instances are gone.
 */
public final class CrdConditions {

    /** Holds a deleted CRD until every instance of its kind is gone. */
    public static final String CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

    private CrdConditions() {
    }

    /** Whether the condition of that type is True. */
    public static boolean isTrue(JsonNode status, String type) {
        for (JsonNode c : status.path("conditions")) {
            if (type.equals(Json.text(c, "type"))) {
                return "True".equals(Json.text(c, "status"));
            }
        }
        return false;
    }

    /** Sets a condition of a CRD's status, keeping its transition time when its status has not changed. */
    public static void set(ObjectNode status, String type, String value, String reason, String message) {
        set(status, status.deepCopy(), type, value, reason, message);
    }

    /** As {@link #set(ObjectNode, String, String, String, String)}, the transition time kept from the old status. */
    public static void set(ObjectNode status, JsonNode old, String type, String value, String reason,
                           String message) {
        ArrayNode conditions = status.has("conditions") ? (ArrayNode) status.get("conditions")
                : status.putArray("conditions");
        String since = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        for (JsonNode c : old.path("conditions")) {
            if (type.equals(Json.text(c, "type")) && value.equals(Json.text(c, "status"))) {
                since = Json.text(c, "lastTransitionTime");
            }
        }
        ObjectNode c = Json.object();
        c.put("type", type);
        c.put("status", value);
        c.put("lastTransitionTime", since);
        c.put("reason", reason);
        c.put("message", message);
        for (int i = 0; i < conditions.size(); i++) {
            if (type.equals(Json.text(conditions.get(i), "type"))) {
                conditions.set(i, c);
                return;
            }
        }
        conditions.add(c);
    }
}

package io.cybernetes.admission.webhook;

import io.cybernetes.admission.Attributes;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Base64;
import java.util.UUID;

/**
 * Sends one AdmissionReview (admission.k8s.io/v1) to a webhook and reads its answer:
 * over HTTPS trusting the webhook's caBundle (or the JVM's trust store without one), or
 * over plain HTTP for local use, within the webhook's timeout. Anything but a well-formed
 * review answering this request's uid is a {@link WebhookException}, for the failure
 * policy to judge.
 */
final class WebhookCaller {

    /** A call that did not produce an answer: unreachable, slow, or malformed. */
    static final class WebhookException extends Exception {
        WebhookException(String message) {
            super(message);
        }
    }

    /** The webhook's answer. */
    record Answer(boolean allowed, int code, String reason, String message, JsonNode patch, java.util.List<String> warnings) {
    }

    private final WebhookTransport transport = new WebhookTransport();

    Answer call(JsonNode webhook, Attributes a) throws WebhookException {
        String name = webhook.path("name").asString("");
        JsonNode cc = webhook.path("clientConfig");
        int timeout = Math.max(1, Math.min(30, webhook.path("timeoutSeconds").asInt(10)));
        String uid = UUID.randomUUID().toString();
        byte[] answer;
        try {
            answer = transport.post(cc, review(uid, a), timeout);
        } catch (WebhookTransport.WebhookException e) {
            throw new WebhookException(e.getMessage());
        }
        JsonNode response;
        try {
            response = Json.MAPPER.readTree(answer).path("response");
        } catch (RuntimeException e) {
            throw new WebhookException("received invalid webhook response: " + e.getMessage());
        }
        if (!response.isObject() || !response.has("allowed")) {
            throw new WebhookException("received invalid webhook response: no response.allowed");
        }
        if (!uid.equals(response.path("uid").asString(""))) {
            throw new WebhookException("expected response.uid=\"" + uid + "\", got \"" + response.path("uid").asString("")
                    + "\"");
        }
        JsonNode patch = null;
        if (response.hasNonNull("patch")) {
            if (!"JSONPatch".equals(response.path("patchType").asString(""))) {
                throw new WebhookException("received invalid webhook response: patchType must be JSONPatch");
            }
            try {
                patch = Json.MAPPER.readTree(Base64.getDecoder().decode(response.get("patch").asString()));
            } catch (RuntimeException e) {
                throw new WebhookException("received invalid webhook response: the patch is not base64 JSON");
            }
        }
        java.util.List<String> warnings = new java.util.ArrayList<>();
        response.path("warnings").forEach(w -> warnings.add(w.asString("")));
        JsonNode status = response.path("status");
        return new Answer(response.path("allowed").asBoolean(false), status.path("code").asInt(403),
                status.path("reason").asString(""), status.path("message").asString(""), patch, warnings);
    }

    private static ObjectNode review(String uid, Attributes a) {
        ObjectNode review = Json.object();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        ObjectNode r = review.putObject("request");
        r.put("uid", uid);
        gvk(r.putObject("kind"), a.group(), a.version()).put("kind", a.kind());
        gvk(r.putObject("resource"), a.group(), a.version()).put("resource", a.resource());
        if (!a.subresource().isEmpty()) {
            r.put("subResource", a.subresource());
        }
        r.set("requestKind", r.get("kind").deepCopy());
        r.set("requestResource", r.get("resource").deepCopy());
        if (!a.name().isEmpty()) {
            r.put("name", a.name());
        }
        if (!a.namespace().isEmpty()) {
            r.put("namespace", a.namespace());
        }
        r.put("operation", a.operation().name());
        ObjectNode user = r.putObject("userInfo");
        user.put("username", a.user().name());
        if (!a.user().uid().isEmpty()) {
            user.put("uid", a.user().uid());
        }
        ArrayNode groups = user.putArray("groups");
        a.user().groups().forEach(groups::add);
        r.set("object", a.object());
        r.set("oldObject", a.oldObject());
        r.put("dryRun", a.dryRun());
        return review;
    }

    private static ObjectNode gvk(ObjectNode o, String group, String version) {
        o.put("group", group);
        o.put("version", version);
        return o;
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.admission.webhook.WebhookTransport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * How the objects of a kind with several versions move between them, as a CRD's
 * {@code spec.conversion} says: {@code None} changes only apiVersion; {@code Webhook}
 * sends a {@code ConversionReview} to the CRD's webhook and checks what it answers
 * (as many objects, each the desired version, same name, namespace and uid), keeping the
 * metadata but for labels and annotations as it was. A webhook
 * that is down or answers garbage fails the request with 500, worded as kube-apiserver
 * words it.
 */
public interface VersionConverter {

    /** The objects as the apiVersion, in order. */
    List<ObjectNode> convert(List<ObjectNode> objects, String apiVersion);

    /** {@code None}: the same object under another version. */
    VersionConverter NONE = (objects, apiVersion) -> {
        List<ObjectNode> out = new ArrayList<>(objects.size());
        for (ObjectNode o : objects) {
            ObjectNode c = o.deepCopy();
            c.put("apiVersion", apiVersion);
            out.add(c);
        }
        return out;
    };

    /** {@code Webhook}: the CRD's conversion webhook converts. */
    static VersionConverter webhook(String group, String kind, JsonNode clientConfig, WebhookTransport transport) {
        return (objects, apiVersion) -> {
            String uid = UUID.randomUUID().toString();
            ObjectNode review = Json.object();
            review.put("apiVersion", "apiextensions.k8s.io/v1");
            review.put("kind", "ConversionReview");
            ObjectNode request = review.putObject("request");
            request.put("uid", uid);
            request.put("desiredAPIVersion", apiVersion);
            ArrayNode items = request.putArray("objects");
            objects.forEach(items::add);
            String failed = "conversion webhook for " + (objects.isEmpty() ? apiVersion
                    : Json.text(objects.get(0), "apiVersion")) + ", Kind=" + kind + " failed: ";
            JsonNode response;
            try {
                response = Json.MAPPER.readTree(transport.post(clientConfig, review, 30)).path("response");
            } catch (WebhookTransport.WebhookException e) {
                throw ApiException.internal(failed + e.getMessage());
            } catch (RuntimeException e) {
                throw ApiException.internal(failed + "invalid ConversionReview response: " + e.getMessage());
            }
            if (!uid.equals(response.path("uid").asString(""))) {
                throw ApiException.internal(failed + "expected response.uid=\"" + uid + "\", got \""
                        + response.path("uid").asString("") + "\"");
            }
            if (!"Success".equals(response.path("result").path("status").asString(""))) {
                throw ApiException.internal(failed + response.path("result").path("message").asString(
                        "the webhook did not report success"));
            }
            JsonNode converted = response.path("convertedObjects");
            if (!converted.isArray() || converted.size() != objects.size()) {
                throw ApiException.internal(failed + "returned " + converted.size() + " objects, expected "
                        + objects.size());
            }
            List<ObjectNode> out = new ArrayList<>();
            for (int i = 0; i < converted.size(); i++) {
                JsonNode c = converted.get(i);
                ObjectNode in = objects.get(i);
                if (!(c instanceof ObjectNode o) || !apiVersion.equals(Json.text(o, "apiVersion"))) {
                    throw ApiException.internal(failed + "invalid converted object at index " + i
                            + ": apiVersion must be " + apiVersion);
                }
                for (String f : List.of("metadata.name", "metadata.namespace", "metadata.uid")) {
                    if (!java.util.Objects.equals(Json.text(in, f), Json.text(o, f))) {
                        throw ApiException.internal(failed + "invalid converted object at index " + i + ": must not"
                                + " change " + f);
                    }
                }
                if (!kind.equals(Json.text(o, "kind"))) {
                    throw ApiException.internal(failed + "invalid converted object at index " + i + ": kind must be "
                            + kind);
                }
                // the webhook converts the rest; of the metadata, only labels and annotations are its to change
                ObjectNode meta = in.path("metadata").isObject() ? ((ObjectNode) in.get("metadata")).deepCopy()
                        : Json.object();
                for (String f : List.of("labels", "annotations")) {
                    JsonNode v = o.path("metadata").get(f);
                    if (v == null || v.isNull()) {
                        meta.remove(f);
                    } else {
                        meta.set(f, v);
                    }
                }
                o.set("metadata", meta);
                out.add(o);
            }
            return out;
        };
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.ServiceAccountTokens;
import io.cybernetes.store.StoredObject;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code serviceaccounts/{name}/token} subresource: a TokenRequest names audiences and
 * a lifetime, and gets back a token bound to the ServiceAccount's current uid.
 */
final class TokenRequests {

    private static final String GROUP = "authentication.k8s.io";

    private final ResourceService service;
    private final ServiceAccountTokens tokens;

    TokenRequests(ResourceService service, ServiceAccountTokens tokens) {
        this.service = service;
        this.tokens = tokens;
    }

    ObjectNode request(ResourceType serviceAccounts, String namespace, String name, ObjectNode body) {
        String apiVersion = Json.text(body, "apiVersion");
        String kind = Json.text(body, "kind");
        if ((apiVersion != null && !apiVersion.isEmpty() && !apiVersion.equals(GROUP + "/v1"))
                || (kind != null && !kind.isEmpty() && !kind.equals("TokenRequest"))) {
            throw ApiException.badRequest("the body must be an authentication.k8s.io/v1 TokenRequest");
        }
        JsonNode spec = body.path("spec");
        long expiration = ServiceAccountTokens.DEFAULT_EXPIRATION_SECONDS;
        if (spec.has("expirationSeconds") && !spec.get("expirationSeconds").isNull()) {
            if (!spec.get("expirationSeconds").isIntegralNumber()) {
                throw ApiException.badRequest("spec.expirationSeconds must be an integer");
            }
            expiration = spec.get("expirationSeconds").asLong();
        }
        if (expiration < ServiceAccountTokens.MIN_EXPIRATION_SECONDS) {
            throw ApiException.invalid(GROUP, "TokenRequest", name, List.of(ApiException.cause(
                    "spec.expirationSeconds", "FieldValueInvalid", "Invalid value: " + expiration
                            + ": may not specify a duration less than 10 minutes")));
        }
        List<String> audiences = new ArrayList<>();
        spec.path("audiences").forEach(a -> audiences.add(a.asString()));
        StoredObject sa = service.get(serviceAccounts, namespace, name);
        String uid = Json.text(sa.value(), "metadata.uid");
        ServiceAccountTokens.IssuedToken issued = tokens.issue(namespace, name, uid, audiences, expiration);
        ObjectNode out = Json.object();
        out.put("kind", "TokenRequest");
        out.put("apiVersion", GROUP + "/v1");
        ObjectNode meta = out.putObject("metadata");
        meta.put("name", name);
        meta.put("namespace", namespace);
        meta.put("creationTimestamp", ResourceService.now());
        ObjectNode outSpec = out.putObject("spec");
        ArrayNode aud = outSpec.putArray("audiences");
        (audiences.isEmpty() ? tokens.apiAudiences() : audiences).forEach(aud::add);
        outSpec.put("expirationSeconds", expiration);
        if (spec.has("boundObjectRef")) {
            outSpec.set("boundObjectRef", spec.get("boundObjectRef"));
        }
        ObjectNode status = out.putObject("status");
        status.put("token", issued.token());
        status.put("expirationTimestamp", issued.expiration().toString());
        return out;
    }
}

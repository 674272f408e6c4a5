package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.ServiceAccountTokens;
import io.cybernetes.auth.ServiceAccountTokens.BoundObjects;
import io.cybernetes.auth.ServiceAccountTokens.ObjectRef;
import io.cybernetes.store.StoredObject;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code serviceaccounts/{name}/token} subresource: a TokenRequest names audiences, a
 * lifetime and optionally an object to bind the token to (a Pod running as the account,
 * a Secret or a Node, in the core group), and gets back a token bound to the
 * ServiceAccount's current uid and that object's, so that it dies with either.
 */
public final class TokenRequests {

    private static final String GROUP = "authentication.k8s.io";

    private final ResourceRegistry registry;
    private final ResourceService service;
    private final ServiceAccountTokens tokens;

    public TokenRequests(ResourceRegistry registry, ResourceService service, ServiceAccountTokens tokens) {
        this.registry = registry;
        this.service = service;
        this.tokens = tokens;
    }

    public ObjectNode request(ResourceType serviceAccounts, String namespace, String name, ObjectNode body) {
        String apiVersion = Json.text(body, "apiVersion");
        String kind = Json.text(body, "kind");
        if ((apiVersion != null && !apiVersion.isEmpty() && !apiVersion.equals(GROUP + "/v1"))
                || (kind != null && !kind.isEmpty() && !kind.equals("TokenRequest"))) {
            throw ApiException.badRequest("the body must be an authentication.k8s.io/v1 TokenRequest");
        }
        service.decodeAs(TokenRequest.class, "TokenRequest", "v1", body);
        JsonNode spec = body.path("spec");
        long expiration = ServiceAccountTokens.DEFAULT_EXPIRATION_SECONDS;
        if (spec.has("expirationSeconds") && !spec.get("expirationSeconds").isNull()) {
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
        BoundObjects bound = spec.hasNonNull("boundObjectRef")
                ? bind(namespace, name, spec.get("boundObjectRef")) : BoundObjects.NONE;
        ServiceAccountTokens.IssuedToken issued = tokens.issue(namespace, name, uid, audiences, expiration, bound);
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

    /**
     * The object a token is to be bound to, as Kubernetes resolves a {@code boundObjectRef}:
     * it must exist (404 otherwise), a pod must run as the account, a uid given must be the
     * object's (409: it was deleted and made again); a pod bound to a node brings the node.
     */
    private BoundObjects bind(String namespace, String account, JsonNode ref) {
        String apiVersion = Json.text(ref, "apiVersion");
        String kind = Json.text(ref, "kind");
        String name = Json.text(ref, "name");
        String group = apiVersion == null || !apiVersion.contains("/") ? "" : apiVersion.substring(0, apiVersion.indexOf('/'));
        String plural = !group.isEmpty() || kind == null ? null : switch (kind) {
            case "Pod" -> "pods";
            case "Secret" -> "secrets";
            case "Node" -> "nodes";
            default -> null;
        };
        if (plural == null) {
            String version = apiVersion == null ? "" : apiVersion.substring(apiVersion.indexOf('/') + 1);
            // as Go prints a GroupVersionKind
            throw ApiException.badRequest("cannot bind token to object of type " + group + "/" + version + ", Kind="
                    + (kind == null ? "" : kind));
        }
        ResourceType type = registry.byPath("", "v1", plural).orElseThrow();
        ObjectNode object = service.get(type, type.namespaced() ? namespace : null, name == null ? "" : name).value();
        String uid = Json.text(object, "metadata.uid");
        String expected = Json.text(ref, "uid");
        if (expected != null && !expected.isEmpty() && !expected.equals(uid)) {
            throw ApiException.conflict("", kind, name, "the UID in the bound object reference (" + expected
                    + ") does not match the UID in record. The object might have been deleted and then recreated");
        }
        ObjectRef bound = new ObjectRef(name, uid);
        return switch (kind) {
            case "Pod" -> {
                String podAccount = Json.text(object, "spec.serviceAccountName");
                if (!account.equals(podAccount)) {
                    throw ApiException.badRequest("cannot bind token for serviceaccount \"" + account
                            + "\" to pod running with serviceaccount \"" + (podAccount == null ? "" : podAccount) + "\"");
                }
                yield new BoundObjects(bound, null, nodeOf(object));
            }
            case "Secret" -> new BoundObjects(null, bound, null);
            default -> new BoundObjects(null, null, bound);
        };
    }

    /** The node a pod runs on, when it is bound to one that exists. */
    private ObjectRef nodeOf(ObjectNode pod) {
        String node = Json.text(pod, "spec.nodeName");
        if (node == null || node.isEmpty()) {
            return null;
        }
        ResourceType nodes = registry.byPath("", "v1", "nodes").orElseThrow();
        return service.store().get(nodes.key(null, node))
                .map(n -> new ObjectRef(node, Json.text(n.value(), "metadata.uid"))).orElse(null);
    }
}

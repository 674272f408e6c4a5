package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RuleResolver;
import io.cybernetes.auth.TokenAuthenticator;
import io.cybernetes.auth.UserInfo;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The review kinds: created, answered in their status, never stored. Access reviews ask
 * the authorizer chain about the requester (Self...), about anyone (SubjectAccessReview,
 * which itself needs permission), or list the requester's rules; SelfSubjectReview says
 * who the requester is; TokenReview checks a token as the authenticators would.
 */
public final class AccessReviews {

    private final Authorizer authorizer;
    private final RuleResolver rules;
    private final TokenAuthenticator tokens;

    public AccessReviews(Authorizer authorizer, RuleResolver rules, TokenAuthenticator tokens) {
        this.authorizer = authorizer;
        this.rules = rules;
        this.tokens = tokens;
    }

    /** Answers the review in {@code body} (already checked against the type); returns it with its status. */
    public ObjectNode answer(ResourceType type, String namespace, ObjectNode body, UserInfo requester) {
        ObjectNode review = body.deepCopy();
        ObjectNode spec = review.has("spec") && review.get("spec").isObject() ? (ObjectNode) review.get("spec")
                : review.putObject("spec");
        ObjectNode status = switch (type.kind()) {
            case "SelfSubjectAccessReview" -> access(type, requester, spec, null);
            case "LocalSubjectAccessReview" -> access(type, subject(type, spec), spec, namespace);
            case "SubjectAccessReview" -> access(type, subject(type, spec), spec, null);
            case "SelfSubjectRulesReview" -> rulesReview(requester, spec);
            case "SelfSubjectReview" -> {
                review.remove("spec");
                ObjectNode s = Json.object();
                s.set("userInfo", userInfo(requester));
                yield s;
            }
            case "TokenReview" -> tokenReview(type, spec);
            default -> throw ApiException.methodNotAllowed();
        };
        review.set("status", status);
        return review;
    }

    private ObjectNode access(ResourceType type, UserInfo user, ObjectNode spec, String urlNamespace) {
        JsonNode res = spec.get("resourceAttributes");
        JsonNode non = spec.get("nonResourceAttributes");
        boolean hasRes = res != null && res.isObject();
        boolean hasNon = non != null && non.isObject();
        if (hasRes == hasNon) {
            throw invalid(type, "spec.resourceAttributes", "FieldValueInvalid",
                    "exactly one of nonResourceAttributes or resourceAttributes must be specified");
        }
        RequestAttributes attrs;
        if (hasRes) {
            String ns = text(res, "namespace");
            if (urlNamespace != null) {
                if (!ns.isEmpty() && !ns.equals(urlNamespace)) {
                    throw invalid(type, "spec.resourceAttributes.namespace", "FieldValueInvalid",
                            "Invalid value: \"" + ns + "\": must match metadata.namespace");
                }
                ns = urlNamespace;
                ((ObjectNode) res).put("namespace", ns);
            }
            attrs = new RequestAttributes(user, text(res, "verb"), true, text(res, "group"), text(res, "version"),
                    text(res, "resource"), text(res, "subresource"), ns, text(res, "name"), "",
                    ReviewSelectors.read(type, res));
        } else {
            if (urlNamespace != null) {
                throw invalid(type, "spec.nonResourceAttributes", "FieldValueInvalid",
                        "disallowed on this kind of request");
            }
            attrs = RequestAttributes.nonResource(user, text(non, "verb"), text(non, "path"));
        }
        Authorizer.Decision d = authorizer.authorize(attrs);
        ObjectNode status = Json.object();
        status.put("allowed", d.allowed());
        if (d.outcome() == Authorizer.Decision.Outcome.DENY) {
            status.put("denied", true);
        }
        if (!d.reason().isEmpty()) {
            status.put("reason", d.reason());
        }
        List<String> errors = new ArrayList<>();
        if (!d.error().isEmpty()) {
            errors.add(d.error());
        }
        errors.addAll(ReviewSelectors.evaluationErrors(attrs.selectors()));
        if (!errors.isEmpty()) {
            status.put("evaluationError", String.join("; ", errors));
        }
        return status;
    }

    /** The subject of a SubjectAccessReview: exactly the user, groups and extra it names. */
    private static UserInfo subject(ResourceType type, ObjectNode spec) {
        String user = text(spec, "user");
        List<String> groups = new ArrayList<>();
        spec.path("groups").forEach(g -> groups.add(g.asString()));
        if (user.isEmpty() && groups.isEmpty()) {
            throw invalid(type, "spec.user", "FieldValueRequired", "Required value: at least one of user or group"
                    + " must be specified");
        }
        Map<String, List<String>> extra = new LinkedHashMap<>();
        spec.path("extra").properties().forEach(e -> {
            List<String> values = new ArrayList<>();
            e.getValue().forEach(v -> values.add(v.asString()));
            extra.put(e.getKey(), values);
        });
        return new UserInfo(user, text(spec, "uid"), groups, extra);
    }

    private ObjectNode rulesReview(UserInfo user, ObjectNode spec) {
        String ns = text(spec, "namespace");
        ObjectNode status = Json.object();
        ArrayNode resourceRules = status.putArray("resourceRules");
        ArrayNode nonResourceRules = status.putArray("nonResourceRules");
        for (PolicyRule r : rules.rulesFor(user, ns)) {
            if (r.getNonResourceURLs() != null && !r.getNonResourceURLs().isEmpty()) {
                ObjectNode n = nonResourceRules.addObject();
                Json.addStrings(n.putArray("verbs"), r.getVerbs());
                Json.addStrings(n.putArray("nonResourceURLs"), r.getNonResourceURLs());
            }
            if (r.getResources() != null && !r.getResources().isEmpty()) {
                ObjectNode n = resourceRules.addObject();
                Json.addStrings(n.putArray("verbs"), r.getVerbs());
                Json.addStrings(n.putArray("apiGroups"), r.getApiGroups());
                Json.addStrings(n.putArray("resources"), r.getResources());
                if (r.getResourceNames() != null && !r.getResourceNames().isEmpty()) {
                    Json.addStrings(n.putArray("resourceNames"), r.getResourceNames());
                }
            }
        }
        status.put("incomplete", false);
        return status;
    }

    private ObjectNode tokenReview(ResourceType type, ObjectNode spec) {
        String token = text(spec, "token");
        if (token.isEmpty()) {
            throw invalid(type, "spec.token", "FieldValueRequired", "Required value");
        }
        Optional<UserInfo> user = tokens.authenticateToken(token);
        ObjectNode status = Json.object();
        status.put("authenticated", user.isPresent());
        if (user.isPresent()) {
            status.set("user", userInfo(user.get()));
        } else {
            status.put("error", "invalid bearer token");
        }
        return status;
    }

    public static ObjectNode userInfo(UserInfo u) {
        ObjectNode n = Json.object();
        n.put("username", u.name());
        if (!u.uid().isEmpty()) {
            n.put("uid", u.uid());
        }
        Json.addStrings(n.putArray("groups"), u.groups());
        if (!u.extra().isEmpty()) {
            ObjectNode extra = n.putObject("extra");
            u.extra().forEach((k, v) -> Json.addStrings(extra.putArray(k), v));
        }
        return n;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? "" : v.asString();
    }

    private static ApiException invalid(ResourceType type, String field, String reason, String message) {
        StatusCause c = ApiException.cause(field, reason, message);
        return ApiException.invalid(type, "", List.of(c));
    }
}

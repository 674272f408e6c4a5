package io.cybernetes.auth.internal;

import io.cybernetes.api.Json;
import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.Selectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The Webhook authorization mode: asks a SubjectAccessReview (authorization.k8s.io/v1)
 * webhook about the request — the user, uid, groups and extra, and the resource attributes
 * (namespace, verb, group, version, resource, subresource, name, and the requirements of a
 * list's field and label selectors) or the non-resource path
 * and verb — and follows its answer: allowed, denied (no later mode is asked), or no
 * opinion. Answers are kept for the authorized TTL when allowing, the unauthorized TTL
 * otherwise. A webhook that cannot be reached or answers garbage has no opinion, as
 * kube-apiserver's: it never allows, and the request is forbidden unless a later mode allows it.
 */
final class WebhookAuthorizer implements Authorizer {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WebhookAuthorizer.class);

    private final WebhookClient webhook;
    private final AuthProperties.AuthorizationWebhook settings;
    private final Map<String, WebhookClient.Cached<Decision>> cache = WebhookClient.newCache();

    WebhookAuthorizer(WebhookClient webhook, AuthProperties.AuthorizationWebhook settings) {
        this.webhook = webhook;
        this.settings = settings;
    }

    static WebhookAuthorizer of(AuthProperties.AuthorizationWebhook settings) {
        if (settings.configFile().isEmpty()) {
            throw new IllegalStateException("authorization mode Webhook needs"
                    + " cybernetes.auth.authorization-webhook.config-file");
        }
        return new WebhookAuthorizer(WebhookClient.fromKubeconfig(Path.of(settings.configFile())), settings);
    }

    /** The review kube-apiserver sends for the request. */
    static ObjectNode review(RequestAttributes a) {
        ObjectNode review = Json.object();
        review.put("apiVersion", "authorization.k8s.io/v1");
        review.put("kind", "SubjectAccessReview");
        ObjectNode spec = review.putObject("spec");
        if (a.resourceRequest()) {
            ObjectNode r = spec.putObject("resourceAttributes");
            r.put("namespace", a.namespace());
            r.put("verb", a.verb());
            r.put("group", a.apiGroup());
            r.put("version", a.apiVersion());
            r.put("resource", a.resource());
            r.put("subresource", a.subresource());
            r.put("name", a.name());
            // requirements only, never the raw selector, and whatever parsed even when some did not
            putRequirements(r, "fieldSelector", a.selectors().field());
            putRequirements(r, "labelSelector", a.selectors().label());
        } else {
            ObjectNode n = spec.putObject("nonResourceAttributes");
            n.put("path", a.path());
            n.put("verb", a.verb());
        }
        spec.put("user", a.user().name());
        spec.put("uid", a.user().uid());
        a.user().groups().forEach(spec.putArray("groups")::add);
        if (!a.user().extra().isEmpty()) {
            ObjectNode extra = spec.putObject("extra");
            a.user().extra().forEach((k, v) -> v.forEach(extra.putArray(k)::add));
        }
        return review;
    }

    private static void putRequirements(ObjectNode attributes, String name, List<Selectors.Requirement> requirements) {
        if (requirements.isEmpty()) {
            return;
        }
        ArrayNode out = attributes.putObject(name).putArray("requirements");
        for (Selectors.Requirement r : requirements) {
            ObjectNode o = out.addObject();
            o.put("key", r.key());
            o.put("operator", r.operator());
            if (!r.values().isEmpty()) {
                r.values().forEach(o.putArray("values")::add);
            }
        }
    }

    @Override
    public Decision authorize(RequestAttributes a) {
        ObjectNode review = review(a);
        String key = Json.write(review.path("spec"));
        Decision known = WebhookClient.recall(cache, key);
        if (known != null) {
            return known;
        }
        JsonNode status;
        try {
            status = webhook.post(review).path("status");
        } catch (IOException e) {
            // as kube-apiserver: no opinion (the next mode may still decide; nothing allows by default), the
            // cause in the server's log and not in the client's answer, and nothing remembered
            log.warn("the authorization webhook failed: {}", e.getMessage());
            return Decision.failed(e.getMessage());
        }
        String reason = status.path("reason").asString("");
        Decision d = status.path("allowed").asBoolean(false) ? Decision.allow(reason)
                : status.path("denied").asBoolean(false) ? Decision.deny(reason) : Decision.noOpinion(reason);
        WebhookClient.remember(cache, key, d, d.outcome() == Decision.Outcome.ALLOW ? settings.cacheAuthorizedTtl()
                : settings.cacheUnauthorizedTtl());
        return d;
    }
}

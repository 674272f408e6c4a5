package io.cybernetes.auth.internal;

import io.cybernetes.api.Json;
import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.UserInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Webhook token authentication: a bearer token nothing in this server knows is sent in a
 * TokenReview (authentication.k8s.io/v1) to the configured webhook, which says whether it
 * is authenticated and as whom (username, uid, groups, extra). Answers are kept for the
 * cache TTL, by the token's SHA-256 (the token itself is not kept); a webhook that fails is
 * logged and the token is not authenticated (401), the failure not cached.
 */
final class WebhookTokenAuthenticator {

    private static final Logger log = LoggerFactory.getLogger(WebhookTokenAuthenticator.class);

    private final WebhookClient webhook;
    private final AuthProperties.TokenWebhook settings;
    private final List<String> audiences;
    private final Map<String, WebhookClient.Cached<Optional<UserInfo>>> cache = WebhookClient.newCache();

    WebhookTokenAuthenticator(WebhookClient webhook, AuthProperties.TokenWebhook settings, List<String> audiences) {
        this.webhook = webhook;
        this.settings = settings;
        this.audiences = List.copyOf(audiences);
    }

    static WebhookTokenAuthenticator of(AuthProperties.TokenWebhook settings, List<String> audiences) {
        return new WebhookTokenAuthenticator(WebhookClient.fromKubeconfig(Path.of(settings.configFile())), settings,
                audiences);
    }

    Optional<UserInfo> authenticate(String token) {
        String key = StaticTokens.digest(token);
        Optional<UserInfo> known = WebhookClient.recall(cache, key);
        if (known != null) {
            return known;
        }
        ObjectNode review = Json.object();
        review.put("apiVersion", "authentication.k8s.io/v1");
        review.put("kind", "TokenReview");
        ObjectNode spec = review.putObject("spec");
        spec.put("token", token);
        if (!audiences.isEmpty()) {
            audiences.forEach(spec.putArray("audiences")::add);
        }
        JsonNode status;
        try {
            status = webhook.post(review).path("status");
        } catch (IOException e) {
            log.warn("the token authentication webhook failed: {}", e.getMessage());
            return Optional.empty();
        }
        Optional<UserInfo> user = Optional.empty();
        String name = status.path("user").path("username").asString("");
        if (status.path("authenticated").asBoolean(false) && !name.isEmpty() && audiencesAgree(status)) {
            JsonNode u = status.path("user");
            List<String> groups = new ArrayList<>();
            u.path("groups").forEach(g -> groups.add(g.asString()));
            if (!groups.contains(UserInfo.AUTHENTICATED)) {
                groups.add(UserInfo.AUTHENTICATED);
            }
            Map<String, List<String>> extra = new LinkedHashMap<>();
            u.path("extra").properties().forEach(e -> {
                List<String> values = new ArrayList<>();
                e.getValue().forEach(v -> values.add(v.asString()));
                extra.put(e.getKey(), values);
            });
            user = Optional.of(new UserInfo(name, u.path("uid").asString(""), groups, extra));
        }
        WebhookClient.remember(cache, key, user, settings.cacheTtl());
        return user;
    }

    /**
     * When this server names its audiences, the webhook's answer must share one of them (an
     * answer that names none is taken to be for this server), as kube-apiserver checks it.
     */
    private boolean audiencesAgree(JsonNode status) {
        if (audiences.isEmpty() || !status.path("audiences").isArray() || status.path("audiences").isEmpty()) {
            return true;
        }
        for (JsonNode a : status.path("audiences")) {
            if (audiences.contains(a.asString(""))) {
                return true;
            }
        }
        log.warn("the token authentication webhook vouched for a token of other audiences: {}",
                status.path("audiences"));
        return false;
    }
}

package io.cybernetes.admission.webhook;

import io.cybernetes.admission.AccessChecker;
import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Runs the webhooks of one kind of configuration against a write, in the order of the
 * configurations' names and then their webhooks: skips those that do not match and, on
 * a dry run, those with side effects; turns a denial into the webhook's Status; and
 * judges a webhook that could not answer by its failurePolicy (Fail, the default, refuses
 * the write with an InternalError naming the webhook; Ignore lets it pass).
 */
final class Webhooks {

    private static final Logger log = LoggerFactory.getLogger(Webhooks.class);

    private final String resource;
    private final ClusterReader cluster;
    private final WebhookMatcher matcher;
    private final WebhookCaller caller = new WebhookCaller();
    private final AccessChecker access;

    Webhooks(String resource, ClusterReader cluster, AccessChecker access) {
        this.resource = resource;
        this.cluster = cluster;
        this.access = access;
        this.matcher = new WebhookMatcher(cluster);
    }

    /** Calls every matching webhook; {@code onAnswer} sees each allowing answer (to apply its patch). */
    void run(Attributes a, BiConsumer<JsonNode, WebhookCaller.Answer> onAnswer) {
        List<ObjectNode> configs = new ArrayList<>(cluster.list("admissionregistration.k8s.io", resource, ""));
        configs.sort(Comparator.comparing(c -> Json.text(c, "metadata.name")));
        for (ObjectNode config : configs) {
            for (JsonNode webhook : config.path("webhooks")) {
                if (!matcher.matches(webhook, a)) {
                    continue;
                }
                String sideEffects = webhook.path("sideEffects").asString("Unknown");
                if (a.dryRun() && !sideEffects.equals("None") && !sideEffects.equals("NoneOnDryRun")) {
                    continue;
                }
                String name = webhook.path("name").asString("");
                MatchConditions.Outcome conditions = MatchConditions.evaluate(webhook.path("matchConditions"), a, access);
                if (conditions.error() != null) {
                    if ("Ignore".equals(webhook.path("failurePolicy").asString("Fail"))) {
                        continue;
                    }
                    // failing closed, as kube-apiserver: the request is forbidden without calling the webhook
                    log.warn("Failed evaluating match conditions, failing closed {}: {}", name, conditions.error());
                    throw ApiException.forbidden(a.group(), a.resource(), a.name(), conditions.error());
                }
                if (!conditions.matched()) {
                    continue;
                }
                WebhookCaller.Answer answer;
                try {
                    answer = caller.call(webhook, a);
                    if (answer.allowed()) {
                        onAnswer.accept(webhook, answer);
                    }
                } catch (WebhookCaller.WebhookException e) {
                    failed(webhook, name, e.getMessage());
                    continue;
                } catch (ApiException e) {
                    // the webhook's patch did not apply to the object
                    failed(webhook, name, "the patch did not apply: " + e.getMessage());
                    continue;
                }
                if (!answer.allowed()) {
                    String message = "admission webhook \"" + name + "\" denied the request"
                            + (answer.message().isEmpty() ? " without explanation" : ": " + answer.message());
                    throw ApiException.of(answer.code(), answer.reason().isEmpty()
                            ? reasonFor(answer.code()) : answer.reason(), message);
                }
            }
        }
    }

    private static void failed(JsonNode webhook, String name, String why) {
        if ("Ignore".equals(webhook.path("failurePolicy").asString("Fail"))) {
            log.warn("Webhook {} failed and is ignored (failurePolicy Ignore): {}", name, why);
            return;
        }
        throw ApiException.internal("failed calling webhook \"" + name + "\": " + why);
    }

    private static String reasonFor(int code) {
        return switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 404 -> "NotFound";
            case 409 -> "Conflict";
            case 422 -> "Invalid";
            case 429 -> "TooManyRequests";
            default -> code >= 500 ? "InternalError" : "Forbidden";
        };
    }
}

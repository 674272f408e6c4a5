package io.cybernetes.admission.webhook;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.api.LabelSelector;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a webhook wants a write: one of its rules names the operation, group, version,
 * resource (with {@code *}, {@code pods/*}, {@code *}{@code /status} forms) and scope, and
 * its namespaceSelector and objectSelector match the namespace's and the object's labels.
 * ValidatingAdmissionPolicies match by the same rules ({@link #matchesResources}).
 */
public final class WebhookMatcher {

    private final ClusterReader cluster;

    public WebhookMatcher(ClusterReader cluster) {
        this.cluster = cluster;
    }

    /**
     * Whether a policy's matchConstraints or a binding's matchResources take in the write: one of the
     * resourceRules (with their resourceNames) names it, no excludeResourceRules does, and the selectors
     * match. Without resourceRules ({@code constrainsNothingWithoutRules}, a binding's) every resource is in.
     */
    public boolean matchesResources(JsonNode match, Attributes a, boolean constrainsNothingWithoutRules) {
        if (match == null || match.isNull() || match.isMissingNode()) {
            return constrainsNothingWithoutRules;
        }
        JsonNode rules = match.path("resourceRules");
        boolean ruled = rules.isEmpty() && constrainsNothingWithoutRules;
        for (JsonNode rule : rules) {
            if (ruleMatches(rule, a) && named(rule, a)) {
                ruled = true;
                break;
            }
        }
        for (JsonNode rule : match.path("excludeResourceRules")) {
            if (ruleMatches(rule, a) && named(rule, a)) {
                return false;
            }
        }
        return ruled && namespaceMatches(match.get("namespaceSelector"), a)
                && objectMatches(match.get("objectSelector"), a);
    }

    private static boolean named(JsonNode rule, Attributes a) {
        JsonNode names = rule.path("resourceNames");
        if (names.isEmpty()) {
            return true;
        }
        for (JsonNode n : names) {
            if (n.asString("").equals(a.name())) {
                return true;
            }
        }
        return false;
    }

    public boolean matches(JsonNode webhook, Attributes a) {
        boolean ruled = false;
        for (JsonNode rule : webhook.path("rules")) {
            if (ruleMatches(rule, a)) {
                ruled = true;
                break;
            }
        }
        return ruled && namespaceMatches(webhook.get("namespaceSelector"), a)
                && objectMatches(webhook.get("objectSelector"), a);
    }

    static boolean ruleMatches(JsonNode rule, Attributes a) {
        if (!contains(rule.path("operations"), a.operation().name()) || !contains(rule.path("apiGroups"), a.group())
                || !contains(rule.path("apiVersions"), a.version())) {
            return false;
        }
        String scope = rule.path("scope").asString("*");
        if ((scope.equals("Cluster") && !a.namespace().isEmpty())
                || (scope.equals("Namespaced") && a.namespace().isEmpty())) {
            return false;
        }
        for (JsonNode r : rule.path("resources")) {
            String want = r.asString("");
            String res = want.contains("/") ? want.substring(0, want.indexOf('/')) : want;
            String sub = want.contains("/") ? want.substring(want.indexOf('/') + 1) : "";
            boolean resOk = res.equals("*") || res.equals(a.resource());
            // "pods" and "*" name main resources only; "pods/status", "pods/*" and "*/*" name subresources
            boolean subOk = want.contains("/") ? sub.equals("*") || sub.equals(a.subresource())
                    : a.subresource().isEmpty();
            if (resOk && subOk) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(JsonNode values, String v) {
        for (JsonNode x : values) {
            if (x.asString("").equals("*") || x.asString("").equals(v)) {
                return true;
            }
        }
        return false;
    }

    private boolean namespaceMatches(JsonNode selector, Attributes a) {
        LabelSelector sel = selector == null || selector.isNull() ? LabelSelector.EVERYTHING
                : LabelSelector.fromObject(selector);
        if (sel.isEmpty()) {
            return true;
        }
        if (a.is("", "namespaces")) {
            return sel.matches(labels(a.object() != null ? a.object() : a.oldObject()));
        }
        if (a.namespace().isEmpty()) {
            return true;
        }
        Optional<ObjectNode> ns = cluster.get("", "namespaces", "", a.namespace());
        return sel.matches(labels(ns.orElse(null)));
    }

    private static boolean objectMatches(JsonNode selector, Attributes a) {
        LabelSelector sel = selector == null || selector.isNull() ? LabelSelector.EVERYTHING
                : LabelSelector.fromObject(selector);
        if (sel.isEmpty()) {
            return true;
        }
        return (a.object() != null && sel.matches(labels(a.object())))
                || (a.oldObject() != null && sel.matches(labels(a.oldObject())));
    }

    private static Map<String, String> labels(ObjectNode obj) {
        Map<String, String> out = new HashMap<>();
        if (obj != null) {
            obj.path("metadata").path("labels").properties().forEach(e -> out.put(e.getKey(), e.getValue().asString("")));
        }
        return out;
    }
}

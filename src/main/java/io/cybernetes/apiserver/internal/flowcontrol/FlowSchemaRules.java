package io.cybernetes.apiserver.internal.flowcontrol;

import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import tools.jackson.databind.JsonNode;

/**
 * Whether one of a FlowSchema's rules takes in a request, as Kubernetes matches them: a subject names
 * the user, one of its groups, or its ServiceAccount ({@code *} for any), and a resource rule (verb,
 * group, resource with its subresource, and the namespace, or clusterScope for cluster-wide requests)
 * or a non-resource rule (verb and URL, exactly, {@code *}, or a prefix ending in {@code /*}) names
 * what it asks.
 */
final class FlowSchemaRules {

    private FlowSchemaRules() {
    }

    static boolean matches(JsonNode rule, RequestAttributes a) {
        if (!subjectMatches(rule.path("subjects"), a.user())) {
            return false;
        }
        if (a.resourceRequest()) {
            for (JsonNode r : rule.path("resourceRules")) {
                if (resourceMatches(r, a)) {
                    return true;
                }
            }
            return false;
        }
        for (JsonNode r : rule.path("nonResourceRules")) {
            if (has(r.path("verbs"), a.verb()) && urlMatches(r.path("nonResourceURLs"), a.path())) {
                return true;
            }
        }
        return false;
    }

    private static boolean subjectMatches(JsonNode subjects, UserInfo user) {
        if (user == null) {
            return false;
        }
        for (JsonNode s : subjects) {
            switch (s.path("kind").asString("")) {
                case "User" -> {
                    String name = s.path("user").path("name").asString("");
                    if (name.equals("*") || name.equals(user.name())) {
                        return true;
                    }
                }
                case "Group" -> {
                    String name = s.path("group").path("name").asString("");
                    if (name.equals("*") || user.groups().contains(name)) {
                        return true;
                    }
                }
                case "ServiceAccount" -> {
                    String ns = s.path("serviceAccount").path("namespace").asString("");
                    String name = s.path("serviceAccount").path("name").asString("");
                    String prefix = "system:serviceaccount:";
                    if (user.name().startsWith(prefix)) {
                        String[] parts = user.name().substring(prefix.length()).split(":", 2);
                        if (parts.length == 2 && (ns.equals("*") || ns.equals(parts[0]))
                                && (name.equals("*") || name.equals(parts[1]))) {
                            return true;
                        }
                    }
                }
                default -> {
                }
            }
        }
        return false;
    }

    private static boolean resourceMatches(JsonNode r, RequestAttributes a) {
        String resource = a.subresource().isEmpty() ? a.resource() : a.resource() + "/" + a.subresource();
        if (!has(r.path("verbs"), a.verb()) || !has(r.path("apiGroups"), a.apiGroup())
                || !has(r.path("resources"), resource)) {
            return false;
        }
        if (a.namespace().isEmpty()) {
            return r.path("clusterScope").asBoolean(false);
        }
        return has(r.path("namespaces"), a.namespace());
    }

    private static boolean has(JsonNode values, String v) {
        for (JsonNode x : values) {
            String s = x.asString("");
            if (s.equals("*") || s.equals(v)) {
                return true;
            }
        }
        return false;
    }

    private static boolean urlMatches(JsonNode urls, String path) {
        for (JsonNode u : urls) {
            String url = u.asString("");
            if (url.equals("*") || url.equals(path)
                    || url.endsWith("/*") && path.startsWith(url.substring(0, url.length() - 1))) {
                return true;
            }
        }
        return false;
    }
}

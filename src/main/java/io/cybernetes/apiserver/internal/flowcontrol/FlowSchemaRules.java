package io.cybernetes.apiserver.internal.flowcontrol;

import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One of a FlowSchema's rules, compiled once when the schema changes, and whether it takes in a request,
 * as Kubernetes matches them: a subject names the user, one of its groups, or its ServiceAccount
 * ({@code *} for any), and a resource rule (verb, group, resource with its subresource, and the namespace,
 * or clusterScope for cluster-wide requests) or a non-resource rule (verb and URL, exactly, {@code *}, or
 * a prefix ending in {@code /*}) names what it asks.
 */
final class FlowSchemaRules {

    /** A set of names where {@code *} stands for every name. */
    private record Names(boolean all, Set<String> names) {
        static Names of(JsonNode values) {
            List<String> names = new ArrayList<>();
            values.forEach(v -> names.add(v.asString("")));
            return of(names);
        }

        static Names of(List<String> values) {
            return new Names(values.contains("*"), Set.copyOf(values));
        }

        boolean has(String v) {
            return all || names.contains(v);
        }
    }

    private record ResourceRule(Names verbs, Names groups, Names resources, Names namespaces, boolean clusterScope) {
    }

    private record NonResourceRule(Names verbs, Set<String> urls, List<String> prefixes, boolean all) {
    }

    private final Names users;
    private final Names groups;
    private final List<String[]> serviceAccounts = new ArrayList<>();
    private final List<ResourceRule> resourceRules = new ArrayList<>();
    private final List<NonResourceRule> nonResourceRules = new ArrayList<>();

    FlowSchemaRules(JsonNode rule) {
        List<String> userNames = new ArrayList<>();
        List<String> groupNames = new ArrayList<>();
        for (JsonNode s : rule.path("subjects")) {
            switch (s.path("kind").asString("")) {
                case "User" -> userNames.add(s.path("user").path("name").asString(""));
                case "Group" -> groupNames.add(s.path("group").path("name").asString(""));
                case "ServiceAccount" -> serviceAccounts.add(new String[] {
                        s.path("serviceAccount").path("namespace").asString(""),
                        s.path("serviceAccount").path("name").asString("")});
                default -> {
                }
            }
        }
        users = Names.of(userNames);
        groups = Names.of(groupNames);
        for (JsonNode r : rule.path("resourceRules")) {
            resourceRules.add(new ResourceRule(Names.of(r.path("verbs")), Names.of(r.path("apiGroups")),
                    Names.of(r.path("resources")), Names.of(r.path("namespaces")), r.path("clusterScope").asBoolean(false)));
        }
        for (JsonNode r : rule.path("nonResourceRules")) {
            Set<String> urls = new java.util.HashSet<>();
            List<String> prefixes = new ArrayList<>();
            boolean all = false;
            for (JsonNode u : r.path("nonResourceURLs")) {
                String url = u.asString("");
                all |= url.equals("*");
                if (url.endsWith("/*")) {
                    prefixes.add(url.substring(0, url.length() - 1));
                } else {
                    urls.add(url);
                }
            }
            nonResourceRules.add(new NonResourceRule(Names.of(r.path("verbs")), urls, prefixes, all));
        }
    }

    boolean matches(RequestAttributes a) {
        if (!subjectMatches(a.user())) {
            return false;
        }
        if (a.resourceRequest()) {
            String resource = a.subresource().isEmpty() ? a.resource() : a.resource() + "/" + a.subresource();
            for (ResourceRule r : resourceRules) {
                if (r.verbs().has(a.verb()) && r.groups().has(a.apiGroup()) && r.resources().has(resource)
                        && (a.namespace().isEmpty() ? r.clusterScope() : r.namespaces().has(a.namespace()))) {
                    return true;
                }
            }
            return false;
        }
        for (NonResourceRule r : nonResourceRules) {
            if (r.verbs().has(a.verb()) && (r.all() || r.urls().contains(a.path())
                    || r.prefixes().stream().anyMatch(a.path()::startsWith))) {
                return true;
            }
        }
        return false;
    }

    private boolean subjectMatches(UserInfo user) {
        if (user == null) {
            return false;
        }
        if (users.has(user.name())) {
            return true;
        }
        if (groups.all()) {
            return true;
        }
        for (String g : user.groups()) {
            if (groups.names().contains(g)) {
                return true;
            }
        }
        String prefix = "system:serviceaccount:";
        if (!serviceAccounts.isEmpty() && user.name().startsWith(prefix)) {
            String[] parts = user.name().substring(prefix.length()).split(":", 2);
            for (String[] sa : serviceAccounts) {
                if (parts.length == 2 && (sa[0].equals("*") || sa[0].equals(parts[0]))
                        && (sa[1].equals("*") || sa[1].equals(parts[1]))) {
                    return true;
                }
            }
        }
        return false;
    }
}

package io.cybernetes.auth.internal;

import io.cybernetes.auth.RequestAttributes;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

import java.util.ArrayList;
import java.util.List;

/**
 * How an RBAC rule matches a request, and when one set of rules covers another (the
 * escalation check), with Kubernetes' semantics: {@code *} for verbs, groups, resources
 * and paths; {@code *\/scale}-style subresource wildcards; resourceNames that only match
 * named requests; non-resource URLs ending in {@code *} as prefixes.
 */
final class PolicyRules {

    private PolicyRules() {
    }

    static boolean allows(List<PolicyRule> rules, RequestAttributes a) {
        for (PolicyRule r : rules) {
            if (allows(r, a)) {
                return true;
            }
        }
        return false;
    }

    static boolean allows(PolicyRule r, RequestAttributes a) {
        if (!has(r.getVerbs(), a.verb())) {
            return false;
        }
        if (!a.resourceRequest()) {
            return urlMatches(r.getNonResourceURLs(), a.path());
        }
        return has(r.getApiGroups(), a.apiGroup())
                && resourceMatches(r.getResources(), a.resource(), a.subresource())
                && nameMatches(r.getResourceNames(), a.name());
    }

    private static boolean has(List<String> values, String v) {
        if (values == null) {
            return false;
        }
        for (String s : values) {
            if (s.equals("*") || s.equals(v)) {
                return true;
            }
        }
        return false;
    }

    static boolean resourceMatches(List<String> ruleResources, String resource, String subresource) {
        if (ruleResources == null) {
            return false;
        }
        String combined = subresource.isEmpty() ? resource : resource + "/" + subresource;
        for (String r : ruleResources) {
            if (r.equals("*") || r.equals(combined)) {
                return true;
            }
            if (!subresource.isEmpty() && r.equals("*/" + subresource)) {
                return true;
            }
        }
        return false;
    }

    private static boolean nameMatches(List<String> names, String name) {
        if (names == null || names.isEmpty()) {
            return true;
        }
        return !name.isEmpty() && names.contains(name);
    }

    static boolean urlMatches(List<String> urls, String path) {
        if (urls == null) {
            return false;
        }
        for (String u : urls) {
            if (u.equals("*") || u.equals(path)
                    || (u.endsWith("*") && path.startsWith(u.substring(0, u.length() - 1)))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The parts of {@code wanted} that {@code held} does not cover, each broken down to one
     * verb, group, resource and name (or one verb and path), as Kubernetes' escalation
     * check reports them. Empty when every part is covered.
     */
    static List<PolicyRule> uncovered(List<PolicyRule> held, List<PolicyRule> wanted) {
        List<PolicyRule> missing = new ArrayList<>();
        for (PolicyRule w : wanted) {
            for (PolicyRule atom : atoms(w)) {
                if (held.stream().noneMatch(h -> covers(h, atom))) {
                    missing.add(atom);
                }
            }
        }
        return missing;
    }

    private static List<PolicyRule> atoms(PolicyRule r) {
        List<PolicyRule> out = new ArrayList<>();
        for (String verb : nonNull(r.getVerbs())) {
            for (String group : nonNull(r.getApiGroups())) {
                for (String res : nonNull(r.getResources())) {
                    List<String> names = nonNull(r.getResourceNames());
                    if (names.isEmpty()) {
                        out.add(atom(verb, group, res, null, null));
                    } else {
                        names.forEach(n -> out.add(atom(verb, group, res, n, null)));
                    }
                }
            }
            for (String url : nonNull(r.getNonResourceURLs())) {
                out.add(atom(verb, null, null, null, url));
            }
        }
        return out;
    }

    private static PolicyRule atom(String verb, String group, String resource, String name, String url) {
        PolicyRule p = new PolicyRule();
        p.setVerbs(List.of(verb));
        p.setApiGroups(group == null ? List.of() : List.of(group));
        p.setResources(resource == null ? List.of() : List.of(resource));
        p.setResourceNames(name == null ? List.of() : List.of(name));
        p.setNonResourceURLs(url == null ? List.of() : List.of(url));
        return p;
    }

    private static boolean covers(PolicyRule held, PolicyRule atom) {
        String verb = atom.getVerbs().get(0);
        if (!has(held.getVerbs(), verb)) {
            return false;
        }
        if (!atom.getNonResourceURLs().isEmpty()) {
            String url = atom.getNonResourceURLs().get(0);
            for (String u : nonNull(held.getNonResourceURLs())) {
                if (u.equals("*") || u.equals(url) || (u.endsWith("*") && url.startsWith(u.substring(0, u.length() - 1)))) {
                    return true;
                }
            }
            return false;
        }
        if (!has(held.getApiGroups(), atom.getApiGroups().get(0))) {
            return false;
        }
        String res = atom.getResources().get(0);
        boolean resourceCovered = false;
        for (String h : nonNull(held.getResources())) {
            int slash = res.indexOf('/');
            if (h.equals("*") || h.equals(res) || (slash > 0 && h.equals("*" + res.substring(slash)))) {
                resourceCovered = true;
                break;
            }
        }
        if (!resourceCovered) {
            return false;
        }
        List<String> heldNames = nonNull(held.getResourceNames());
        return heldNames.isEmpty() || (!atom.getResourceNames().isEmpty()
                && heldNames.contains(atom.getResourceNames().get(0)));
    }

    private static List<String> nonNull(List<String> l) {
        return l == null ? List.of() : l;
    }

    /** A rule as Kubernetes prints it in escalation errors: {@code {APIGroups:[""], Resources:["secrets"], Verbs:["get"]}}. */
    static String describe(PolicyRule r) {
        StringBuilder sb = new StringBuilder("{");
        List<String> parts = new ArrayList<>();
        if (!nonNull(r.getApiGroups()).isEmpty()) {
            parts.add("APIGroups:" + quoted(r.getApiGroups()));
        }
        if (!nonNull(r.getResources()).isEmpty()) {
            parts.add("Resources:" + quoted(r.getResources()));
        }
        if (!nonNull(r.getResourceNames()).isEmpty()) {
            parts.add("ResourceNames:" + quoted(r.getResourceNames()));
        }
        if (!nonNull(r.getNonResourceURLs()).isEmpty()) {
            parts.add("NonResourceURLs:" + quoted(r.getNonResourceURLs()));
        }
        parts.add("Verbs:" + quoted(r.getVerbs()));
        sb.append(String.join(", ", parts)).append('}');
        return sb.toString();
    }

    private static String quoted(List<String> values) {
        return "[" + String.join(" ", values.stream().map(v -> "\"" + v + "\"").toList()) + "]";
    }
}

package io.cybernetes.auth.internal;

import io.cybernetes.api.Json;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Attribute-based authorization from a policy file, kube-apiserver's ABAC mode
 * ({@code --authorization-policy-file}): one JSON policy per line, {@code
 * abac.authorization.kubernetes.io/v1beta1} (or the unversioned v0 form), blank lines and
 * lines starting with {@code #} skipped. A policy allows a request when its subject
 * matches (user and/or group, {@code *} meaning every authenticated user), it is not
 * {@code readonly} or the verb only reads (get, list, watch), and either its namespace,
 * resource and apiGroup match a resource request ({@code *} for any; the subresource is not
 * looked at) or its nonResourcePath matches a non-resource request (exactly, {@code *}, or a
 * prefix ending in {@code *}). Anything no policy allows gets no opinion from it.
 */
final class AbacAuthorizer implements Authorizer {

    static final String API_VERSION = "abac.authorization.kubernetes.io/v1beta1";
    private static final Set<String> READ_ONLY = Set.of("get", "list", "watch");

    /** One policy line's spec, after the v0 and wildcard-subject conversions Kubernetes makes. */
    record Policy(String user, String group, boolean readonly, String apiGroup, String resource, String namespace,
                  String nonResourcePath) {
    }

    private final List<Policy> policies;

    AbacAuthorizer(List<Policy> policies) {
        this.policies = List.copyOf(policies);
    }

    /** Reads the policy file; a line that is not a policy fails with its number and why, as kube-apiserver fails to start. */
    static AbacAuthorizer fromFile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the ABAC policy file " + file + ": " + e.getMessage(), e);
        }
        List<Policy> policies = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                policies.add(parse(line));
            } catch (IllegalArgumentException | JacksonException e) {
                throw new IllegalStateException(file + " line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return new AbacAuthorizer(policies);
    }

    static Policy parse(String line) {
        JsonNode json = Json.MAPPER.readTree(line);
        if (!json.isObject()) {
            throw new IllegalArgumentException("a policy is a JSON object");
        }
        String apiVersion = json.path("apiVersion").asString("");
        if (apiVersion.isEmpty()) {
            return fromV0(json);
        }
        if (!API_VERSION.equals(apiVersion)) {
            throw new IllegalArgumentException("unknown apiVersion \"" + apiVersion + "\" (want " + API_VERSION + ")");
        }
        if (!"Policy".equals(json.path("kind").asString(""))) {
            throw new IllegalArgumentException("kind must be Policy");
        }
        JsonNode spec = json.path("spec");
        String user = text(spec, "user");
        String group = text(spec, "group");
        if ("*".equals(user) || "*".equals(group)) {
            // a wildcard subject means every authenticated user
            user = "";
            group = UserInfo.AUTHENTICATED;
        }
        return new Policy(user, group, spec.path("readonly").asBoolean(false), text(spec, "apiGroup"),
                text(spec, "resource"), text(spec, "namespace"), text(spec, "nonResourcePath"));
    }

    /** The unversioned form: no subject means every authenticated user, no resource or namespace any of them. */
    private static Policy fromV0(JsonNode json) {
        String user = text(json, "user");
        String group = text(json, "group");
        if (user.isEmpty() && group.isEmpty() || "*".equals(user) || "*".equals(group)) {
            user = "";
            group = UserInfo.AUTHENTICATED;
        }
        String resource = text(json, "resource");
        String namespace = text(json, "namespace");
        return new Policy(user, group, json.path("readonly").asBoolean(false), "*",
                resource.isEmpty() ? "*" : resource, namespace.isEmpty() ? "*" : namespace,
                resource.isEmpty() ? "*" : "");
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        if (!v.isMissingNode() && !v.isNull() && !v.isString()) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return v.asString("");
    }

    @Override
    public Decision authorize(RequestAttributes a) {
        for (Policy p : policies) {
            if (subjectMatches(p, a.user()) && (!p.readonly() || READ_ONLY.contains(a.verb()))
                    && (a.resourceRequest() ? resourceMatches(p, a) : nonResourceMatches(p, a.path()))) {
                return Decision.allow();
            }
        }
        return Decision.noOpinion("No policy matched.");
    }

    private static boolean subjectMatches(Policy p, UserInfo user) {
        boolean matched = false;
        if (!p.user().isEmpty()) {
            if (!p.user().equals(user.name())) {
                return false;
            }
            matched = true;
        }
        if (!p.group().isEmpty()) {
            if (!user.inGroup(p.group())) {
                return false;
            }
            matched = true;
        }
        return matched;
    }

    private static boolean resourceMatches(Policy p, RequestAttributes a) {
        return matches(p.namespace(), a.namespace()) && matches(p.resource(), a.resource())
                && matches(p.apiGroup(), a.apiGroup());
    }

    private static boolean matches(String wanted, String actual) {
        return "*".equals(wanted) || wanted.equals(actual);
    }

    private static boolean nonResourceMatches(Policy p, String path) {
        String wanted = p.nonResourcePath();
        if (wanted.isEmpty()) {
            return false;
        }
        return "*".equals(wanted) || wanted.equals(path)
                || wanted.endsWith("*") && path.startsWith(wanted.replaceAll("\\*+$", ""));
    }
}

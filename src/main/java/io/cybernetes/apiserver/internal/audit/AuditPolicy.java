package io.cybernetes.apiserver.internal.audit;

import io.cybernetes.api.Json;
import io.cybernetes.auth.RequestAttributes;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An audit.k8s.io/v1 Policy: rules tried in order, the first that matches the request's
 * user, groups, verb, resource, namespace or path gives its level (None, Metadata,
 * Request, RequestResponse, recorded here as Request); no match means None.
 */
final class AuditPolicy {

    enum Level { NONE, METADATA, REQUEST }

    private record Rule(Level level, List<String> users, List<String> groups, List<String> verbs,
                        List<JsonNode> resources, List<String> namespaces, List<String> paths) {
    }

    private final List<Rule> rules;

    private AuditPolicy(List<Rule> rules) {
        this.rules = rules;
    }

    /** The policy in the file, or (when there is none) Metadata for everything but health checks. */
    static AuditPolicy load(Path file) {
        if (file == null || !Files.exists(file)) {
            return parse(Json.YAML.readTree("""
                    rules:
                    - level: None
                      nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
                    - level: Metadata
                    """));
        }
        try {
            return parse(Json.YAML.readTree(Files.readString(file)));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the audit policy " + file, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("the audit policy " + file + " is not valid YAML: " + e.getMessage(), e);
        }
    }

    static AuditPolicy parse(JsonNode policy) {
        List<Rule> rules = new ArrayList<>();
        for (JsonNode r : policy.path("rules")) {
            String level = r.path("level").asString("");
            Level l = switch (level) {
                case "None" -> Level.NONE;
                case "Metadata" -> Level.METADATA;
                case "Request", "RequestResponse" -> Level.REQUEST;
                default -> throw new IllegalStateException("audit policy rule with unknown level \"" + level + "\"");
            };
            List<JsonNode> resources = new ArrayList<>();
            r.path("resources").forEach(resources::add);
            rules.add(new Rule(l, Json.strings(r.path("users")), Json.strings(r.path("userGroups")), Json.strings(r.path("verbs")),
                    resources, Json.strings(r.path("namespaces")), Json.strings(r.path("nonResourceURLs"))));
        }
        return new AuditPolicy(List.copyOf(rules));
    }

    Level levelFor(RequestAttributes a) {
        for (Rule r : rules) {
            if (matches(r, a)) {
                return r.level();
            }
        }
        return Level.NONE;
    }

    private static boolean matches(Rule r, RequestAttributes a) {
        if (!r.users().isEmpty() && (a.user() == null || !r.users().contains(a.user().name()))) {
            return false;
        }
        if (!r.groups().isEmpty() && (a.user() == null || r.groups().stream().noneMatch(a.user().groups()::contains))) {
            return false;
        }
        if (!r.verbs().isEmpty() && !r.verbs().contains(a.verb())) {
            return false;
        }
        if (!r.paths().isEmpty()) {
            return !a.resourceRequest() && r.paths().stream().anyMatch(p -> p.endsWith("*")
                    ? a.path().startsWith(p.substring(0, p.length() - 1)) : p.equals(a.path()));
        }
        if (!r.resources().isEmpty() || !r.namespaces().isEmpty()) {
            if (!a.resourceRequest()) {
                return false;
            }
            if (!r.namespaces().isEmpty() && !r.namespaces().contains(a.namespace())) {
                return false;
            }
            if (!r.resources().isEmpty() && r.resources().stream().noneMatch(g -> resourceMatches(g, a))) {
                return false;
            }
        }
        return true;
    }

    private static boolean resourceMatches(JsonNode group, RequestAttributes a) {
        if (!group.path("group").asString("").equals(a.apiGroup())) {
            return false;
        }
        List<String> names = Json.strings(group.path("resourceNames"));
        if (!names.isEmpty() && !names.contains(a.name())) {
            return false;
        }
        List<String> resources = Json.strings(group.path("resources"));
        if (resources.isEmpty()) {
            return true;
        }
        String full = a.resourceWithSubresource();
        return resources.stream().anyMatch(r -> r.equals("*") || r.equals(full) || r.equals(a.resource() + "/*")
                || (r.startsWith("*/") && r.equals("*/" + a.subresource())));
    }
}

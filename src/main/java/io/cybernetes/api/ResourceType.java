package io.cybernetes.api;

import io.fabric8.kubernetes.api.model.HasMetadata;

import java.util.List;
import java.util.Set;

/**
 * One served resource: how it is addressed (group, version, plural), what it is
 * (kind, scope) and what it supports (subresources, short names).
 */
public record ResourceType(
        String group,
        String version,
        String kind,
        String plural,
        String singular,
        boolean namespaced,
        List<String> shortNames,
        List<String> categories,
        Set<String> subresources,
        NameRule nameRule,
        Class<? extends HasMetadata> modelClass,
        List<String> verbs) {

    /** The verbs of a stored kind. */
    public static final List<String> STORED_VERBS = List.of("create", "delete", "deletecollection", "get", "list",
            "patch", "update", "watch");

    /** The one verb of a review: created, answered and never stored. */
    public static final List<String> CREATE_ONLY = List.of("create");

    /** The verbs of a read-only view the server computes (not stored, never written). */
    public static final List<String> READ_ONLY = List.of("get", "list");

    /** How names of a kind are validated. */
    public enum NameRule { DNS1123_SUBDOMAIN, DNS1123_LABEL, DNS1035_LABEL, PATH_SEGMENT }

    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    public String listKind() {
        return kind + "List";
    }

    /** The resource as Kubernetes names it in messages: {@code pods} or {@code deployments.apps}. */
    public String groupResource() {
        return group.isEmpty() ? plural : plural + "." + group;
    }

    /** The store key prefix of every object of this type, ending in '/'. */
    public String keyPrefix() {
        return (group.isEmpty() ? "core" : group) + "/" + plural + "/";
    }

    /** The store key prefix of the objects in one namespace (or all of them when namespace is null). */
    public String keyPrefix(String namespace) {
        return namespaced && namespace != null ? keyPrefix() + namespace + "/" : keyPrefix();
    }

    public String key(String namespace, String name) {
        return namespaced ? keyPrefix() + namespace + "/" + name : keyPrefix() + name;
    }

    /** Whether objects of this kind are stored (false for reviews, only created and answered, and for views). */
    public boolean stored() {
        return verbs.contains("get") && verbs.contains("create");
    }

    /** Whether this is a read-only view computed by a component of the server. */
    public boolean view() {
        return !verbs.contains("create");
    }

    public boolean hasSubresource(String name) {
        return subresources.contains(name);
    }
}

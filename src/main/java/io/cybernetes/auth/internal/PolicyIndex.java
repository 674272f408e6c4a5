package io.cybernetes.auth.internal;

import io.cybernetes.api.LabelSelector;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.cybernetes.auth.UserInfo;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The RBAC objects, indexed for the questions the authorizer asks: which bindings name
 * this user or one of its groups, cluster-wide and in one namespace, and which rules a
 * role grants. An aggregated ClusterRole grants its own rules and those of every
 * ClusterRole its aggregationRule selects (transitively), computed here so that
 * aggregation takes effect without waiting for the API server to write the union into
 * the object (which it does, for people to read).
 * Written by one feeding thread, read concurrently by request threads.
 */
final class PolicyIndex {

    private final Map<String, Role> roles = new ConcurrentHashMap<>();
    private final Map<String, ClusterRole> clusterRoles = new ConcurrentHashMap<>();
    private final Map<String, RoleBinding> roleBindings = new ConcurrentHashMap<>();
    private final Map<String, ClusterRoleBinding> clusterRoleBindings = new ConcurrentHashMap<>();
    /** subject key → ClusterRoleBinding names. */
    private final Map<String, Set<String>> clusterBindingsBySubject = new ConcurrentHashMap<>();
    /** namespace + "|" + subject key → RoleBinding keys (namespace/name). */
    private final Map<String, Set<String>> bindingsBySubject = new ConcurrentHashMap<>();
    private final Map<String, List<PolicyRule>> effectiveClusterRules = new ConcurrentHashMap<>();

    /** Returns true when the object was one of the RBAC kinds. */
    boolean put(HasMetadata o) {
        if (o instanceof Role r) {
            roles.put(key(r), r);
        } else if (o instanceof ClusterRole r) {
            clusterRoles.put(r.getMetadata().getName(), r);
            effectiveClusterRules.clear();
        } else if (o instanceof RoleBinding b) {
            RoleBinding old = roleBindings.put(key(b), b);
            if (old != null) {
                unindex(old);
            }
            for (Subject s : nonNull(b.getSubjects())) {
                bindingsBySubject.computeIfAbsent(b.getMetadata().getNamespace() + "|"
                        + subjectKey(s, b.getMetadata().getNamespace()), k -> ConcurrentHashMap.newKeySet()).add(key(b));
            }
        } else if (o instanceof ClusterRoleBinding b) {
            ClusterRoleBinding old = clusterRoleBindings.put(b.getMetadata().getName(), b);
            if (old != null) {
                unindex(old);
            }
            for (Subject s : nonNull(b.getSubjects())) {
                clusterBindingsBySubject.computeIfAbsent(subjectKey(s, ""), k -> ConcurrentHashMap.newKeySet())
                        .add(b.getMetadata().getName());
            }
        } else {
            return false;
        }
        return true;
    }

    boolean remove(HasMetadata o) {
        if (o instanceof Role r) {
            roles.remove(key(r));
        } else if (o instanceof ClusterRole r) {
            clusterRoles.remove(r.getMetadata().getName());
            effectiveClusterRules.clear();
        } else if (o instanceof RoleBinding b) {
            RoleBinding old = roleBindings.remove(key(b));
            if (old != null) {
                unindex(old);
            }
        } else if (o instanceof ClusterRoleBinding b) {
            ClusterRoleBinding old = clusterRoleBindings.remove(b.getMetadata().getName());
            if (old != null) {
                unindex(old);
            }
        } else {
            return false;
        }
        return true;
    }

    private void unindex(RoleBinding b) {
        for (Subject s : nonNull(b.getSubjects())) {
            Set<String> set = bindingsBySubject.get(b.getMetadata().getNamespace() + "|"
                    + subjectKey(s, b.getMetadata().getNamespace()));
            if (set != null) {
                set.remove(key(b));
            }
        }
    }

    private void unindex(ClusterRoleBinding b) {
        for (Subject s : nonNull(b.getSubjects())) {
            Set<String> set = clusterBindingsBySubject.get(subjectKey(s, ""));
            if (set != null) {
                set.remove(b.getMetadata().getName());
            }
        }
    }

    /** The index keys a user is known by: its name and each of its groups. */
    static List<String> subjectKeys(UserInfo user) {
        List<String> keys = new ArrayList<>(user.groups().size() + 1);
        keys.add("u:" + user.name());
        for (String g : user.groups()) {
            keys.add("g:" + g);
        }
        return keys;
    }

    /** A binding subject's key; a ServiceAccount subject is the user its tokens authenticate as. */
    private static String subjectKey(Subject s, String bindingNamespace) {
        String kind = s.getKind() == null ? "" : s.getKind();
        return switch (kind) {
            case "Group" -> "g:" + s.getName();
            case "ServiceAccount" -> "u:" + UserInfo.SERVICE_ACCOUNT_PREFIX
                    + (s.getNamespace() == null || s.getNamespace().isEmpty() ? bindingNamespace : s.getNamespace())
                    + ":" + s.getName();
            default -> "u:" + s.getName();
        };
    }

    /** One binding that names a user: which binding, and which role it binds. */
    record Bound(String bindingKind, String bindingName, String namespace, RoleRef ref) {
        String describe() {
            return bindingKind + " \"" + (namespace.isEmpty() ? "" : namespace + "/") + bindingName + "\" of "
                    + ref.getKind() + " \"" + ref.getName() + "\"";
        }
    }

    /** The bindings that name the user cluster-wide. */
    List<Bound> clusterBindings(UserInfo user) {
        List<Bound> refs = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String k : subjectKeys(user)) {
            for (String name : clusterBindingsBySubject.getOrDefault(k, Set.of())) {
                ClusterRoleBinding b = clusterRoleBindings.get(name);
                if (b != null && seen.add(name)) {
                    refs.add(new Bound("ClusterRoleBinding", name, "", b.getRoleRef()));
                }
            }
        }
        return refs;
    }

    /** The RoleBindings in the namespace that name the user. */
    List<Bound> namespaceBindings(UserInfo user, String namespace) {
        List<Bound> refs = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String k : subjectKeys(user)) {
            for (String key : bindingsBySubject.getOrDefault(namespace + "|" + k, Set.of())) {
                RoleBinding b = roleBindings.get(key);
                if (b != null && seen.add(key)) {
                    refs.add(new Bound("RoleBinding", b.getMetadata().getName(), namespace, b.getRoleRef()));
                }
            }
        }
        return refs;
    }

    /** The rules a role reference grants; a Role is looked up in the namespace of the binding. */
    List<PolicyRule> rules(RoleRef ref, String namespace) {
        if ("Role".equals(ref.getKind())) {
            Role r = roles.get(namespace + "/" + ref.getName());
            return r == null ? List.of() : nonNull(r.getRules());
        }
        return clusterRoleRules(ref.getName());
    }

    boolean exists(RoleRef ref, String namespace) {
        return "Role".equals(ref.getKind()) ? roles.containsKey(namespace + "/" + ref.getName())
                : clusterRoles.containsKey(ref.getName());
    }

    /** A ClusterRole's rules, with those of the roles it aggregates. */
    List<PolicyRule> clusterRoleRules(String name) {
        List<PolicyRule> cached = effectiveClusterRules.get(name);
        if (cached != null) {
            return cached;
        }
        Set<PolicyRule> out = new LinkedHashSet<>();
        collect(name, out, new HashSet<>());
        List<PolicyRule> rules = List.copyOf(out);
        effectiveClusterRules.put(name, rules);
        return rules;
    }

    private void collect(String name, Set<PolicyRule> out, Set<String> visited) {
        ClusterRole r = clusterRoles.get(name);
        if (r == null || !visited.add(name)) {
            return;
        }
        if (r.getAggregationRule() == null || r.getAggregationRule().getClusterRoleSelectors() == null
                || r.getAggregationRule().getClusterRoleSelectors().isEmpty()) {
            out.addAll(nonNull(r.getRules()));
            return;
        }
        // an aggregated role's own rules are only the last aggregation written into it: the
        // selected roles are the truth, so a rule taken out of them goes out of this one too
        for (io.fabric8.kubernetes.api.model.LabelSelector sel : r.getAggregationRule().getClusterRoleSelectors()) {
            LabelSelector selector = LabelSelector.fromObject(io.cybernetes.api.Json.toTree(sel));
            if (selector.isEmpty()) {
                continue; // an empty selector would aggregate everything; Kubernetes ignores it too
            }
            // in name order, so that the union (which the aggregation writer stores) is always the same list
            for (ClusterRole candidate : clusterRoles.values().stream()
                    .sorted(java.util.Comparator.comparing(c -> c.getMetadata().getName())).toList()) {
                Map<String, String> labels = candidate.getMetadata().getLabels();
                if (!candidate.getMetadata().getName().equals(name) && selector.matches(labels == null ? Map.of() : labels)) {
                    collect(candidate.getMetadata().getName(), out, visited);
                }
            }
        }
    }

    private static String key(HasMetadata o) {
        return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    private static <T> List<T> nonNull(List<T> l) {
        return l == null ? List.of() : l;
    }
}

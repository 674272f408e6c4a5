package io.cybernetes.auth;

import io.fabric8.kubernetes.api.model.rbac.AggregationRule;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleRefBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ClusterRoles and ClusterRoleBindings every cluster has, modelled on Kubernetes'
 * bootstrap policy and reconciled at every start: missing ones are created, missing
 * rules and subjects added, unless the object is annotated
 * {@code rbac.authorization.kubernetes.io/autoupdate: "false"}.
 */
public final class BootstrapPolicy {

    public static final String AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate";
    public static final String AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-";
    public static final String KUBE_SCHEDULER = "system:kube-scheduler";
    public static final String KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager";

    private static final List<String> READ = List.of("get", "list", "watch");
    private static final List<String> WRITE = List.of("create", "delete", "deletecollection", "patch", "update");
    private static final List<String> ALL = List.of("create", "delete", "deletecollection", "get", "list", "patch",
            "update", "watch");
    private static final String RBAC = "rbac.authorization.k8s.io";

    private BootstrapPolicy() {
    }

    public static List<ClusterRole> clusterRoles() {
        List<ClusterRole> roles = new ArrayList<>();
        roles.add(role("cluster-admin", Map.of(), List.of(rule(List.of("*"), List.of("*"), List.of("*")),
                nonResource(List.of("*"), List.of("*")))));
        roles.add(role("system:discovery", Map.of(), List.of(nonResource(List.of("get"), List.of("/api", "/api/*",
                "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version",
                "/version/")))));
        roles.add(role("system:public-info-viewer", Map.of(), List.of(nonResource(List.of("get"),
                List.of("/healthz", "/livez", "/readyz", "/version", "/version/")))));
        roles.add(role("system:basic-user", Map.of(), List.of(
                rule(List.of("create"), List.of("authorization.k8s.io"),
                        List.of("selfsubjectaccessreviews", "selfsubjectrulesreviews")),
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("selfsubjectreviews")),
                // asking for an object's history; the answer needs get on the object itself
                rule(List.of("list"), List.of("status.cybernetes.io"), List.of("objecthistories")))));
        roles.add(aggregated("admin", "admin", Map.of()));
        roles.add(aggregated("edit", "edit", Map.of(AGGREGATE_TO + "admin", "true")));
        roles.add(aggregated("view", "view", Map.of(AGGREGATE_TO + "edit", "true")));
        roles.add(role("system:aggregate-to-admin", Map.of(AGGREGATE_TO + "admin", "true"), List.of(
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("localsubjectaccessreviews")),
                rule(ALL, List.of(RBAC), List.of("rolebindings", "roles")),
                rule(ALL, List.of(""), List.of("resourcequotas", "limitranges")))));
        roles.add(role("system:aggregate-to-edit", Map.of(AGGREGATE_TO + "edit", "true"), List.of(
                rule(READ, List.of(""), List.of("pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
                        "services/proxy")),
                rule(List.of("impersonate"), List.of(""), List.of("serviceaccounts")),
                rule(WRITE, List.of(""), List.of("pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy")),
                rule(List.of("create"), List.of(""), List.of("pods/eviction", "serviceaccounts/token")),
                rule(WRITE, List.of(""), List.of("configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                        "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy")),
                rule(WRITE, List.of("apps"), List.of("daemonsets", "deployments", "deployments/rollback",
                        "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale")),
                rule(WRITE, List.of("autoscaling"), List.of("horizontalpodautoscalers")),
                rule(WRITE, List.of("batch"), List.of("cronjobs", "jobs")),
                rule(WRITE, List.of("coordination.k8s.io"), List.of("leases")),
                rule(WRITE, List.of("policy"), List.of("poddisruptionbudgets")))));
        roles.add(role("system:aggregate-to-view", Map.of(AGGREGATE_TO + "view", "true"), List.of(
                rule(READ, List.of(""), List.of("configmaps", "endpoints", "persistentvolumeclaims",
                        "persistentvolumeclaims/status", "pods", "replicationcontrollers", "replicationcontrollers/scale",
                        "serviceaccounts", "services", "services/status")),
                rule(READ, List.of(""), List.of("bindings", "events", "limitranges", "namespaces/status", "pods/log",
                        "pods/status", "replicationcontrollers/status", "resourcequotas", "resourcequotas/status")),
                rule(READ, List.of(""), List.of("namespaces")),
                rule(READ, List.of("apps"), List.of("controllerrevisions", "daemonsets", "daemonsets/status",
                        "deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
                        "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status")),
                rule(READ, List.of("autoscaling"), List.of("horizontalpodautoscalers", "horizontalpodautoscalers/status")),
                rule(READ, List.of("batch"), List.of("cronjobs", "cronjobs/status", "jobs", "jobs/status")),
                rule(READ, List.of("coordination.k8s.io"), List.of("leases")),
                rule(READ, List.of("status.cybernetes.io"), List.of("controllers", "deploymentreconciles",
                        "replicasetreconciles", "schedulers")),
                rule(List.of("get"), List.of("status.cybernetes.io"), List.of("pods/scheduling")),
                rule(READ, List.of("policy"), List.of("poddisruptionbudgets", "poddisruptionbudgets/status")))));
        roles.add(role("system:node", Map.of(), nodeRules()));
        roles.add(role(KUBE_SCHEDULER, Map.of(), List.of(
                rule(List.of("create", "patch", "update"), List.of("", "events.k8s.io"), List.of("events")),
                rule(List.of("create"), List.of("coordination.k8s.io"), List.of("leases")),
                rule(List.of("get", "update"), List.of("coordination.k8s.io"), List.of("leases"), List.of("kube-scheduler")),
                rule(READ, List.of(""), List.of("nodes", "namespaces", "persistentvolumeclaims", "persistentvolumes",
                        "services", "replicationcontrollers")),
                rule(List.of("delete", "get", "list", "watch"), List.of(""), List.of("pods")),
                rule(List.of("create"), List.of(""), List.of("bindings", "pods/binding")),
                rule(List.of("patch", "update"), List.of(""), List.of("pods/status")),
                rule(READ, List.of("apps"), List.of("replicasets", "statefulsets")),
                rule(READ, List.of("policy"), List.of("poddisruptionbudgets")),
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("subjectaccessreviews")))));
        roles.add(role(KUBE_CONTROLLER_MANAGER, Map.of(), List.of(
                // The built-in controllers run under this one identity (Kubernetes gives each its own role):
                // the namespace controller and garbage collector delete anything, the workload controllers
                // write pods and their owners, node lifecycle taints nodes and evicts.
                rule(List.of("get", "list", "watch", "delete", "deletecollection"), List.of("*"), List.of("*")),
                rule(List.of("patch", "update"), List.of("*"), List.of("*")),
                rule(List.of("create"), List.of(""), List.of("pods", "events", "serviceaccounts", "serviceaccounts/token",
                        "pods/eviction", "pods/binding")),
                rule(List.of("create"), List.of("apps"), List.of("replicasets", "controllerrevisions")),
                // the clusterrole-aggregation controller writes rules it does not hold itself
                rule(List.of("escalate"), List.of(RBAC), List.of("clusterroles")),
                rule(List.of("create"), List.of("coordination.k8s.io"), List.of("leases")),
                rule(List.of("create"), List.of("events.k8s.io"), List.of("events")),
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("subjectaccessreviews")))));
        return roles;
    }

    public static List<ClusterRoleBinding> clusterRoleBindings() {
        return List.of(
                binding("cluster-admin", group(UserInfo.MASTERS)),
                binding("system:discovery", group(UserInfo.AUTHENTICATED)),
                binding("system:basic-user", group(UserInfo.AUTHENTICATED)),
                binding("system:public-info-viewer", group(UserInfo.AUTHENTICATED), group(UserInfo.UNAUTHENTICATED)),
                // As in Kubernetes, nodes are authorized by the Node authorizer, not through this binding.
                binding("system:node"),
                binding(KUBE_SCHEDULER, user(KUBE_SCHEDULER)),
                binding(KUBE_CONTROLLER_MANAGER, user(KUBE_CONTROLLER_MANAGER)));
    }

    /** What a node may do on resources the Node authorizer does not check object by object. */
    public static List<PolicyRule> nodeRules() {
        return List.of(
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
                rule(List.of("create"), List.of("authorization.k8s.io"),
                        List.of("subjectaccessreviews", "localsubjectaccessreviews")),
                rule(READ, List.of(""), List.of("services", "nodes", "pods")),
                rule(List.of("create", "patch", "update"), List.of(""), List.of("nodes", "nodes/status")),
                rule(List.of("create", "patch", "update"), List.of("", "events.k8s.io"), List.of("events")),
                rule(List.of("create", "delete"), List.of(""), List.of("pods")),
                rule(List.of("patch", "update"), List.of(""), List.of("pods/status")),
                rule(List.of("create"), List.of(""), List.of("pods/eviction")),
                rule(List.of("get"), List.of(""), List.of("configmaps", "secrets", "persistentvolumeclaims",
                        "persistentvolumes", "endpoints")),
                rule(List.of("create"), List.of(""), List.of("serviceaccounts/token")),
                rule(List.of("create", "delete", "get", "patch", "update"), List.of("coordination.k8s.io"),
                        List.of("leases")));
    }

    private static ClusterRole role(String name, Map<String, String> labels, List<PolicyRule> rules) {
        ClusterRole r = new ClusterRole();
        r.setApiVersion(RBAC + "/v1");
        r.setKind("ClusterRole");
        r.setMetadata(meta(name, labels));
        r.setRules(rules);
        return r;
    }

    private static ClusterRole aggregated(String name, String aggregateFrom, Map<String, String> labels) {
        ClusterRole r = role(name, labels, List.of());
        r.setAggregationRule(new AggregationRule(List.of(new LabelSelectorBuilder()
                .addToMatchLabels(AGGREGATE_TO + aggregateFrom, "true").build())));
        return r;
    }

    private static io.fabric8.kubernetes.api.model.ObjectMeta meta(String name, Map<String, String> labels) {
        Map<String, String> all = new LinkedHashMap<>(labels);
        all.put("kubernetes.io/bootstrapping", "rbac-defaults");
        return new ObjectMetaBuilder().withName(name).withLabels(all)
                .withAnnotations(Map.of(AUTOUPDATE, "true")).build();
    }

    private static ClusterRoleBinding binding(String role, Subject... subjects) {
        ClusterRoleBinding b = new ClusterRoleBinding();
        b.setApiVersion(RBAC + "/v1");
        b.setKind("ClusterRoleBinding");
        b.setMetadata(meta(role, Map.of()));
        b.setRoleRef(new RoleRefBuilder().withApiGroup(RBAC).withKind("ClusterRole").withName(role).build());
        b.setSubjects(List.of(subjects));
        return b;
    }

    private static Subject group(String name) {
        return new SubjectBuilder().withApiGroup(RBAC).withKind("Group").withName(name).build();
    }

    private static Subject user(String name) {
        return new SubjectBuilder().withApiGroup(RBAC).withKind("User").withName(name).build();
    }

    private static PolicyRule rule(List<String> verbs, List<String> groups, List<String> resources) {
        return new PolicyRuleBuilder().withVerbs(verbs).withApiGroups(groups).withResources(resources).build();
    }

    private static PolicyRule rule(List<String> verbs, List<String> groups, List<String> resources, List<String> names) {
        return new PolicyRuleBuilder().withVerbs(verbs).withApiGroups(groups).withResources(resources)
                .withResourceNames(names).build();
    }

    private static PolicyRule nonResource(List<String> verbs, List<String> urls) {
        return new PolicyRuleBuilder().withVerbs(verbs).withNonResourceURLs(urls).build();
    }
}

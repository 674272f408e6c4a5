package io.cybernetes.auth;

import io.cybernetes.api.ResourceRegistry;
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
 * The ClusterRoles and ClusterRoleBindings every cluster has: Kubernetes 1.32's bootstrap
 * policy for what this server serves (a test holds it against Kubernetes' own), plus
 * read rights on Cybernetes' own {@code status.cybernetes.io} views in {@code view} and
 * {@code system:basic-user}, and the controller manager's rights for controllers that
 * share its one identity. Reconciled at every start: missing ones are created, missing
 * rules and subjects added, unless the object is annotated
 * {@code rbac.authorization.kubernetes.io/autoupdate: "false"}.
 */
public final class BootstrapPolicy {

    public static final String AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate";
    public static final String AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-";
    public static final String KUBE_SCHEDULER = "system:kube-scheduler";
    /** The in-process simulated nodes' watch of the pods bound to any of them (Cybernetes' own component). */
    public static final String NODE_SIMULATOR = "system:cybernetes:node-simulator";
    public static final String KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager";

    private static final List<String> READ = List.of("get", "list", "watch");
    private static final List<String> WRITE = List.of("create", "delete", "deletecollection", "patch", "update");
    private static final List<String> ALL = List.of("create", "delete", "deletecollection", "get", "list", "patch",
            "update", "watch");
    private static final List<String> EVENT_WRITE = List.of("create", "patch", "update");
    private static final String RBAC = "rbac.authorization.k8s.io";
    private static final String CERTIFICATES = "certificates.k8s.io";
    /** The group whose members may read the metrics and health endpoints, as in Kubernetes. */
    public static final String MONITORING = "system:monitoring";

    private BootstrapPolicy() {
    }

    public static List<ClusterRole> clusterRoles() {
        List<ClusterRole> roles = new ArrayList<>();
        roles.add(role("cluster-admin", Map.of(), List.of(rule(List.of("*"), List.of("*"), List.of("*")),
                nonResource(List.of("*"), List.of("*")))));
        roles.add(role("system:discovery", Map.of(), List.of(nonResource(List.of("get"), List.of("/api", "/api/*",
                "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version",
                "/version/")))));
        roles.add(role("system:monitoring", Map.of(), List.of(nonResource(List.of("get"), List.of("/healthz",
                "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*")))));
        roles.add(role("system:public-info-viewer", Map.of(), List.of(nonResource(List.of("get"),
                List.of("/healthz", "/livez", "/readyz", "/version", "/version/")))));
        roles.add(role("system:basic-user", Map.of(), List.of(
                rule(List.of("create"), List.of("authorization.k8s.io"),
                        List.of("selfsubjectaccessreviews", "selfsubjectrulesreviews")),
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("selfsubjectreviews")),
                // Cybernetes: asking for an object's history; the answer needs get on the object itself
                rule(List.of("list"), List.of(ResourceRegistry.STATUS), List.of("objecthistories")))));
        roles.add(role("system:auth-delegator", Map.of(), List.of(
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("subjectaccessreviews")))));
        roles.add(role("system:service-account-issuer-discovery", Map.of(), List.of(nonResource(List.of("get"),
                List.of("/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks",
                        "/openid/v1/jwks/")))));
        roles.add(aggregated("admin", "admin", Map.of()));
        roles.add(aggregated("edit", "edit", Map.of(AGGREGATE_TO + "admin", "true")));
        roles.add(aggregated("view", "view", Map.of(AGGREGATE_TO + "edit", "true")));
        roles.add(role("system:aggregate-to-admin", Map.of(AGGREGATE_TO + "admin", "true"), List.of(
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("localsubjectaccessreviews")),
                rule(ALL, List.of(RBAC), List.of("rolebindings", "roles")))));
        roles.add(role("system:aggregate-to-edit", Map.of(AGGREGATE_TO + "edit", "true"), List.of(
                rule(READ, List.of(""), List.of("pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
                        "services/proxy")),
                rule(List.of("impersonate"), List.of(""), List.of("serviceaccounts")),
                rule(WRITE, List.of(""), List.of("pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy")),
                rule(List.of("create"), List.of(""), List.of("pods/eviction")),
                rule(WRITE, List.of(""), List.of("configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                        "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy")),
                rule(List.of("create"), List.of(""), List.of("serviceaccounts/token")),
                rule(WRITE, List.of("apps"), List.of("daemonsets", "deployments", "deployments/rollback",
                        "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale")),
                rule(WRITE, List.of("autoscaling"), List.of("horizontalpodautoscalers")),
                rule(WRITE, List.of("batch"), List.of("cronjobs", "jobs")),
                rule(WRITE, List.of("extensions"), List.of("daemonsets", "deployments", "deployments/rollback",
                        "deployments/scale", "ingresses", "networkpolicies", "replicasets", "replicasets/scale",
                        "replicationcontrollers/scale")),
                rule(WRITE, List.of("policy"), List.of("poddisruptionbudgets")),
                rule(WRITE, List.of("networking.k8s.io"), List.of("ingresses", "networkpolicies")),
                rule(ALL, List.of("coordination.k8s.io"), List.of("leases")))));
        roles.add(role("system:aggregate-to-view", Map.of(AGGREGATE_TO + "view", "true"), List.of(
                rule(READ, List.of(""), List.of("configmaps", "endpoints", "persistentvolumeclaims",
                        "persistentvolumeclaims/status", "pods", "replicationcontrollers", "replicationcontrollers/scale",
                        "serviceaccounts", "services", "services/status")),
                rule(READ, List.of(""), List.of("bindings", "events", "limitranges", "namespaces/status", "pods/log",
                        "pods/status", "replicationcontrollers/status", "resourcequotas", "resourcequotas/status")),
                rule(READ, List.of(""), List.of("namespaces")),
                rule(READ, List.of("discovery.k8s.io"), List.of("endpointslices")),
                rule(READ, List.of("apps"), List.of("controllerrevisions", "daemonsets", "daemonsets/status",
                        "deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
                        "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status")),
                rule(READ, List.of("autoscaling"), List.of("horizontalpodautoscalers", "horizontalpodautoscalers/status")),
                rule(READ, List.of("batch"), List.of("cronjobs", "cronjobs/status", "jobs", "jobs/status")),
                rule(READ, List.of("extensions"), List.of("daemonsets", "daemonsets/status", "deployments",
                        "deployments/scale", "deployments/status", "ingresses", "ingresses/status", "networkpolicies",
                        "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale")),
                rule(READ, List.of("policy"), List.of("poddisruptionbudgets", "poddisruptionbudgets/status")),
                rule(READ, List.of("networking.k8s.io"), List.of("ingresses", "ingresses/status", "networkpolicies")),
                // Cybernetes: the reconcile status and placement explanations (status.cybernetes.io)
                rule(READ, List.of(ResourceRegistry.STATUS), List.of("controllers", "cronjobreconciles",
                        "daemonsetreconciles", "deploymentreconciles", "horizontalpodautoscalerreconciles",
                        "jobreconciles", "poddisruptionbudgetreconciles",
                        "replicasetreconciles", "replicationcontrollerreconciles", "schedulers", "statefulsetreconciles",
                        "servicereconciles")),
                rule(List.of("get"), List.of(ResourceRegistry.STATUS), List.of("pods/scheduling")))));
        roles.add(role("system:heapster", Map.of(), List.of(
                rule(READ, List.of(""), List.of("events", "namespaces", "nodes", "pods")),
                rule(READ, List.of("extensions"), List.of("deployments")))));
        roles.add(role("system:node", Map.of(), nodeRules()));
        // Cybernetes: the in-process simulated nodes watch the pods bound to any of them with one watch, as
        // KWOK's controller does; a node itself may read only its own pods
        roles.add(role(NODE_SIMULATOR, Map.of(), List.of(rule(READ, List.of(""), List.of("pods")))));
        roles.add(role("system:node-problem-detector", Map.of(), List.of(
                rule(List.of("get"), List.of(""), List.of("nodes")),
                rule(List.of("patch"), List.of(""), List.of("nodes/status")),
                rule(EVENT_WRITE, List.of("", "events.k8s.io"), List.of("events")))));
        roles.add(role("system:kubelet-api-admin", Map.of(), List.of(
                rule(READ, List.of(""), List.of("nodes")),
                rule(List.of("proxy"), List.of(""), List.of("nodes")),
                rule(List.of("*"), List.of(""), List.of("nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats")))));
        roles.add(role("system:node-proxier", Map.of(), List.of(
                rule(List.of("list", "watch"), List.of(""), List.of("endpoints", "services")),
                rule(READ, List.of(""), List.of("nodes")),
                rule(EVENT_WRITE, List.of("", "events.k8s.io"), List.of("events")),
                rule(List.of("list", "watch"), List.of("discovery.k8s.io"), List.of("endpointslices")))));
        roles.add(role("system:persistent-volume-provisioner", Map.of(), List.of(
                rule(List.of("create", "delete", "get", "list", "watch"), List.of(""), List.of("persistentvolumes")),
                rule(List.of("get", "list", "update", "watch"), List.of(""), List.of("persistentvolumeclaims")),
                rule(READ, List.of("storage.k8s.io"), List.of("storageclasses")),
                rule(List.of("watch"), List.of(""), List.of("events")),
                rule(EVENT_WRITE, List.of("", "events.k8s.io"), List.of("events")))));
        roles.add(role("system:volume-scheduler", Map.of(), List.of(
                rule(List.of("get", "list", "patch", "update", "watch"), List.of(""), List.of("persistentvolumes")),
                rule(READ, List.of("storage.k8s.io"), List.of("storageclasses")),
                rule(List.of("get", "list", "patch", "update", "watch"), List.of(""),
                        List.of("persistentvolumeclaims")))));
        for (String signer : List.of("kube-apiserver-client", "kube-apiserver-client-kubelet", "kubelet-serving",
                "legacy-unknown")) {
            roles.add(role("system:certificates.k8s.io:" + signer + "-approver", Map.of(), List.of(
                    rule(List.of("approve"), List.of(CERTIFICATES), List.of("signers"),
                            List.of("kubernetes.io/" + signer)))));
        }
        roles.add(role(KUBE_SCHEDULER, Map.of(), List.of(
                rule(EVENT_WRITE, List.of("", "events.k8s.io"), List.of("events")),
                rule(List.of("create"), List.of("coordination.k8s.io"), List.of("leases")),
                rule(List.of("get", "list", "update", "watch"), List.of("coordination.k8s.io"), List.of("leases"),
                        List.of("kube-scheduler")),
                rule(ALL, List.of("coordination.k8s.io"), List.of("leasecandidates")),
                rule(READ, List.of(""), List.of("nodes")),
                rule(List.of("delete", "get", "list", "watch"), List.of(""), List.of("pods")),
                rule(List.of("create"), List.of(""), List.of("bindings", "pods/binding")),
                rule(List.of("patch", "update"), List.of(""), List.of("pods/status")),
                rule(READ, List.of(""), List.of("replicationcontrollers", "services")),
                rule(READ, List.of("apps", "extensions"), List.of("replicasets")),
                rule(READ, List.of("apps"), List.of("statefulsets")),
                rule(READ, List.of("policy"), List.of("poddisruptionbudgets")),
                rule(READ, List.of(""), List.of("persistentvolumeclaims", "persistentvolumes")),
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("subjectaccessreviews")),
                rule(READ, List.of("storage.k8s.io"), List.of("csinodes")),
                rule(READ, List.of("storage.k8s.io"), List.of("volumeattachments")),
                rule(READ, List.of(""), List.of("namespaces")),
                rule(READ, List.of("storage.k8s.io"), List.of("csidrivers")),
                rule(READ, List.of("storage.k8s.io"), List.of("csistoragecapacities")))));
        roles.add(role(KUBE_CONTROLLER_MANAGER, Map.of(), List.of(
                // Kubernetes' own rules for the controller manager...
                rule(EVENT_WRITE, List.of("", "events.k8s.io"), List.of("events")),
                rule(List.of("create"), List.of("coordination.k8s.io"), List.of("leases")),
                rule(List.of("get", "update"), List.of("coordination.k8s.io"), List.of("leases"),
                        List.of("kube-controller-manager")),
                rule(List.of("create"), List.of(""), List.of("secrets", "serviceaccounts")),
                rule(List.of("delete"), List.of(""), List.of("secrets")),
                rule(List.of("get"), List.of(""), List.of("configmaps", "namespaces", "secrets", "serviceaccounts")),
                rule(List.of("update"), List.of(""), List.of("secrets", "serviceaccounts")),
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("subjectaccessreviews")),
                rule(List.of("list", "watch"), List.of("*"), List.of("*")),
                rule(List.of("create"), List.of(""), List.of("serviceaccounts/token")),
                // ...and, as Cybernetes' built-in controllers all run under this one identity (Kubernetes
                // gives each its own system:controller:<name> role), what they do between them: the
                // namespace controller and garbage collector delete anything, the workload controllers
                // write pods and their owners, node lifecycle taints nodes and evicts, the
                // clusterrole-aggregation controller writes rules it does not hold itself.
                rule(List.of("get", "delete", "deletecollection", "patch", "update"), List.of("*"), List.of("*")),
                rule(List.of("create"), List.of(""), List.of("pods", "events", "pods/eviction", "pods/binding",
                        "endpoints")),
                rule(List.of("create"), List.of("discovery.k8s.io"), List.of("endpointslices")),
                rule(List.of("create"), List.of("batch"), List.of("jobs")),
                rule(List.of("create"), List.of("apps"), List.of("replicasets", "controllerrevisions")),
                rule(List.of("create"), List.of(""), List.of("persistentvolumeclaims", "persistentvolumes")),
                rule(List.of("escalate"), List.of(RBAC), List.of("clusterroles")),
                // the csrsigning controller issues certificates for Kubernetes' signers (its certificate-controller role)
                rule(List.of("sign"), List.of(CERTIFICATES), List.of("signers"), List.of(
                        "kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet",
                        "kubernetes.io/kubelet-serving", "kubernetes.io/legacy-unknown")))));
        return roles;
    }

    public static List<ClusterRoleBinding> clusterRoleBindings() {
        return List.of(
                binding("cluster-admin", group(UserInfo.MASTERS)),
                binding("system:basic-user", group(UserInfo.AUTHENTICATED)),
                binding("system:discovery", group(UserInfo.AUTHENTICATED)),
                binding(KUBE_CONTROLLER_MANAGER, user(KUBE_CONTROLLER_MANAGER)),
                binding(KUBE_SCHEDULER, user(KUBE_SCHEDULER)),
                binding("system:volume-scheduler", user(KUBE_SCHEDULER)),
                binding("system:monitoring", group(MONITORING)),
                // As in Kubernetes, nodes are authorized by the Node authorizer, not through this binding.
                binding("system:node"),
                binding("system:node-proxier", user("system:kube-proxy")),
                binding(NODE_SIMULATOR, user(NODE_SIMULATOR)),
                binding("system:public-info-viewer", group(UserInfo.AUTHENTICATED), group(UserInfo.UNAUTHENTICATED)),
                binding("system:service-account-issuer-discovery", group(UserInfo.SERVICE_ACCOUNTS)));
    }

    /** What a node may do on resources the Node authorizer does not check object by object (Kubernetes' system:node). */
    public static List<PolicyRule> nodeRules() {
        return List.of(
                rule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
                rule(List.of("create"), List.of("authorization.k8s.io"),
                        List.of("localsubjectaccessreviews", "subjectaccessreviews")),
                rule(READ, List.of(""), List.of("services")),
                rule(List.of("create", "get", "list", "watch"), List.of(""), List.of("nodes")),
                rule(List.of("patch", "update"), List.of(""), List.of("nodes/status")),
                rule(List.of("patch", "update"), List.of(""), List.of("nodes")),
                rule(EVENT_WRITE, List.of(""), List.of("events")),
                rule(READ, List.of(""), List.of("pods")),
                rule(List.of("create", "delete"), List.of(""), List.of("pods")),
                rule(List.of("patch", "update"), List.of(""), List.of("pods/status")),
                rule(List.of("create"), List.of(""), List.of("pods/eviction")),
                rule(READ, List.of(""), List.of("configmaps", "secrets")),
                rule(List.of("get"), List.of(""), List.of("persistentvolumeclaims", "persistentvolumes")),
                rule(List.of("get"), List.of(""), List.of("endpoints")),
                rule(List.of("create", "get", "list", "watch"), List.of("certificates.k8s.io"),
                        List.of("certificatesigningrequests")),
                rule(List.of("create", "delete", "get", "patch", "update"), List.of("coordination.k8s.io"),
                        List.of("leases")),
                rule(List.of("get"), List.of("storage.k8s.io"), List.of("volumeattachments")),
                rule(List.of("create"), List.of(""), List.of("serviceaccounts/token")),
                rule(List.of("get", "patch", "update"), List.of(""), List.of("persistentvolumeclaims/status")),
                rule(READ, List.of("storage.k8s.io"), List.of("csidrivers")),
                rule(List.of("create", "delete", "get", "patch", "update"), List.of("storage.k8s.io"),
                        List.of("csinodes")),
                rule(READ, List.of("node.k8s.io"), List.of("runtimeclasses")));
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

package io.cybernetes.api;

import io.cybernetes.api.ResourceType.NameRule;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authorization.v1.LocalSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The kinds this server serves, looked up by URL (group, version, plural) or by
 * apiVersion and kind. {@link #builtIn()} holds the kinds of the core control plane;
 * kinds come and go at run time ({@link #register}, {@link #unregister}): the read-only
 * views of the components that own them, kinds users define. Every lookup reads one
 * consistent snapshot, replaced whole on each change.
 */
public final class ResourceRegistry {

    private static final String RBAC = "rbac.authorization.k8s.io";
    private static final String AUTHORIZATION = "authorization.k8s.io";
    private static final String ADMISSION = "admissionregistration.k8s.io";
    private static final String AUTHENTICATION = "authentication.k8s.io";
    private static final String DISCOVERY = "discovery.k8s.io";
    public static final String POLICY = "policy";
    public static final String AUTOSCALING = "autoscaling";
    public static final String APIREGISTRATION = "apiregistration.k8s.io";
    public static final String FLOWCONTROL = "flowcontrol.apiserver.k8s.io";
    /** The group of CustomResourceDefinitions. */
    public static final String APIEXTENSIONS = "apiextensions.k8s.io";
    /** The group of the reconcile status views. */
    public static final String STATUS = "status.cybernetes.io";

    private volatile Snapshot snapshot;
    private final List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    public ResourceRegistry(List<ResourceType> types) {
        this.snapshot = new Snapshot(types, 0);
    }

    /** The kinds at one moment, with their indexes. */
    private static final class Snapshot {
        final List<ResourceType> types;
        final long generation;
        final Map<String, ResourceType> byPath = new LinkedHashMap<>();
        final Map<String, ResourceType> byKind = new LinkedHashMap<>();
        final Map<Class<?>, ResourceType> byModel = new LinkedHashMap<>();

        Snapshot(List<ResourceType> types, long generation) {
            this.types = List.copyOf(types);
            this.generation = generation;
            for (ResourceType t : types) {
                byPath.put(path(t), t);
                byKind.put(t.apiVersion() + "/" + t.kind(), t);
                byModel.putIfAbsent(t.modelClass(), t);
            }
        }
    }

    private static String path(ResourceType t) {
        return t.group() + "/" + t.version() + "/" + t.plural();
    }

    /** Serves a kind from now on (in place of one at the same group, version and resource). */
    public void register(ResourceType type) {
        synchronized (this) {
            List<ResourceType> next = new ArrayList<>(snapshot.types);
            next.removeIf(t -> path(t).equals(path(type)));
            next.add(type);
            snapshot = new Snapshot(next, snapshot.generation + 1);
        }
        notifyListeners();
    }

    /** Stops serving a kind. */
    public void unregister(ResourceType type) {
        synchronized (this) {
            List<ResourceType> next = new ArrayList<>(snapshot.types);
            next.removeIf(t -> path(t).equals(path(type)));
            snapshot = new Snapshot(next, snapshot.generation + 1);
        }
        notifyListeners();
    }

    /** Each listener, one failing leaving the others to run. */
    private void notifyListeners() {
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                System.getLogger(ResourceRegistry.class.getName()).log(System.Logger.Level.WARNING,
                        "a listener of the served kinds failed", e);
            }
        }
    }

    /**
     * Runs the listener after every change of the kinds (on the thread that made it);
     * returns what removes it.
     */
    public Runnable onChange(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    public static ResourceRegistry builtIn() {
        List<ResourceType> t = new ArrayList<>();
        t.add(type("", "Namespace", "namespaces", false, List.of("ns"), List.of(), Set.of("status", "finalize"), NameRule.DNS1123_LABEL, Namespace.class));
        t.add(type("", "Node", "nodes", false, List.of("no"), List.of(), Set.of("status", "proxy"), NameRule.DNS1123_SUBDOMAIN, Node.class));
        t.add(type("", "Pod", "pods", true, List.of("po"), List.of("all"), Set.of("status", "binding", "eviction", "log", "exec", "attach", "portforward", "ephemeralcontainers"), NameRule.DNS1123_SUBDOMAIN, Pod.class));
        t.add(type("", "Event", "events", true, List.of("ev"), List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN, Event.class));
        t.add(type("", "ConfigMap", "configmaps", true, List.of("cm"), List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN, ConfigMap.class));
        t.add(type("", "Secret", "secrets", true, List.of(), List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN, Secret.class));
        t.add(type("", "ResourceQuota", "resourcequotas", true, List.of("quota"), List.of(), Set.of("status"), NameRule.DNS1123_SUBDOMAIN, ResourceQuota.class));
        t.add(type("", "LimitRange", "limitranges", true, List.of("limits"), List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN, LimitRange.class));
        t.add(type("", "Service", "services", true, List.of("svc"), List.of("all"), Set.of("status"), NameRule.DNS1035_LABEL, Service.class));
        t.add(type("", "Endpoints", "endpoints", true, List.of("ep"), List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN, Endpoints.class));
        t.add(type("", "PersistentVolumeClaim", "persistentvolumeclaims", true, List.of("pvc"), List.of(),
                Set.of("status"), NameRule.DNS1123_SUBDOMAIN, io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class));
        t.add(type("", "PersistentVolume", "persistentvolumes", false, List.of("pv"), List.of(), Set.of("status"),
                NameRule.DNS1123_SUBDOMAIN, io.fabric8.kubernetes.api.model.PersistentVolume.class));
        t.add(type("storage.k8s.io", "StorageClass", "storageclasses", false, List.of("sc"), List.of(), Set.of(),
                NameRule.DNS1123_SUBDOMAIN, io.fabric8.kubernetes.api.model.storage.StorageClass.class));
        t.add(type("", "ReplicationController", "replicationcontrollers", true, List.of("rc"), List.of("all"),
                Set.of("status", "scale"), NameRule.DNS1123_SUBDOMAIN, ReplicationController.class));
        t.add(type("", "ServiceAccount", "serviceaccounts", true, List.of("sa"), List.of(), Set.of("token"), NameRule.DNS1123_SUBDOMAIN, ServiceAccount.class));
        t.add(type("apps", "Deployment", "deployments", true, List.of("deploy"), List.of("all"), Set.of("status", "scale"), NameRule.DNS1123_SUBDOMAIN, Deployment.class));
        t.add(type("apps", "ReplicaSet", "replicasets", true, List.of("rs"), List.of("all"), Set.of("status", "scale"), NameRule.DNS1123_SUBDOMAIN, ReplicaSet.class));
        t.add(type("apps", "DaemonSet", "daemonsets", true, List.of("ds"), List.of("all"), Set.of("status"),
                NameRule.DNS1123_SUBDOMAIN, io.fabric8.kubernetes.api.model.apps.DaemonSet.class));
        t.add(type("apps", "StatefulSet", "statefulsets", true, List.of("sts"), List.of("all"), Set.of("status", "scale"),
                NameRule.DNS1123_SUBDOMAIN, io.fabric8.kubernetes.api.model.apps.StatefulSet.class));
        t.add(type("apps", "ControllerRevision", "controllerrevisions", true, List.of(), List.of(), Set.of(),
                NameRule.DNS1123_SUBDOMAIN, io.fabric8.kubernetes.api.model.apps.ControllerRevision.class));
        t.add(type("batch", "Job", "jobs", true, List.of(), List.of("all"), Set.of("status"), NameRule.DNS1123_SUBDOMAIN,
                Job.class));
        t.add(type("batch", "CronJob", "cronjobs", true, List.of("cj"), List.of("all"), Set.of("status"),
                NameRule.DNS1123_SUBDOMAIN, CronJob.class));
        for (String version : List.of("v2", "v1")) {
            t.add(new ResourceType(AUTOSCALING, version, "HorizontalPodAutoscaler", "horizontalpodautoscalers",
                    "horizontalpodautoscaler", true, List.of("hpa"), List.of("all"), Set.of("status"),
                    NameRule.DNS1123_SUBDOMAIN, version.equals("v2")
                    ? io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler.class
                    : io.fabric8.kubernetes.api.model.autoscaling.v1.HorizontalPodAutoscaler.class,
                    ResourceType.STORED_VERBS));
        }
        t.add(type(POLICY, "PodDisruptionBudget", "poddisruptionbudgets", true, List.of("pdb"), List.of(), Set.of("status"),
                NameRule.DNS1123_SUBDOMAIN, PodDisruptionBudget.class));
        t.add(type(DISCOVERY, "EndpointSlice", "endpointslices", true, List.of(), List.of(), Set.of(),
                NameRule.DNS1123_SUBDOMAIN, EndpointSlice.class));
        t.add(type("coordination.k8s.io", "Lease", "leases", true, List.of(), List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN, Lease.class));
        t.add(type(RBAC, "Role", "roles", true, List.of(), List.of(), Set.of(), NameRule.PATH_SEGMENT, Role.class));
        t.add(type(RBAC, "ClusterRole", "clusterroles", false, List.of(), List.of(), Set.of(), NameRule.PATH_SEGMENT,
                ClusterRole.class));
        t.add(type(RBAC, "RoleBinding", "rolebindings", true, List.of(), List.of(), Set.of(), NameRule.PATH_SEGMENT,
                RoleBinding.class));
        t.add(type(RBAC, "ClusterRoleBinding", "clusterrolebindings", false, List.of(), List.of(), Set.of(),
                NameRule.PATH_SEGMENT, ClusterRoleBinding.class));
        t.add(type(ADMISSION, "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false, List.of(), List.of(),
                Set.of(), NameRule.DNS1123_SUBDOMAIN, MutatingWebhookConfiguration.class));
        t.add(type(ADMISSION, "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false, List.of(),
                List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN, ValidatingWebhookConfiguration.class));
        t.add(type(ADMISSION, "ValidatingAdmissionPolicy", "validatingadmissionpolicies", false, List.of(),
                List.of("api-extensions"), Set.of("status"), NameRule.DNS1123_SUBDOMAIN,
                io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy.class));
        t.add(type(ADMISSION, "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", false, List.of(),
                List.of("api-extensions"), Set.of(), NameRule.DNS1123_SUBDOMAIN,
                io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding.class));
        t.add(review(AUTHORIZATION, "SelfSubjectAccessReview", "selfsubjectaccessreviews", false, SelfSubjectAccessReview.class));
        t.add(review(AUTHORIZATION, "SelfSubjectRulesReview", "selfsubjectrulesreviews", false, SelfSubjectRulesReview.class));
        t.add(review(AUTHORIZATION, "SubjectAccessReview", "subjectaccessreviews", false, SubjectAccessReview.class));
        t.add(review(AUTHORIZATION, "LocalSubjectAccessReview", "localsubjectaccessreviews", true,
                LocalSubjectAccessReview.class));
        t.add(review(AUTHENTICATION, "SelfSubjectReview", "selfsubjectreviews", false, SelfSubjectReview.class));
        t.add(review(AUTHENTICATION, "TokenReview", "tokenreviews", false, TokenReview.class));
        t.add(new ResourceType("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass", false,
                List.of("pc"), List.of(), Set.of(), NameRule.DNS1123_SUBDOMAIN,
                io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass.class, ResourceType.STORED_VERBS));
        t.add(type(FLOWCONTROL, "FlowSchema", "flowschemas", false, List.of(), List.of(), Set.of("status"),
                NameRule.DNS1123_SUBDOMAIN, io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchema.class));
        t.add(type(FLOWCONTROL, "PriorityLevelConfiguration", "prioritylevelconfigurations", false, List.of(),
                List.of(), Set.of("status"), NameRule.DNS1123_SUBDOMAIN,
                io.fabric8.kubernetes.api.model.flowcontrol.v1.PriorityLevelConfiguration.class));
        t.add(type("certificates.k8s.io", "CertificateSigningRequest", "certificatesigningrequests", false,
                List.of("csr"), List.of(), Set.of("status", "approval"), NameRule.DNS1123_SUBDOMAIN,
                io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest.class));
        t.add(new ResourceType(APIREGISTRATION, "v1", "APIService", "apiservices", "apiservice", false, List.of(),
                List.of("api-extensions"), Set.of("status"), NameRule.PATH_SEGMENT,
                io.fabric8.kubernetes.api.model.APIService.class, ResourceType.STORED_VERBS));
        t.add(new ResourceType(APIEXTENSIONS, "v1", "CustomResourceDefinition", "customresourcedefinitions",
                "customresourcedefinition", false, List.of("crd", "crds"), List.of("api-extensions"), Set.of("status"),
                NameRule.DNS1123_SUBDOMAIN, CustomResourceDefinition.class, ResourceType.STORED_VERBS));
        return new ResourceRegistry(t);
    }

    private static ResourceType review(String group, String kind, String plural, boolean namespaced,
                                       Class<? extends HasMetadata> model) {
        return new ResourceType(group, "v1", kind, plural, kind.toLowerCase(), namespaced, List.of(), List.of(),
                Set.of(), NameRule.PATH_SEGMENT, model, ResourceType.CREATE_ONLY);
    }

    /**
     * A read-only view computed by a component of the server (the reconcile status, the
     * scheduler's), not stored: registered by the component that serves it.
     */
    public static ResourceType view(String kind, String plural, boolean namespaced) {
        return view(STATUS, "v1", kind, plural, kind.toLowerCase(), namespaced,
                io.fabric8.kubernetes.api.model.GenericKubernetesResource.class);
    }

    /** A read-only view in a group of its own ({@code metrics.k8s.io}), as its server names it. */
    public static ResourceType view(String group, String version, String kind, String plural, String singular,
                                    boolean namespaced, Class<? extends HasMetadata> model) {
        return new ResourceType(group, version, kind, plural, singular, namespaced, List.of(), List.of(),
                Set.of(), NameRule.PATH_SEGMENT, model, ResourceType.READ_ONLY);
    }

    private static ResourceType type(String group, String kind, String plural, boolean namespaced, List<String> shortNames,
                                     List<String> categories, Set<String> subresources, NameRule rule,
                                     Class<? extends HasMetadata> model) {
        return new ResourceType(group, "v1", kind, plural, kind.toLowerCase(), namespaced, shortNames, categories,
                subresources, rule, model, ResourceType.STORED_VERBS);
    }

    /** How many times the kinds have changed: what was built from them is stale when this has moved on. */
    public long generation() {
        return snapshot.generation;
    }

    public List<ResourceType> all() {
        return snapshot.types;
    }

    public Optional<ResourceType> byPath(String group, String version, String plural) {
        return Optional.ofNullable(snapshot.byPath.get(group + "/" + version + "/" + plural));
    }

    /** The resource a fabric8 model class is served as. */
    public Optional<ResourceType> byModel(Class<?> modelClass) {
        return Optional.ofNullable(snapshot.byModel.get(modelClass));
    }

    public Optional<ResourceType> byKind(String apiVersion, String kind) {
        return Optional.ofNullable(snapshot.byKind.get(apiVersion + "/" + kind));
    }

    /** Every group-version served, core ("" group) first, in registration order. */
    public List<GroupVersion> groupVersions() {
        List<GroupVersion> out = new ArrayList<>();
        for (ResourceType t : snapshot.types) {
            GroupVersion gv = new GroupVersion(t.group(), t.version());
            if (!out.contains(gv)) {
                out.add(gv);
            }
        }
        return out;
    }

    public List<ResourceType> in(GroupVersion gv) {
        return snapshot.types.stream().filter(t -> t.group().equals(gv.group()) && t.version().equals(gv.version())).toList();
    }

    /** A group and version, "" being the core group. */
    public record GroupVersion(String group, String version) {
        public String path() {
            return group.isEmpty() ? "api/" + version : "apis/" + group + "/" + version;
        }

        public String groupVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }
    }
}

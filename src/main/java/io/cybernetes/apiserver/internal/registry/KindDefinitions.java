package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The definition of every served kind, by group, version and resource: the one place
 * shared code asks what is particular to a kind. Built-in kinds are defined at start;
 * kinds defined at run time are registered and removed as they come and go. A kind with
 * no definition of its own is served generically.
 */
public final class KindDefinitions {

    private final Map<String, KindDefinition> byResource = new ConcurrentHashMap<>();
    private final SchemaRegistry schemas;
    /** The generic definitions of kinds with none of their own (the views), made once. */
    private final Map<String, KindDefinition> generic = new ConcurrentHashMap<>();

    public KindDefinitions(SchemaRegistry schemas) {
        this.schemas = schemas;
    }

    /** The definition of a kind; a generic one when it has none of its own. */
    public KindDefinition of(ResourceType type) {
        String key = key(type);
        KindDefinition d = byResource.get(key);
        return d != null ? d : generic.computeIfAbsent(key, k -> KindDefinition.generic(type, schemas.of(type)));
    }

    /** The schemas of the built-in kinds' models. */
    public SchemaRegistry schemas() {
        return schemas;
    }

    public void register(KindDefinition definition) {
        byResource.put(key(definition.type()), definition);
    }

    public void unregister(ResourceType type) {
        byResource.remove(key(type));
    }

    private static String key(ResourceType type) {
        return type.group() + "/" + type.version() + "/" + type.plural();
    }

    /** The kinds whose objects admission decides by: written, they wait for the watch cache. */
    private static final Set<String> POLICY = Set.of("Namespace", "ResourceQuota", "LimitRange",
            "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "PriorityClass", "StorageClass",
            "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");

    /** The strategies of the built-in kinds that have one of their own, by kind. */
    private static final Map<String, KindStrategy> STRATEGIES = Map.ofEntries(
            Map.entry("Pod", new PodStrategy()),
            Map.entry("Deployment", new WorkloadStrategy(true)),
            Map.entry("ReplicaSet", new WorkloadStrategy(false)),
            Map.entry("DaemonSet", new DaemonSetStrategy()),
            Map.entry("StatefulSet", new StatefulSetStrategy()),
            Map.entry("ControllerRevision", new ControllerRevisionStrategy()),
            Map.entry("PersistentVolumeClaim", new PersistentVolumeClaimStrategy()),
            Map.entry("PersistentVolume", new PersistentVolumeStrategy()),
            Map.entry("StorageClass", new StorageClassStrategy()),
            Map.entry("Namespace", new NamespaceStrategy()),
            Map.entry("Secret", new SecretStrategy()),
            Map.entry("Role", new RbacStrategy(false, false)),
            Map.entry("ClusterRole", new RbacStrategy(false, true)),
            Map.entry("RoleBinding", new RbacStrategy(true, false)),
            Map.entry("ClusterRoleBinding", new RbacStrategy(true, true)),
            Map.entry("MutatingWebhookConfiguration", new WebhookConfigurationStrategy()),
            Map.entry("ValidatingWebhookConfiguration", new WebhookConfigurationStrategy()),
            Map.entry("PriorityClass", new PriorityClassStrategy()),
            Map.entry("CustomResourceDefinition", new CrdStrategy()),
            Map.entry("Endpoints", new EndpointsStrategy(false)),
            Map.entry("EndpointSlice", new EndpointsStrategy(true)),
            Map.entry("Job", new JobStrategy()),
            Map.entry("CronJob", new CronJobStrategy()),
            Map.entry("PodDisruptionBudget", new PodDisruptionBudgetStrategy()),
            Map.entry("HorizontalPodAutoscaler", new HorizontalPodAutoscalerStrategy()),
            Map.entry("APIService", new ApiServiceStrategy()),
            Map.entry("CertificateSigningRequest", new CertificateSigningRequestStrategy()),
            Map.entry("ValidatingAdmissionPolicy", new ValidatingAdmissionPolicyStrategy(false)),
            Map.entry("FlowSchema", new FlowControlStrategy(true)),
            Map.entry("PriorityLevelConfiguration", new FlowControlStrategy(false)),
            Map.entry("ValidatingAdmissionPolicyBinding", new ValidatingAdmissionPolicyStrategy(true)),
            Map.entry("ReplicationController", new ReplicationControllerStrategy()));

    /** How the built-in kinds served at several versions move between them, by kind. */
    private static final Map<String, Conversion> CONVERSIONS = Map.of("HorizontalPodAutoscaler",
            new Conversion(HorizontalPodAutoscalerConversion.V2, new HorizontalPodAutoscalerConversion()));

    /** The definitions of the built-in kinds of the registry (all of them Kubernetes' own kinds). */
    public static KindDefinitions builtIn(ResourceRegistry registry, SchemaRegistry schemas) {
        KindDefinitions definitions = new KindDefinitions(schemas);
        for (ResourceType t : registry.all()) {
            if (t.group().equals(ResourceRegistry.STATUS)) {
                continue;
            }
            definitions.register(new KindDefinition(t, STRATEGIES.getOrDefault(t.kind(), KindStrategy.DEFAULT),
                    BuiltInColumns.BY_KIND.getOrDefault(t.kind(), KindDefinition.DEFAULT_COLUMNS),
                    POLICY.contains(t.kind()), Subresource.of(t), new TypedSchema(schemas.of(t)),
                    t.hasSubresource("scale") ? ScalePaths.WORKLOAD : null, CONVERSIONS.get(t.kind())));
        }
        return definitions;
    }
}

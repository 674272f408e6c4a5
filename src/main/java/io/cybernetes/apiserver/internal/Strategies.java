package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ResourceType;

import java.util.Map;

/** The strategy of each kind; kinds without one get {@link KindStrategy#DEFAULT}. */
final class Strategies {

    private static final Map<String, KindStrategy> BY_KIND = Map.ofEntries(
            Map.entry("Pod", new PodStrategy()),
            Map.entry("Deployment", new WorkloadStrategy(true)),
            Map.entry("ReplicaSet", new WorkloadStrategy(false)),
            Map.entry("Namespace", new NamespaceStrategy()),
            Map.entry("Secret", new SecretStrategy()),
            Map.entry("Role", new RbacStrategy(false, false)),
            Map.entry("ClusterRole", new RbacStrategy(false, true)),
            Map.entry("RoleBinding", new RbacStrategy(true, false)),
            Map.entry("ClusterRoleBinding", new RbacStrategy(true, true)),
            Map.entry("MutatingWebhookConfiguration", new WebhookConfigurationStrategy()),
            Map.entry("ValidatingWebhookConfiguration", new WebhookConfigurationStrategy()),
            Map.entry("PriorityClass", new PriorityClassStrategy()));

    private Strategies() {
    }

    static KindStrategy of(ResourceType type) {
        return BY_KIND.getOrDefault(type.kind(), KindStrategy.DEFAULT);
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ResourceType;

import java.util.Map;

/** The strategy of each kind; kinds without one get {@link KindStrategy#DEFAULT}. */
final class Strategies {

    private static final Map<String, KindStrategy> BY_KIND = Map.of(
            "Pod", new PodStrategy(),
            "Deployment", new WorkloadStrategy(true),
            "ReplicaSet", new WorkloadStrategy(false),
            "Namespace", new NamespaceStrategy(),
            "Secret", new SecretStrategy(),
            "Role", new RbacStrategy(false, false),
            "ClusterRole", new RbacStrategy(false, true),
            "RoleBinding", new RbacStrategy(true, false),
            "ClusterRoleBinding", new RbacStrategy(true, true));

    private Strategies() {
    }

    static KindStrategy of(ResourceType type) {
        return BY_KIND.getOrDefault(type.kind(), KindStrategy.DEFAULT);
    }
}

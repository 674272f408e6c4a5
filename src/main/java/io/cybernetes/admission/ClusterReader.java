package io.cybernetes.admission;

import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Optional;

/**
 * What plugins may read of the cluster: objects as the API server's watch cache holds
 * them (a moment behind the latest write, as Kubernetes' informer-fed plugins are).
 */
public interface ClusterReader {

    Optional<ObjectNode> get(String group, String resource, String namespace, String name);

    /** The objects of a resource in a namespace ("" for cluster-scoped resources or all namespaces). */
    List<ObjectNode> list(String group, String resource, String namespace);
}

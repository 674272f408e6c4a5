package io.cybernetes.auth;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * How the objects authentication and authorization decide on reach them: Roles,
 * ClusterRoles, their bindings, ServiceAccounts, Pods, and the Secrets and Nodes that
 * ServiceAccount tokens may be bound to. The API server feeds every
 * version it sees from its watch of the store (this module never reads the store), so
 * decisions follow writes within the watch's latency, as Kubernetes' informer-fed
 * authorizers do.
 */
public interface AuthorizationFeed {

    /** An object was created or changed (objects of other kinds are ignored). */
    void put(HasMetadata object);

    /** An object was deleted. */
    void remove(HasMetadata object);
}

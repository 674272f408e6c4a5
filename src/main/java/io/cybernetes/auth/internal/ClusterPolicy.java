package io.cybernetes.auth.internal;

import io.cybernetes.auth.AuthorizationFeed;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the authenticators and authorizers know of the cluster, fed by the API server:
 * the RBAC index, the node graph of bound pods, and the uid of every ServiceAccount,
 * Pod, Secret and Node (a token is only good while the account it was issued for, and
 * the object it is bound to, exist).
 */
final class ClusterPolicy implements AuthorizationFeed {

    private final PolicyIndex rbac = new PolicyIndex();
    private final NodeGraph nodes = new NodeGraph();
    private final Map<String, String> serviceAccountUids = new ConcurrentHashMap<>();
    /** Pods, Secrets and Nodes a token may be bound to, by {@link #boundKey}. */
    private final Map<String, Identity> boundObjects = new ConcurrentHashMap<>();

    /** An object's uid and, once it is being deleted, when its deletion is due. */
    record Identity(String uid, Instant deletion) {
    }

    @Override
    public void put(HasMetadata object) {
        if (object instanceof Pod p) {
            nodes.put(p);
            putBound(p);
        } else if (object instanceof ServiceAccount sa) {
            serviceAccountUids.put(key(sa), sa.getMetadata().getUid());
        } else if (object instanceof Secret || object instanceof Node) {
            putBound(object);
        } else {
            rbac.put(object);
        }
    }

    @Override
    public void remove(HasMetadata object) {
        if (object instanceof Pod p) {
            nodes.remove(p);
            removeBound(p);
        } else if (object instanceof ServiceAccount sa) {
            serviceAccountUids.remove(key(sa), sa.getMetadata().getUid());
        } else if (object instanceof Secret || object instanceof Node) {
            removeBound(object);
        } else {
            rbac.remove(object);
        }
    }

    private void putBound(HasMetadata o) {
        String deletion = o.getMetadata().getDeletionTimestamp();
        boundObjects.put(boundKey(o.getClass().getSimpleName(), o.getMetadata().getNamespace(), o.getMetadata().getName()),
                new Identity(o.getMetadata().getUid(), deletion == null ? null : Instant.parse(deletion)));
    }

    private void removeBound(HasMetadata o) {
        String key = boundKey(o.getClass().getSimpleName(), o.getMetadata().getNamespace(), o.getMetadata().getName());
        boundObjects.computeIfPresent(key, (k, v) -> v.uid().equals(o.getMetadata().getUid()) ? null : v);
    }

    /** The Pod, Secret or Node as last seen, or null when it does not exist. */
    Identity boundObject(String kind, String namespace, String name) {
        return boundObjects.get(boundKey(kind, namespace, name));
    }

    private static String boundKey(String kind, String namespace, String name) {
        return kind + "/" + (namespace == null ? "" : namespace) + "/" + name;
    }

    PolicyIndex rbac() {
        return rbac;
    }

    NodeGraph nodes() {
        return nodes;
    }

    /** The uid of the ServiceAccount as last seen, or null when it does not exist. */
    String serviceAccountUid(String namespace, String name) {
        return serviceAccountUids.get(namespace + "/" + name);
    }

    private static String key(HasMetadata o) {
        return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }
}

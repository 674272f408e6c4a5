package io.cybernetes.auth.internal;

import io.cybernetes.auth.AuthorizationFeed;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccount;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the authenticators and authorizers know of the cluster, fed by the API server:
 * the RBAC index, the node graph of bound pods, and the uid of every ServiceAccount
 * (a token is only good while the account it was issued for exists).
 */
final class ClusterPolicy implements AuthorizationFeed {

    private final PolicyIndex rbac = new PolicyIndex();
    private final NodeGraph nodes = new NodeGraph();
    private final Map<String, String> serviceAccountUids = new ConcurrentHashMap<>();

    @Override
    public void put(HasMetadata object) {
        if (object instanceof Pod p) {
            nodes.put(p);
        } else if (object instanceof ServiceAccount sa) {
            serviceAccountUids.put(key(sa), sa.getMetadata().getUid());
        } else {
            rbac.put(object);
        }
    }

    @Override
    public void remove(HasMetadata object) {
        if (object instanceof Pod p) {
            nodes.remove(p);
        } else if (object instanceof ServiceAccount sa) {
            serviceAccountUids.remove(key(sa), sa.getMetadata().getUid());
        } else {
            rbac.remove(object);
        }
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

package io.cybernetes.controller.replication;

import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.replicaset.ReplicaSetController;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * ReplicationControllers kept by the ReplicaSet controller, as Kubernetes' replication
 * manager keeps them: each ReplicationController seen as a ReplicaSet of its kind (its
 * selector map as matchLabels), the pods it makes owned by the ReplicationController, and
 * the status it computes written back to the ReplicationController.
 */
public final class ReplicationManager {

    public static final String NAME = "replicationcontroller";

    private ReplicationManager() {
    }

    /** The controller over the informers' ReplicationControllers and pods. */
    public static Controller create(ApiClient client, SharedInformerFactory informers, int workers) {
        var rcs = informers.informerFor(ReplicationController.class);
        var pods = informers.informerFor(Pod.class);
        Indexer<ReplicaSet> asSets = new Indexer<>();
        ReplicaSetController rc = new ReplicaSetController(client, asSets, pods.indexer(),
                new EventRecorder(client, "replication-controller"), "ReplicationController",
                set -> asReplicaSet(client.updateStatus(asReplicationController(set))));
        Controller c = new Controller(NAME, rc, workers);
        ResourceEventHandler<ReplicaSet> handler = rc.replicaSetHandler(c);
        rcs.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ReplicationController obj) {
                asSets.put(asReplicaSet(obj));
                handler.onAdd(asSets.get(Keys.of(obj)).orElseThrow());
            }

            @Override
            public void onUpdate(ReplicationController oldObj, ReplicationController newObj) {
                ReplicaSet before = asReplicaSet(oldObj);
                asSets.put(asReplicaSet(newObj));
                handler.onUpdate(before, asSets.get(Keys.of(newObj)).orElseThrow());
            }

            @Override
            public void onDelete(ReplicationController lastKnown, boolean finalStateUnknown) {
                asSets.remove(Keys.of(lastKnown));
                handler.onDelete(asReplicaSet(lastKnown), finalStateUnknown);
            }
        });
        pods.addEventHandler(rc.podHandler(c));
        return c;
    }

    /** The ReplicationController as a ReplicaSet of its kind: the selector map under matchLabels. */
    static ReplicaSet asReplicaSet(ReplicationController rc) {
        ObjectNode tree = Json.toTree(rc);
        ObjectNode spec = Json.child(tree, "spec");
        JsonNode selector = spec.get("selector");
        ObjectNode wrapped = Json.object();
        if (selector != null && selector.isObject()) {
            wrapped.set("matchLabels", selector);
        }
        spec.set("selector", wrapped);
        return Json.convert(tree, ReplicaSet.class);
    }

    /** Back again: the matchLabels as the selector map. */
    static ReplicationController asReplicationController(ReplicaSet set) {
        ObjectNode tree = Json.toTree(set);
        ObjectNode spec = Json.child(tree, "spec");
        JsonNode labels = spec.path("selector").get("matchLabels");
        if (labels != null) {
            spec.set("selector", labels);
        } else {
            spec.remove("selector");
        }
        tree.put("apiVersion", "v1").put("kind", "ReplicationController");
        return Json.convert(tree, ReplicationController.class);
    }
}

package io.cybernetes.controller.deployment;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;

import java.util.ArrayList;
import java.util.List;

/** A Deployment's ReplicaSets (copies, safe to change), split into the one of the current template and the rest. */
final class Sets {
    ReplicaSet current;
    final List<ReplicaSet> old = new ArrayList<>();

    List<ReplicaSet> all() {
        List<ReplicaSet> all = new ArrayList<>(old);
        if (current != null) {
            all.add(current);
        }
        return all;
    }
}

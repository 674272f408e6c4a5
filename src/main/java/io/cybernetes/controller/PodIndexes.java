package io.cybernetes.controller;

import io.cybernetes.client.Indexer;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.List;

/** Indexes of the shared pod informer that several controllers read. */
public final class PodIndexes {

    /** Pods by the node they are bound to (unbound pods are in no entry). */
    public static final String BY_NODE_NAME = "spec.nodeName";

    private PodIndexes() {
    }

    public static void addByNodeName(Indexer<Pod> pods) {
        pods.addIndex(BY_NODE_NAME, p -> p.getSpec() == null || p.getSpec().getNodeName() == null
                || p.getSpec().getNodeName().isEmpty() ? List.of() : List.of(p.getSpec().getNodeName()));
    }
}

package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.Pod;

import java.util.List;
import java.util.Map;

/** A scheduling plugin; it takes part in the extension points whose interface it implements. */
public interface Plugin {

    String name();

    /**
     * Once per pod, before the nodes are filtered: may reject the pod at once or prepare the
     * cycle state from all the nodes (the snapshot the cycle works on).
     */
    interface PreFilter extends Plugin {
        Status preFilter(CycleState state, Pod pod, List<NodeInfo> nodes);
    }

    /** Whether the pod can run on the node. */
    interface Filter extends Plugin {
        Status filter(CycleState state, Pod pod, NodeInfo node);
    }

    /** When no node passed: what could make one pass (preemption); returns the nominated node, if any. */
    interface PostFilter extends Plugin {
        PostFilterResult postFilter(CycleState state, Pod pod, Map<String, Status> filtered);
    }

    /** The outcome of a PostFilter plugin: the node the pod is nominated to, once victims are gone. */
    record PostFilterResult(Status status, String nominatedNode) {
    }

    /** Once per pod, before the feasible nodes are scored. */
    interface PreScore extends Plugin {
        Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes);
    }

    /** A node's score for the pod; higher is better. */
    interface Score extends Plugin {
        long score(CycleState state, Pod pod, NodeInfo node);

        /** Brings the scores of all feasible nodes into 0..{@link #MAX_SCORE}; by default they already are. */
        default void normalize(CycleState state, Pod pod, Map<String, Long> scores) {
        }
    }

    /** The highest score a plugin gives a node (before its weight). */
    long MAX_SCORE = 100;

    /** Told when a node is chosen (reserve) and when that choice is undone (unreserve). */
    interface Reserve extends Plugin {
        Status reserve(CycleState state, Pod pod, String node);

        void unreserve(CycleState state, Pod pod, String node);
    }

    /** Binds the pod to the chosen node. */
    interface Bind extends Plugin {
        Status bind(CycleState state, Pod pod, String node);
    }
}

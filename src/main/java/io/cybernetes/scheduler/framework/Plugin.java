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

    /** Orders the pods waiting to be scheduled: negative when {@code a} goes before {@code b}. */
    interface QueueSort extends Plugin {
        int compare(QueuedPodInfo a, QueuedPodInfo b);
    }

    /** A pod waiting in the scheduling queue, and since when. */
    interface QueuedPodInfo {
        Pod pod();

        java.time.Instant queuedAt();
    }

    /**
     * When no node passed the filters: what could make one pass (preemption). Gets the
     * snapshot, every node's verdict and the framework, to run the filters again on nodes
     * changed in thought.
     */
    interface PostFilter extends Plugin {
        PostFilterResult postFilter(CycleState state, Pod pod, List<NodeInfo> nodes, Map<String, Status> filtered,
                                    Handle handle);
    }

    /**
     * The outcome of a PostFilter plugin: on success the node the pod is nominated to and the
     * pods that must go for it to fit there. {@code nominatedNode} null leaves the pod's
     * nomination as it is, "" clears it.
     */
    record PostFilterResult(Status status, String nominatedNode, List<Pod> victims) {

        public PostFilterResult {
            victims = List.copyOf(victims);
        }

        public static PostFilterResult failed(Status status, String nominatedNode) {
            return new PostFilterResult(status, nominatedNode, List.of());
        }
    }

    /** What the framework offers its plugins. */
    interface Handle {
        /**
         * Runs PreFilter over {@code nodes} (the snapshot with some nodes changed) and every
         * Filter on {@code node}, as a scheduling cycle would.
         */
        Status runFilters(Pod pod, List<NodeInfo> nodes, NodeInfo node);

        /** The cluster's PodDisruptionBudgets as the scheduler's informer holds them (none before it is given one). */
        List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget> disruptionBudgets();

        /** The cluster's claims and volumes as the scheduler's informers hold them. */
        ClusterVolumes volumes();
    }

    /** A plugin that reads the cluster through the framework: given the handle once, when the framework is made. */
    interface HandleAware extends Plugin {
        void handle(Handle handle);
    }

    /** Once per pod, before the feasible nodes are scored. */
    interface PreScore extends Plugin {
        Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes);
    }

    /** A node's score for the pod; higher is better. */
    interface Score extends Plugin {
        long score(CycleState state, Pod pod, NodeInfo node);

        /**
         * Brings the scores of all feasible nodes (in the order they were scored) into
         * 0..{@link #MAX_SCORE}, in place; by default they already are.
         */
        default void normalize(CycleState state, Pod pod, long[] scores) {
        }
    }

    /** The highest score a plugin gives a node (before its weight). */
    long MAX_SCORE = 100;

    /**
     * Told when a node is chosen (reserve), before the pod is assumed there, and when that
     * choice is undone (unreserve): a reserve refused, or the binding failed.
     */
    interface Reserve extends Plugin {
        Status reserve(CycleState state, Pod pod, String node);

        void unreserve(CycleState state, Pod pod, String node);
    }

    /**
     * Binds the pod to the chosen node in place of the scheduler's own binding through
     * {@code pods/binding} (the first Bind plugin of the profile does it).
     */
    interface Bind extends Plugin {
        Status bind(CycleState state, Pod pod, String node);
    }
}

package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.Pod;

import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

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

    /**
     * A PreFilter whose state depends on the pods already placed: told when a pod is added to
     * a node or taken from it in thought (a pod nominated there, a preemption victim), it
     * brings that state up to date instead of a new pass over every node — as Kubernetes'
     * PreFilterExtensions (AddPod, RemovePod).
     */
    interface PreFilterExtensions extends PreFilter {
        void addPod(CycleState state, Pod pod, Pod added, NodeInfo node);

        void removePod(CycleState state, Pod pod, Pod removed, NodeInfo node);
    }

    /** Whether the pod can run on the node. */
    interface Filter extends Plugin {
        Status filter(CycleState state, Pod pod, NodeInfo node);
    }

    /**
     * Which cluster events can make a pod this plugin rejected schedulable, and for each a
     * queueing hint that says whether this event does for this pod — as kube-scheduler's
     * EnqueueExtensions with queueing hints. The scheduling queue brings an unschedulable
     * pod back only when a plugin that rejected it says yes, so that a change that cannot
     * help (a node too small, a pod of another app gone) leaves it waiting. A filtering
     * plugin that does not implement this is taken to be helped by every event.
     */
    interface EnqueueExtensions extends Plugin {
        java.util.Map<ClusterEvent, QueueingHint> eventsToRegister();
    }

    /**
     * A filter that looks at the node alone, not at the pods on it: only a node added, or
     * changed so that it passes now where it did not, can help a pod it rejected.
     */
    interface NodeFilter extends Filter, EnqueueExtensions {
        @Override
        default java.util.Map<ClusterEvent, QueueingHint> eventsToRegister() {
            QueueingHint passesNow = QueueingHint.nodeNowPasses(this);
            return java.util.Map.of(ClusterEvent.NODE_ADD, passesNow, ClusterEvent.NODE_UPDATE, passesNow);
        }
    }

    /** Whether a change (the object before and after it; null for added / deleted) may let the pod fit. */
    @FunctionalInterface
    interface QueueingHint {
        QueueingHint ALWAYS = (pod, before, after) -> true;

        boolean mayHelp(Pod pod, Object before, Object after);

        /**
         * For a node added or updated: the filter passes the pod on the node as it is now
         * (without its pods) and did not before — a change that has nothing to do with
         * what the filter looks at cannot help.
         */
        static QueueingHint nodeNowPasses(Filter filter) {
            return (pod, before, after) -> passes(filter, pod, (io.fabric8.kubernetes.api.model.Node) after)
                    && (before == null || !passes(filter, pod, (io.fabric8.kubernetes.api.model.Node) before));
        }

        private static boolean passes(Filter filter, Pod pod, io.fabric8.kubernetes.api.model.Node node) {
            return filter.filter(new CycleState(), pod, NodeInfo.of(node, List.of())).isSuccess();
        }
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
     * cycle state PreFilter left, the snapshot, every node's verdict and the framework, to
     * run the filters again on nodes changed in thought.
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
         * Runs every Filter on {@code node} with the pods nominated to it, as a scheduling
         * cycle would, on {@code state}: the cycle's state, or a {@link CycleState#copy copy}
         * changed by {@link #addPod}/{@link #removePod}.
         */
        Status runFilters(CycleState state, Pod pod, NodeInfo node);

        /** Tells every {@link PreFilterExtensions} plugin that {@code added} runs on the node (in thought). */
        void addPod(CycleState state, Pod pod, Pod added, NodeInfo node);

        /** Tells every {@link PreFilterExtensions} plugin that {@code removed} left the node (in thought). */
        void removePod(CycleState state, Pod pod, Pod removed, NodeInfo node);

        /** The cluster's PodDisruptionBudgets as the scheduler's informer holds them (none before it is given one). */
        List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget> disruptionBudgets();

        /** The cluster's claims and volumes as the scheduler's informers hold them. */
        ClusterVolumes volumes();

        /** Whether the evictions of an earlier preemption for this pod are still under way. */
        default boolean preemptionRunning(Pod pod) {
            return false;
        }

        /**
         * Runs {@code work} for 0..n-1, across the framework's threads when there are many
         * (kube-scheduler's parallelizer); {@code work} must be safe to run concurrently.
         */
        default void parallel(int n, IntConsumer work) {
            for (int i = 0; i < n; i++) {
                work.accept(i);
            }
        }
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

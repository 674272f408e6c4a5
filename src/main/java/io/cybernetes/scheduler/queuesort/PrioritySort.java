package io.cybernetes.scheduler.queuesort;

import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Priorities;

/** QueueSort: pods of higher priority first; of equal priority, the one that has waited longest. */
public final class PrioritySort implements Plugin.QueueSort {

    public static final String NAME = "PrioritySort";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int compare(Plugin.QueuedPodInfo a, Plugin.QueuedPodInfo b) {
        int byPriority = Integer.compare(Priorities.of(b.pod()), Priorities.of(a.pod()));
        return byPriority != 0 ? byPriority : a.queuedAt().compareTo(b.queuedAt());
    }
}

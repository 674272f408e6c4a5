package io.cybernetes.scheduler.framework;

/**
 * A change of the cluster that may let a pod the scheduler found unschedulable fit, as
 * kube-scheduler's cluster events name them: a node added, updated or deleted; a pod
 * placed on a node (assigned), changed or deleted; a claim, volume or storage class
 * added or changed. A queueing hint is given the object before and after the change
 * (before is null when added, after is null when deleted).
 */
public enum ClusterEvent {
    NODE_ADD, NODE_UPDATE, NODE_DELETE,
    ASSIGNED_POD_ADD, ASSIGNED_POD_UPDATE, ASSIGNED_POD_DELETE,
    PVC_CHANGE, PV_CHANGE, STORAGE_CLASS_CHANGE
}

package io.cybernetes.controller;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.List;

/**
 * Settings of the controller manager, documented in {@code config/application.yml}.
 *
 * @param enabled                run the controllers in this process
 * @param controllers            which controllers run, as kube-controller-manager's {@code --controllers}: {@code *}
 *                               for all, a name to add one, {@code -name} to leave one out
 * @param resyncPeriod           how often every informer replays its cache to the handlers (repairs anything missed)
 * @param leaderElection         which replica runs the controllers
 * @param workers                concurrent reconciles per controller
 * @param nodeMonitorGracePeriod how long a node's lease may go unrenewed before the node is Unknown and tainted
 * @param podGcQuarantine        how long a node must be missing before its pods are deleted
 * @param loadBalancerAddresses  the addresses Services of type LoadBalancer get (CIDRs, ranges a-b, addresses)
 * @param jobBackoff             how long a Job waits before it replaces its first failed pod (doubled for each
 *                               further failure, at most ten minutes)
 * @param horizontalPodAutoscaler how the horizontal pod autoscaler evaluates (kube-controller-manager's
 *                               {@code --horizontal-pod-autoscaler-*} flags)
 * @param clusterSigningDuration the longest a certificate issued for a CertificateSigningRequest lasts
 *                               (kube-controller-manager's {@code --cluster-signing-duration})
 */
@ConfigurationProperties("cybernetes.controllers")
public record ControllerProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("*") List<String> controllers,
        @DefaultValue("5m") Duration resyncPeriod,
        @DefaultValue LeaderElection leaderElection,
        @DefaultValue Workers workers,
        @DefaultValue("50s") Duration nodeMonitorGracePeriod,
        @DefaultValue("40s") Duration podGcQuarantine,
        @DefaultValue("198.51.100.10-198.51.100.250") List<String> loadBalancerAddresses,
        @DefaultValue("10s") Duration jobBackoff,
        @DefaultValue HorizontalPodAutoscaling horizontalPodAutoscaler,
        @DefaultValue("8760h") Duration clusterSigningDuration) {

    /** Whether the controller of that name is to run. */
    public boolean runs(String name) {
        if (controllers.contains("-" + name)) {
            return false;
        }
        return controllers.contains("*") || controllers.contains(name);
    }

    /**
     * @param enabled       compete for a Lease (off: this process runs the controllers alone, for one replica only)
     * @param namespace     where the Lease is
     * @param name          the Lease's name
     * @param leaseDuration how long a lease unrenewed holds off other candidates
     * @param renewDeadline how long a leader keeps trying to renew before it stops leading
     * @param retryPeriod   how often candidates try
     */
    public record LeaderElection(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("kube-system") String namespace,
            @DefaultValue("kube-controller-manager") String name,
            @DefaultValue("15s") Duration leaseDuration,
            @DefaultValue("10s") Duration renewDeadline,
            @DefaultValue("2s") Duration retryPeriod) {
    }

    /**
     * @param syncPeriod              how often each autoscaler is evaluated
     * @param tolerance               how far usage may stray from the target (a fraction of it) before replicas change
     * @param downscaleStabilization  how long a higher recommendation holds a scale-down back (without a behavior)
     * @param cpuInitializationPeriod how long after its start a pod's cpu counts only once it is ready
     * @param initialReadinessDelay   how long after its start a pod not ready counts as still starting
     */
    public record HorizontalPodAutoscaling(
            @DefaultValue("15s") Duration syncPeriod,
            @DefaultValue("0.1") double tolerance,
            @DefaultValue("5m") Duration downscaleStabilization,
            @DefaultValue("5m") Duration cpuInitializationPeriod,
            @DefaultValue("30s") Duration initialReadinessDelay) {
    }

    /** Workers per controller (kube-controller-manager's --concurrent-*-syncs). */
    public record Workers(
            @DefaultValue("5") int deployment,
            @DefaultValue("5") int replicaSet,
            @DefaultValue("5") int garbageCollector,
            @DefaultValue("2") int namespace,
            @DefaultValue("2") int nodeLifecycle,
            @DefaultValue("1") int podGc,
            @DefaultValue("5") int endpoints,
            @DefaultValue("5") int endpointSlice,
            @DefaultValue("5") int endpointSliceMirroring,
            @DefaultValue("5") int job,
            @DefaultValue("5") int cronJob,
            @DefaultValue("2") int disruption,
            @DefaultValue("5") int replicationController,
            @DefaultValue("2") int daemonSet,
            @DefaultValue("5") int statefulSet,
            @DefaultValue("5") int persistentVolume,
            @DefaultValue("5") int horizontalPodAutoscaler) {
    }
}

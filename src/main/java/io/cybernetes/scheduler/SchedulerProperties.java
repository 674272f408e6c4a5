package io.cybernetes.scheduler;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.Map;

/**
 * Settings of the scheduler, documented in {@code config/application.yml}.
 *
 * @param enabled                  run the scheduler in this process
 * @param percentageOfNodesToScore how many nodes to find feasible before scoring (0: Kubernetes' adaptive default)
 * @param scoringStrategy          LeastAllocated (spread) or MostAllocated (bin packing)
 * @param plugins                  the profile: enabled plugins and their score weights (0 for filter-only plugins)
 * @param leaderElection           which replica schedules
 */
@ConfigurationProperties("cybernetes.scheduler")
public record SchedulerProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("0") int percentageOfNodesToScore,
        @DefaultValue("LeastAllocated") String scoringStrategy,
        Map<String, Integer> plugins,
        @DefaultValue LeaderElection leaderElection) {

    /** The default profile, as kube-scheduler's: filters and the score plugins with their weights. */
    public static final Map<String, Integer> DEFAULT_PLUGINS = Map.ofEntries(Map.entry("PrioritySort", 0),
            Map.entry("NodeUnschedulable", 0), Map.entry("NodeName", 0), Map.entry("TaintToleration", 3),
            Map.entry("NodeAffinity", 2), Map.entry("NodePorts", 0), Map.entry("VolumeBinding", 0),
            Map.entry("VolumeZone", 0),
            Map.entry("NodeResourcesFit", 1),
            Map.entry("PodTopologySpread", 2), Map.entry("InterPodAffinity", 2),
            Map.entry("NodeResourcesBalancedAllocation", 1), Map.entry("ImageLocality", 1),
            Map.entry("DefaultPreemption", 0));

    public SchedulerProperties {
        plugins = plugins == null || plugins.isEmpty() ? DEFAULT_PLUGINS : Map.copyOf(plugins);
    }

    /**
     * @param namespace     where the Lease is
     * @param name          its name
     * @param leaseDuration how long an unrenewed lease holds off other candidates
     * @param renewDeadline how long a leader keeps trying to renew
     * @param retryPeriod   how often candidates try
     */
    public record LeaderElection(
            @DefaultValue("kube-system") String namespace,
            @DefaultValue("kube-scheduler") String name,
            @DefaultValue("15s") Duration leaseDuration,
            @DefaultValue("10s") Duration renewDeadline,
            @DefaultValue("2s") Duration retryPeriod) {
    }
}

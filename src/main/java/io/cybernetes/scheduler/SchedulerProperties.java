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
    public static final Map<String, Integer> DEFAULT_PLUGINS = Map.of("NodeUnschedulable", 0, "NodeName", 0,
            "TaintToleration", 3, "NodeAffinity", 2, "NodePorts", 0, "NodeResourcesFit", 1, "PodTopologySpread", 2,
            "InterPodAffinity", 2, "NodeResourcesBalancedAllocation", 1, "ImageLocality", 1);

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

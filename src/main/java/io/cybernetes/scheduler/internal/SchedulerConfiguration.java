package io.cybernetes.scheduler.internal;

import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.api.PrometheusText;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ComponentLifecycle;
import io.cybernetes.client.LeaderElector;
import io.cybernetes.client.Samples;
import io.cybernetes.scheduler.Scheduler;
import io.cybernetes.scheduler.SchedulingQueue;
import io.cybernetes.scheduler.SchedulerManager;
import io.cybernetes.scheduler.SchedulerProperties;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Profile;
import io.cybernetes.scheduler.defaultpreemption.DefaultPreemption;
import io.cybernetes.scheduler.imagelocality.ImageLocality;
import io.cybernetes.scheduler.interpodaffinity.InterPodAffinity;
import io.cybernetes.scheduler.nodeaffinity.NodeAffinity;
import io.cybernetes.scheduler.nodename.NodeName;
import io.cybernetes.scheduler.nodeports.NodePorts;
import io.cybernetes.scheduler.volumebinding.VolumeBinding;
import io.cybernetes.scheduler.volumezone.VolumeZone;
import io.cybernetes.scheduler.noderesources.BalancedAllocation;
import io.cybernetes.scheduler.noderesources.NodeResourcesFit;
import io.cybernetes.scheduler.nodeunschedulable.NodeUnschedulable;
import io.cybernetes.scheduler.podtopologyspread.PodTopologySpread;
import io.cybernetes.scheduler.queuesort.PrioritySort;
import io.cybernetes.scheduler.tainttoleration.TaintToleration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The scheduler inside the application, as {@code system:kube-scheduler} through the
 * in-process client, behind leader election on {@code kube-system/kube-scheduler}, with
 * the profile {@code config/application.yml} names.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SchedulerProperties.class)
class SchedulerConfiguration {

    static final String USER = "system:kube-scheduler";

    /** The plugins by name, in the order they run. */
    static Map<String, Supplier<Plugin>> registry(SchedulerProperties props) {
        NodeResourcesFit.Strategy strategy = "MostAllocated".equals(props.scoringStrategy())
                ? NodeResourcesFit.Strategy.MOST_ALLOCATED : NodeResourcesFit.Strategy.LEAST_ALLOCATED;
        Map<String, Supplier<Plugin>> r = new LinkedHashMap<>();
        r.put(PrioritySort.NAME, PrioritySort::new);
        r.put(NodeUnschedulable.NAME, NodeUnschedulable::new);
        r.put(NodeName.NAME, NodeName::new);
        r.put(TaintToleration.NAME, TaintToleration::new);
        r.put(NodeAffinity.NAME, NodeAffinity::new);
        r.put(NodePorts.NAME, NodePorts::new);
        r.put(VolumeBinding.NAME, VolumeBinding::new);
        r.put(VolumeZone.NAME, VolumeZone::new);
        r.put(NodeResourcesFit.NAME, () -> new NodeResourcesFit(strategy));
        r.put(PodTopologySpread.NAME, PodTopologySpread::new);
        r.put(InterPodAffinity.NAME, InterPodAffinity::new);
        r.put(BalancedAllocation.NAME, BalancedAllocation::new);
        r.put(ImageLocality.NAME, ImageLocality::new);
        r.put(DefaultPreemption.NAME, DefaultPreemption::new);
        return r;
    }

    static Profile profile(SchedulerProperties props) {
        Profile profile = new Profile();
        Map<String, Supplier<Plugin>> registry = registry(props);
        for (String name : props.plugins().keySet()) {
            if (!registry.containsKey(name)) {
                throw new IllegalArgumentException("cybernetes.scheduler.plugins: no plugin " + name + " (known: "
                        + registry.keySet() + ")");
            }
        }
        registry.forEach((name, factory) -> {
            Integer weight = props.plugins().get(name);
            if (weight != null) {
                profile.add(factory.get(), weight);
            }
        });
        return profile;
    }

    @Bean
    SchedulerManager schedulerManager(LocalApi api, InProcessCredentials credentials, SchedulerProperties props) {
        profile(props).queueSort(); // a profile naming unknown plugins, or none to sort the queue, stops the start
        SchedulerProperties.LeaderElection le = props.leaderElection();
        return new SchedulerManager(ApiClients.local(api, credentials.tokenFor(USER, List.of()),
                io.cybernetes.api.Version.userAgent("kube-scheduler")),
                () -> new Framework(profile(props), props.percentageOfNodesToScore()),
                "scheduler_" + UUID.randomUUID(), le.namespace(), le.name(),
                new LeaderElector.Timing(le.leaseDuration(), le.renewDeadline(), le.retryPeriod()), Clock.systemUTC());
    }

    /** Every 5 s for 15 minutes: pods bound, attempts made and pods waiting, for the dashboard's charts. */
    @Bean
    Samples schedulerSamples(SchedulerManager manager) {
        return new Samples("scheduler", List.of("bound", "attempts", "pending"), Duration.ofSeconds(5),
                Duration.ofMinutes(15), () -> {
                    Scheduler.Stats s = manager.stats().orElse(null);
                    SchedulingQueue.Depths d = manager.queueDepths().orElse(null);
                    return new double[] {s == null ? 0 : s.bound(), s == null ? 0 : s.attempts(),
                            d == null ? 0 : d.active() + d.backoff() + d.unschedulable()};
                }, Clock.systemUTC());
    }

    @Bean
    SmartLifecycle schedulerSamplesLifecycle(@Qualifier("schedulerSamples") Samples samples) {
        return new ComponentLifecycle(true, samples::start, samples::close, Integer.MAX_VALUE);
    }

    /** kube-scheduler's metrics, at {@code /metrics}. */
    @Bean
    PrometheusText.Source schedulerMetrics(SchedulerManager manager) {
        return manager::collect;
    }

    @Bean
    SmartLifecycle schedulerLifecycle(SchedulerManager manager, SchedulerProperties props) {
        return new ComponentLifecycle(props.enabled(), manager::start, manager::stop, Integer.MAX_VALUE);
    }
}

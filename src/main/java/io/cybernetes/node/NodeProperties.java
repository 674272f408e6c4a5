package io.cybernetes.node;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.List;

/**
 * The simulated nodes this process runs, documented in {@code config/application.yml}.
 *
 * @param count        how many (0: none; the nodes are then run elsewhere, or not at all)
 * @param namePrefix   their names: prefix and number ({@code node-1}, {@code node-2} ...)
 * @param zones        spread over these zones, round-robin
 * @param region       their region
 * @param cpu          allocatable cpu of each
 * @param memory       allocatable memory of each
 * @param pods         how many pods each takes
 * @param images       images each reports having (for ImageLocality)
 * @param startupDelay how long a pod bound to a node takes to become Running
 * @param heartbeat    how often each renews its Lease
 * @param jobRunTime   how long a Job's pod runs before it succeeds, unless it says otherwise
 *                     ({@value NodeAgent#RUN_SECONDS}, {@value NodeAgent#EXIT_CODE})
 * @param address      each node's address, where its kubelet endpoints listen (its InternalIP)
 * @param kubeletPort  the first node's kubelet port, the next node's the one after (0: any free ports)
 * @param logInterval  how often a container without a log script ({@value LogScript#POD_ANNOTATION}) prints a line
 * @param usageFraction what share of its requests a container uses when no annotation
 *                     ({@value ResourceUsage#POD_ANNOTATION}) says
 * @param usageNoise   by how much of itself that usage varies either way from sample to sample
 */
@ConfigurationProperties("cybernetes.nodes")
public record NodeProperties(
        @DefaultValue("3") int count,
        @DefaultValue("node-") String namePrefix,
        @DefaultValue({"zone-a", "zone-b"}) List<String> zones,
        @DefaultValue("region-1") String region,
        @DefaultValue("8") String cpu,
        @DefaultValue("32Gi") String memory,
        @DefaultValue("110") int pods,
        @DefaultValue List<String> images,
        @DefaultValue("1s") Duration startupDelay,
        @DefaultValue("10s") Duration heartbeat,
        @DefaultValue("5s") Duration jobRunTime,
        @DefaultValue("127.0.0.1") String address,
        @DefaultValue("0") int kubeletPort,
        @DefaultValue("10s") Duration logInterval,
        @DefaultValue("0.3") double usageFraction,
        @DefaultValue("0.1") double usageNoise) {
}

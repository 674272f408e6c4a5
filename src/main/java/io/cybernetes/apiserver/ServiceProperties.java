package io.cybernetes.apiserver;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * Where Services get their addresses and ports, as kube-apiserver's flags of the same names
 * set them, documented in {@code config/application.yml}.
 *
 * @param clusterIpRange   the Service CIDR cluster IPs come from (its first address is the {@code kubernetes} Service's)
 * @param nodePortRange    the range node ports come from, both ends included
 * @param repairInterval   how often the allocations are compared with the Services holding them; one no Service
 *                         holds is given back when three comparisons in a row found it so
 * @param advertiseAddress the address this API server publishes in the {@code kubernetes} Service's endpoints
 *                         (empty: the host's first address that is not a loopback one)
 * @param endpointLeaseTtl how long a replica's address stays in those endpoints once it stops renewing it
 */
@ConfigurationProperties("cybernetes.apiserver.services")
public record ServiceProperties(
        @DefaultValue("10.96.0.0/12") String clusterIpRange,
        @DefaultValue("30000-32767") String nodePortRange,
        @DefaultValue("3m") Duration repairInterval,
        @DefaultValue("") String advertiseAddress,
        @DefaultValue("15s") Duration endpointLeaseTtl) {
}

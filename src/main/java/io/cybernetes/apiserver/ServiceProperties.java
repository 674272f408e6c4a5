package io.cybernetes.apiserver;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * Where Services get their addresses and ports, as kube-apiserver's flags of the same names
 * set them, and how this replica keeps itself in the {@code kubernetes} Service's endpoints;
 * documented in {@code config/application.yml}.
 *
 * @param clusterIpRange            the Service CIDR cluster IPs come from
 * @param nodePortRange             the range node ports come from, both ends included
 * @param advertiseAddress          the address this replica is listed under in the {@code kubernetes} Service's
 *                                  endpoints; empty: the host's first IPv4 address that is not a loopback one
 * @param endpointReconcileInterval how often this replica renews its lease there (it lapses after 1.5 times this)
 * @param repairInterval            how often the allocations are checked against the Services holding them
 */
@ConfigurationProperties("cybernetes.apiserver.services")
public record ServiceProperties(
        @DefaultValue("10.96.0.0/12") String clusterIpRange,
        @DefaultValue("30000-32767") String nodePortRange,
        @DefaultValue("") String advertiseAddress,
        @DefaultValue("10s") Duration endpointReconcileInterval,
        @DefaultValue("3m") Duration repairInterval) {
}

package io.cybernetes.apiserver;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where Services get their addresses and ports, as kube-apiserver's flags of the same names
 * set them, documented in {@code config/application.yml}.
 *
 * @param clusterIpRange   the Service CIDR cluster IPs come from
 * @param nodePortRange    the range node ports come from, both ends included
 */
@ConfigurationProperties("cybernetes.apiserver.services")
public record ServiceProperties(
        @DefaultValue("10.96.0.0/12") String clusterIpRange,
        @DefaultValue("30000-32767") String nodePortRange) {
}

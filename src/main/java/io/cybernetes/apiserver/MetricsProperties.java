package io.cybernetes.apiserver;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The resource metrics API ({@code metrics.k8s.io}) this server serves in place of a
 * metrics-server; documented in {@code config/application.yml}.
 *
 * @param resolution how often every node's kubelet is scraped (metrics-server's
 *                   {@code --metric-resolution}); usage is the rate between the last two scrapes
 */
@ConfigurationProperties("cybernetes.apiserver.metrics")
public record MetricsProperties(@DefaultValue("15s") Duration resolution) {

    public MetricsProperties {
        if (resolution.toMillis() < 100) {
            throw new IllegalArgumentException("cybernetes.apiserver.metrics.resolution must be at least 100ms");
        }
    }
}

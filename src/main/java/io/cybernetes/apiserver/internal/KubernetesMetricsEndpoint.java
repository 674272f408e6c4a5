package io.cybernetes.apiserver.internal;

import io.cybernetes.api.PrometheusText;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code /metrics}, where Prometheus looks for a Kubernetes control plane's metrics: the
 * API server's, its store's, the controllers' work queues and the scheduler's, under
 * Kubernetes' names, in the Prometheus text format. Authorized as the non-resource URL
 * {@code /metrics}, which {@code system:monitoring} may get. (The JVM's own metrics stay at
 * {@code /actuator/prometheus}.)
 */
@RestController
class KubernetesMetricsEndpoint {

    private static final MediaType TEXT = MediaType.parseMediaType("text/plain;version=0.0.4;charset=utf-8");

    private final List<PrometheusText.Source> sources;

    KubernetesMetricsEndpoint(List<PrometheusText.Source> sources) {
        this.sources = sources;
    }

    @GetMapping("/metrics")
    ResponseEntity<byte[]> metrics() {
        PrometheusText out = new PrometheusText();
        sources.forEach(s -> s.collect(out));
        return ResponseEntity.ok().contentType(TEXT).body(out.text().getBytes(StandardCharsets.UTF_8));
    }
}

package io.cybernetes.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The simulated usage: requests by default, the annotation's values and curves exactly, counters that add up. */
class ResourceUsageTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private static Pod pod(String annotation, Container... containers) {
        PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName("p").withUid("u1")
                .endMetadata().withNewSpec().withContainers(containers).endSpec().withNewStatus().withPhase("Running")
                .endStatus();
        if (annotation != null) {
            b.editMetadata().addToAnnotations(ResourceUsage.POD_ANNOTATION, annotation).endMetadata();
        }
        Pod pod = b.build();
        pod.getStatus().setContainerStatuses(java.util.Arrays.stream(containers).map(c ->
                new io.fabric8.kubernetes.api.model.ContainerStatusBuilder().withName(c.getName()).withNewState()
                        .withNewRunning().withStartedAt(START.toString()).endRunning().endState().build()).toList());
        return pod;
    }

    private static Container container(String name, String cpu, String memory) {
        ContainerBuilder b = new ContainerBuilder().withName(name).withImage("nginx");
        if (cpu != null) {
            b.withNewResources().addToRequests(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory)))
                    .endResources();
        }
        return b.build();
    }

    @Test
    void curvesRunStraightBetweenTheirPointsAndHoldAtTheEnds() {
        BigDecimal request = new BigDecimal("0.5");
        assertThat(ResourceUsage.curve("100m@0s,900m@60s,100m@2m", request, Duration.ofSeconds(30)))
                .isCloseTo(0.5, within(1e-9));
        assertThat(ResourceUsage.curve("100m@0s,900m@60s,100m@2m", request, Duration.ofSeconds(90)))
                .isCloseTo(0.5, within(1e-9));
        assertThat(ResourceUsage.curve("100m@10s,900m@60s", request, Duration.ZERO)).isCloseTo(0.1, within(1e-9));
        assertThat(ResourceUsage.curve("100m@0s,900m@60s", request, Duration.ofHours(1))).isCloseTo(0.9, within(1e-9));
        assertThat(ResourceUsage.curve("150%", request, Duration.ZERO)).isCloseTo(0.75, within(1e-9));
        assertThat(ResourceUsage.curve("200Mi", request, Duration.ZERO)).isEqualTo(200.0 * 1024 * 1024);
        assertThat(ResourceUsage.curve("lots", request, Duration.ZERO)).isNull();
        assertThat(ResourceUsage.curve("1@5x", request, Duration.ZERO)).isNull();
    }

    @Test
    void theAnnotationSetsUsageExactlyAndAContainerOfItsOwnOverridesIt() {
        ResourceUsage usage = new ResourceUsage();
        Pod pod = pod("cpu=250m memory=100Mi", container("web", "1", "1Gi"), container("side", "1", "1Gi"));
        pod.getMetadata().getAnnotations().put(ResourceUsage.POD_ANNOTATION + ".side", "cpu=50%");
        ResourceUsage.Usage web = usage.usage(pod, pod.getSpec().getContainers().get(0), Duration.ofSeconds(5));
        ResourceUsage.Usage side = usage.usage(pod, pod.getSpec().getContainers().get(1), Duration.ofSeconds(5));
        assertThat(web.cpuCores()).isCloseTo(0.25, within(1e-9));
        assertThat(web.memoryBytes()).isEqualTo(100L << 20);
        assertThat(side.cpuCores()).isCloseTo(0.5, within(1e-9));
        assertThat(side.memoryBytes()).isEqualTo(100L << 20);
    }

    @Test
    void withoutTheAnnotationAContainerUsesAShareOfItsRequestWithinTheNoise() {
        ResourceUsage usage = new ResourceUsage();
        usage.defaults(new ResourceUsage.Defaults(0.5, 0.1));
        Pod pod = pod(null, container("web", "400m", "200Mi"), container("bare", null, null));
        for (int i = 0; i < 50; i++) {
            ResourceUsage.Usage web = usage.usage(pod, pod.getSpec().getContainers().get(0), Duration.ofSeconds(i));
            assertThat(web.cpuCores()).isBetween(0.18, 0.22);
            assertThat(web.memoryBytes()).isBetween(90L << 20, 110L << 20);
            ResourceUsage.Usage bare = usage.usage(pod, pod.getSpec().getContainers().get(1), Duration.ofSeconds(i));
            assertThat(bare.cpuCores()).isBetween(0.045, 0.055); // half of 100m
        }
    }

    @Test
    void countersGrowByTheRateOverTimeAndTheNodeSumsItsContainers() {
        ResourceUsage usage = new ResourceUsage();
        Pod pod = pod("cpu=500m memory=10Mi", container("a", "1", "1Gi"), container("b", "1", "1Gi"));
        ResourceUsage.Scrape first = usage.scrape(List.of(pod), START.plusSeconds(10));
        assertThat(first.containers()).hasSize(2);
        assertThat(first.containers().get(0).cpuSeconds()).isCloseTo(5.0, within(1e-9)); // 10 s at half a core
        assertThat(first.nodeMemoryBytes()).isEqualTo(20L << 20);
        ResourceUsage.Scrape second = usage.scrape(List.of(pod), START.plusSeconds(20));
        assertThat(second.containers().get(0).cpuSeconds()).isCloseTo(10.0, within(1e-9));
        assertThat(second.nodeCpuSeconds() - first.nodeCpuSeconds()).isCloseTo(10.0, within(1e-9)); // two halves, 10 s
        Pod pending = pod(null, container("a", "1", "1Gi"));
        pending.getStatus().setPhase("Pending");
        assertThat(usage.scrape(List.of(pending), START.plusSeconds(30)).containers()).isEmpty();
        assertThat(usage.scrape(List.of(pending), START.plusSeconds(30)).nodeCpuSeconds())
                .isCloseTo(second.nodeCpuSeconds(), within(1e-9)); // a counter never goes back
    }
}

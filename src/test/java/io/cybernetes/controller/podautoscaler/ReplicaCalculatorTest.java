package io.cybernetes.controller.podautoscaler;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Kubernetes' replica calculator: tolerance, pods left out, missing samples, and the direction kept. */
class ReplicaCalculatorTest {

    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final Instant LONG_AGO = NOW.minus(Duration.ofHours(1));
    private final ReplicaCalculator calc = new ReplicaCalculator(new ReplicaCalculator.Settings(0.1,
            Duration.ofMinutes(5), Duration.ofSeconds(30)));

    private static Pod pod(String name, String phase, boolean ready, Instant started) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ns").endMetadata()
                .withNewSpec().withContainers(new ContainerBuilder().withName("web").withNewResources()
                        .addToRequests("cpu", new Quantity("100m")).endResources().build()).endSpec()
                .withNewStatus().withPhase(phase).withStartTime(started.toString())
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False")
                .withLastTransitionTime(started.plusSeconds(5).toString()).endCondition().endStatus().build();
    }

    private static Pod running(String name) {
        return pod(name, "Running", true, LONG_AGO);
    }

    private static ReplicaCalculator.Sample usage(String pod, String cpu) {
        return new ReplicaCalculator.Sample(pod, NOW.minusSeconds(5), Duration.ofSeconds(15),
                Map.of("web", Map.of("cpu", ReplicaCalculator.milli(new Quantity(cpu)))));
    }

    private int replicas(int current, int target, List<Pod> pods, List<ReplicaCalculator.Sample> metrics) throws Exception {
        return calc.resource(current, "cpu", null, target, 0, pods, metrics, NOW).replicas();
    }

    @Test
    void usageOverTheTargetScalesByTheRatioAndWithinToleranceNothingMoves() throws Exception {
        List<Pod> pods = List.of(running("a"), running("b"));
        assertThat(replicas(2, 50, pods, List.of(usage("a", "100m"), usage("b", "100m")))).isEqualTo(4);
        assertThat(replicas(2, 50, pods, List.of(usage("a", "54m"), usage("b", "54m")))).isEqualTo(2);
        assertThat(replicas(2, 50, pods, List.of(usage("a", "10m"), usage("b", "10m")))).isEqualTo(1);
        ReplicaCalculator.Recommendation r = calc.resource(2, "cpu", null, 50, 0, pods,
                List.of(usage("a", "100m"), usage("b", "50m")), NOW);
        assertThat(r.utilization()).isEqualTo(75);
        assertThat(r.averageMilli()).isEqualTo(75);
    }

    @Test
    void anAverageValueTargetComparesTheMeanPerPod() throws Exception {
        List<Pod> pods = List.of(running("a"), running("b"));
        ReplicaCalculator.Recommendation r = calc.resource(2, "cpu", null, null, 40, pods,
                List.of(usage("a", "120m"), usage("b", "40m")), NOW);
        assertThat(r.replicas()).isEqualTo(4); // mean 80m against 40m
        assertThat(r.utilization()).isNull();
    }

    @Test
    void podsWithoutSamplesCountAgainstTheDirectionTheRestPoint() throws Exception {
        // scaling up: the missing pod counts as idle, which damps the ratio (150% of target over 2 of 3 pods)
        List<Pod> pods = List.of(running("a"), running("b"), running("c"));
        assertThat(replicas(3, 50, pods, List.of(usage("a", "75m"), usage("b", "75m")))).isEqualTo(3);
        // scaling down: the missing pod counts as using all it asks for, so not far down
        assertThat(replicas(3, 50, pods, List.of(usage("a", "10m"), usage("b", "10m")))).isEqualTo(3);
    }

    @Test
    void unreadyAndStartingPodsAreLeftOutOfCpuAndCountAsIdleWhenScalingUp() throws Exception {
        Pod starting = pod("new", "Running", false, NOW.minusSeconds(20));
        List<Pod> pods = List.of(running("a"), starting);
        // a alone is at 200%: scaling up with an unready pod counts it as idle: (200+0)/2=100% against 50%
        assertThat(replicas(2, 50, pods, List.of(usage("a", "200m"), usage("new", "200m")))).isEqualTo(4);
        Pod failed = pod("gone", "Failed", false, LONG_AGO);
        assertThat(replicas(1, 50, List.of(running("a"), failed), List.of(usage("a", "100m"), usage("gone", "900m"))))
                .isEqualTo(2);
        Pod pending = pod("p", "Pending", false, NOW);
        assertThat(replicas(2, 50, List.of(running("a"), pending), List.of(usage("a", "50m")))).isEqualTo(2);
    }

    @Test
    void noSamplesOrNoRequestsAreErrorsInKubernetesWords() {
        assertThatThrownBy(() -> replicas(1, 50, List.of(running("a")), List.of()))
                .hasMessage("unable to get metrics for resource cpu: no metrics returned from resource metrics API");
        Pod bare = new PodBuilder(running("a")).editSpec().editFirstContainer().withResources(null).endContainer()
                .endSpec().build();
        assertThatThrownBy(() -> replicas(1, 50, List.of(bare), List.of(usage("a", "10m"))))
                .hasMessage("missing request for cpu in container web of Pod a");
    }
}

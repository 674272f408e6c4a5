package io.cybernetes.controller.podautoscaler;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Stabilization windows and scaling policies as the HPA controller applies them. */
class ScaleBehaviorTest {

    private static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");

    private static HorizontalPodAutoscalerBehavior behavior(int upWindow, List<HPAScalingPolicy> up, String upSelect,
                                                            int downWindow, List<HPAScalingPolicy> down) {
        return new HorizontalPodAutoscalerBehavior(new HPAScalingRules(down, "Max", downWindow, null),
                new HPAScalingRules(up, upSelect, upWindow, null));
    }

    private static HPAScalingPolicy policy(String type, int value, int period) {
        return new HPAScalingPolicy(period, type, value);
    }

    @Test
    void withoutABehaviorScaleDownWaitsForTheWindowAndScaleUpAtMostDoubles() {
        ScaleBehavior b = new ScaleBehavior(Duration.ofMinutes(5));
        assertThat(b.normalize("k", 2, 10, 1, 20, T0).replicas()).isEqualTo(4);
        assertThat(b.normalize("k", 2, 10, 1, 20, T0).limitedReason()).isEqualTo("ScaleUpLimit");
        ScaleBehavior.Outcome held = b.normalize("k", 4, 2, 1, 20, T0.plusSeconds(60));
        assertThat(held.replicas()).isEqualTo(8); // the highest of the window, 10, at most twice 4
        assertThat(held.ableReason()).isEqualTo("ScaleDownStabilized");
        assertThat(b.normalize("k", 4, 2, 1, 20, T0.plusSeconds(400)).replicas()).isEqualTo(2);
        assertThat(b.normalize("k", 4, 0, 1, 20, T0.plusSeconds(1000)).limitedReason()).isEqualTo("TooFewReplicas");
    }

    @Test
    void policiesLimitEachPeriodFromItsStartAndSelectPolicyPicksAmongThem() {
        ScaleBehavior b = new ScaleBehavior(Duration.ofMinutes(5));
        HorizontalPodAutoscalerBehavior rules = behavior(0, List.of(policy("Pods", 2, 60), policy("Percent", 50, 60)),
                "Max", 0, List.of(policy("Percent", 50, 60)));
        ScaleBehavior.Outcome first = b.normalize("k", 2, 10, 1, 20, rules, T0);
        assertThat(first.replicas()).isEqualTo(4); // max(2 + 2, ceil(2 * 1.5)) = 4
        assertThat(first.limitedReason()).isEqualTo("ScaleUpLimit");
        b.rescaled("k", 2, 4, rules, T0);
        assertThat(b.normalize("k", 4, 10, 1, 20, rules, T0.plusSeconds(10)).replicas()).isEqualTo(4); // same period
        assertThat(b.normalize("k", 4, 10, 1, 20, rules, T0.plusSeconds(61)).replicas()).isEqualTo(6);
        ScaleBehavior.Outcome down = b.normalize("k", 6, 1, 1, 20, rules, T0.plusSeconds(200));
        assertThat(down.replicas()).isEqualTo(3);
        assertThat(down.limitedReason()).isEqualTo("ScaleDownLimit");
        HorizontalPodAutoscalerBehavior disabled = behavior(0, List.of(policy("Pods", 2, 60)), "Disabled", 0,
                List.of(policy("Percent", 50, 60)));
        assertThat(b.normalize("d", 3, 9, 1, 20, disabled, T0).replicas()).isEqualTo(3);
    }

    @Test
    void theScaleUpWindowTakesTheLowestRecentRecommendation() {
        ScaleBehavior b = new ScaleBehavior(Duration.ofMinutes(5));
        HorizontalPodAutoscalerBehavior rules = behavior(30, List.of(policy("Pods", 100, 15)), "Max", 0,
                List.of(policy("Percent", 100, 15)));
        assertThat(b.normalize("k", 2, 3, 1, 20, rules, T0).replicas()).isEqualTo(3);
        ScaleBehavior.Outcome o = b.normalize("k", 3, 8, 1, 20, rules, T0.plusSeconds(10));
        assertThat(o.replicas()).isEqualTo(3);
        assertThat(o.ableReason()).isEqualTo("ScaleUpStabilized");
        assertThat(b.normalize("k", 3, 8, 1, 20, rules, T0.plusSeconds(45)).replicas()).isEqualTo(8);
    }
}

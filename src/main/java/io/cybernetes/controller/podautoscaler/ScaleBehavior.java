package io.cybernetes.controller.podautoscaler;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What an autoscaler remembers between its evaluations, and how it tempers a recommendation
 * with it, as Kubernetes' HPA controller does. Without a {@code behavior}: the highest
 * recommendation of the downscale stabilization window, at most twice the replicas (at
 * least 4) at a time, within min and max. With one: the recommendation held between the
 * lowest of the scale-up window and the highest of the scale-down window, then each
 * direction's policies limiting the change from the replicas at the start of their period
 * (the most or least of them as {@code selectPolicy} says, none when Disabled).
 */
final class ScaleBehavior {

    /** A replica count and what the conditions say of it. */
    record Outcome(int replicas, String ableReason, String ableMessage, boolean limited, String limitedReason,
                   String limitedMessage) {
    }

    private record Timestamped(int replicas, Instant at) {
    }

    /** Kubernetes' rules for a direction a behavior leaves out. */
    static final HPAScalingRules DEFAULT_UP = new HPAScalingRules(List.of(new HPAScalingPolicy(15, "Pods", 4),
            new HPAScalingPolicy(15, "Percent", 100)), "Max", 0, null);
    static final HPAScalingRules DEFAULT_DOWN = new HPAScalingRules(List.of(new HPAScalingPolicy(15, "Percent", 100)),
            "Max", null, null);

    private final Duration downscaleStabilization;
    private final Map<String, List<Timestamped>> recommendations = new ConcurrentHashMap<>();
    private final Map<String, List<Timestamped>> scaleUps = new ConcurrentHashMap<>();
    private final Map<String, List<Timestamped>> scaleDowns = new ConcurrentHashMap<>();

    ScaleBehavior(Duration downscaleStabilization) {
        this.downscaleStabilization = downscaleStabilization;
    }

    /**
     * The recommendation an autoscaler starts with, the replicas it finds: so a new
     * autoscaler, or one this controller has just taken over, waits out its window before
     * scaling down, as Kubernetes' recordInitialRecommendation does.
     */
    void recordInitial(String key, int current, Instant now) {
        recommendations.computeIfAbsent(key, k -> new ArrayList<>(List.of(new Timestamped(current, now))));
    }

    /** Forgets an autoscaler that is gone. */
    void forget(String key) {
        recommendations.remove(key);
        scaleUps.remove(key);
        scaleDowns.remove(key);
    }

    static final String READY = "ReadyForNewScale";
    static final String READY_MESSAGE = "recommended size matches current size";

    /** Tempers the metrics' recommendation for an autoscaler without a behavior. */
    Outcome normalize(String key, int current, int recommended, int min, int max, Instant now) {
        List<Timestamped> recs = recommendations.computeIfAbsent(key, k -> new ArrayList<>());
        int stabilized = recommended;
        synchronized (recs) {
            Instant cutoff = now.minus(downscaleStabilization);
            boolean replaced = false;
            for (int i = 0; i < recs.size(); i++) {
                Timestamped r = recs.get(i);
                if (r.at().isAfter(cutoff)) {
                    stabilized = Math.max(stabilized, r.replicas());
                } else if (!replaced) {
                    recs.set(i, new Timestamped(recommended, now));
                    replaced = true;
                }
            }
            if (!replaced) {
                recs.add(new Timestamped(recommended, now));
            }
        }
        String ableReason = stabilized != recommended ? "ScaleDownStabilized" : READY;
        String ableMessage = stabilized != recommended
                ? "recent recommendations were higher than current one, applying the highest recent recommendation"
                : READY_MESSAGE;
        int scaleUpLimit = Math.max(2 * current, 4);
        int maxAllowed;
        String reason;
        String message;
        if (max > scaleUpLimit) {
            maxAllowed = scaleUpLimit;
            reason = "ScaleUpLimit";
            message = "the desired replica count is increasing faster than the maximum scale rate";
        } else {
            maxAllowed = max;
            reason = "TooManyReplicas";
            message = "the desired replica count is more than the maximum replica count";
        }
        if (stabilized < min) {
            return new Outcome(min, ableReason, ableMessage, true, "TooFewReplicas",
                    "the desired replica count is less than the minimum replica count");
        }
        if (stabilized > maxAllowed) {
            return new Outcome(maxAllowed, ableReason, ableMessage, true, reason, message);
        }
        return new Outcome(stabilized, ableReason, ableMessage, false, "DesiredWithinRange",
                "the desired count is within the acceptable range");
    }

    /** Tempers the metrics' recommendation for an autoscaler with a behavior (defaults filled in). */
    Outcome normalize(String key, int current, int recommended, int min, int max, HorizontalPodAutoscalerBehavior b,
                      Instant now) {
        HPAScalingRules up = b.getScaleUp() != null ? b.getScaleUp() : DEFAULT_UP;
        HPAScalingRules down = b.getScaleDown() != null ? b.getScaleDown() : DEFAULT_DOWN;
        int upWindow = Objects.requireNonNullElse(up.getStabilizationWindowSeconds(), 0);
        // no window of its own: the controller's downscale stabilization, as Kubernetes' flag gives it
        int downWindow = Objects.requireNonNullElse(down.getStabilizationWindowSeconds(),
                (int) downscaleStabilization.toSeconds());
        Instant upCutoff = now.minusSeconds(upWindow);
        Instant downCutoff = now.minusSeconds(downWindow);
        int upRecommendation = recommended;
        int downRecommendation = recommended;
        List<Timestamped> recs = recommendations.computeIfAbsent(key, k -> new ArrayList<>());
        synchronized (recs) {
            int old = -1;
            for (int i = 0; i < recs.size(); i++) {
                Timestamped r = recs.get(i);
                if (r.at().isAfter(upCutoff)) {
                    upRecommendation = Math.min(r.replicas(), upRecommendation);
                }
                if (r.at().isAfter(downCutoff)) {
                    downRecommendation = Math.max(r.replicas(), downRecommendation);
                }
                if (r.at().isBefore(upCutoff) && r.at().isBefore(downCutoff)) {
                    old = i;
                }
            }
            if (old >= 0) {
                recs.set(old, new Timestamped(recommended, now));
            } else {
                recs.add(new Timestamped(recommended, now));
            }
        }
        int stabilized = Math.min(Math.max(current, upRecommendation), downRecommendation);
        String ableReason = READY;
        String ableMessage = READY_MESSAGE;
        if (stabilized != recommended) {
            boolean upward = recommended >= current;
            ableReason = upward ? "ScaleUpStabilized" : "ScaleDownStabilized";
            ableMessage = upward
                    ? "recent recommendations were lower than current one, applying the lowest recent recommendation"
                    : "recent recommendations were higher than current one, applying the highest recent recommendation";
        }
        if (stabilized > current) {
            int limit = Math.max(current, upLimit(current, key, up, now));
            int maxAllowed = Math.min(max, limit);
            if (stabilized > maxAllowed) {
                return max > limit ? new Outcome(maxAllowed, ableReason, ableMessage, true, "ScaleUpLimit",
                        "the desired replica count is increasing faster than the maximum scale rate")
                        : new Outcome(maxAllowed, ableReason, ableMessage, true, "TooManyReplicas",
                        "the desired replica count is more than the maximum replica count");
            }
        } else if (stabilized < current) {
            int limit = Math.min(current, downLimit(current, key, down, now));
            int minAllowed = Math.max(min, limit);
            if (stabilized < minAllowed) {
                return min < limit ? new Outcome(minAllowed, ableReason, ableMessage, true, "ScaleDownLimit",
                        "the desired replica count is decreasing faster than the maximum scale rate")
                        : new Outcome(minAllowed, ableReason, ableMessage, true, "TooFewReplicas",
                        "the desired replica count is less than the minimum replica count");
            }
        }
        return new Outcome(stabilized, ableReason, ableMessage, false, "DesiredWithinRange",
                "the desired count is within the acceptable range");
    }

    /** The most replicas the scale-up policies allow now. */
    private int upLimit(int current, String key, HPAScalingRules rules, Instant now) {
        return limit(current, key, rules, now, true);
    }

    /** The fewest replicas the scale-down policies allow now. */
    private int downLimit(int current, String key, HPAScalingRules rules, Instant now) {
        return limit(current, key, rules, now, false);
    }

    /**
     * What a direction's policies allow from the replicas at the start of each policy's period
     * (now less what changed in it): the most change of them ({@code Max}) or the least
     * ({@code Min}); none when Disabled.
     */
    private int limit(int current, String key, HPAScalingRules rules, Instant now, boolean up) {
        String select = Objects.requireNonNullElse(rules.getSelectPolicy(), "Max");
        if (select.equals("Disabled")) {
            return current;
        }
        boolean mostChange = !select.equals("Min");
        // scaling up, the most change is the highest count; scaling down, the lowest
        boolean highest = mostChange == up;
        int result = highest ? Integer.MIN_VALUE : Integer.MAX_VALUE;
        for (HPAScalingPolicy p : Objects.requireNonNullElse(rules.getPolicies(), List.<HPAScalingPolicy>of())) {
            int start = current - changes(scaleUps, key, p.getPeriodSeconds(), now)
                    + changes(scaleDowns, key, p.getPeriodSeconds(), now);
            int proposed = "Pods".equals(p.getType()) ? (up ? start + p.getValue() : start - p.getValue())
                    : up ? (int) Math.ceil(start * (1 + p.getValue() / 100.0)) : (int) (start * (1 - p.getValue() / 100.0));
            result = highest ? Math.max(result, proposed) : Math.min(result, proposed);
        }
        return result;
    }

    private static int changes(Map<String, List<Timestamped>> events, String key, int periodSeconds, Instant now) {
        List<Timestamped> list = events.getOrDefault(key, List.of());
        Instant cutoff = now.minusSeconds(periodSeconds);
        synchronized (list) {
            return list.stream().filter(e -> e.at().isAfter(cutoff)).mapToInt(Timestamped::replicas).sum();
        }
    }

    /** Records a rescale, for the policies of an autoscaler with a behavior; events older than its longest period go. */
    void rescaled(String key, int from, int to, HorizontalPodAutoscalerBehavior b, Instant now) {
        if (b == null || from == to) {
            return;
        }
        HPAScalingRules rules = to > from ? (b.getScaleUp() != null ? b.getScaleUp() : DEFAULT_UP)
                : (b.getScaleDown() != null ? b.getScaleDown() : DEFAULT_DOWN);
        int longest = Objects.requireNonNullElse(rules.getPolicies(), List.<HPAScalingPolicy>of()).stream()
                .mapToInt(HPAScalingPolicy::getPeriodSeconds).max().orElse(0);
        List<Timestamped> list = (to > from ? scaleUps : scaleDowns).computeIfAbsent(key, k -> new ArrayList<>());
        synchronized (list) {
            list.removeIf(e -> !e.at().isAfter(now.minusSeconds(longest)));
            list.add(new Timestamped(Math.abs(to - from), now));
        }
    }
}

package io.cybernetes.controller.job;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnExitCodesRequirement;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnPodConditionsPattern;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyRule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a failed pod means for its Job: the first rule of the pod failure policy that
 * matches it (by its containers' exit codes or its conditions) decides — FailJob, FailIndex,
 * Ignore or Count — and a pod no rule matches counts; and how long a Job waits before it
 * replaces a failed pod (exponential back-off, as Kubernetes': the base doubled for every
 * failure after the first, at most ten minutes).
 */
final class FailurePolicy {

    static final Duration MAX_BACKOFF = Duration.ofMinutes(10);

    /** The rule's action, and the message a FailJob rule leaves in the Job's condition. */
    record Verdict(String action, String message) {
        static final Verdict COUNT = new Verdict("Count", null);
    }

    private FailurePolicy() {
    }

    static Verdict judge(Job job, Pod pod) {
        if (job.getSpec().getPodFailurePolicy() == null) {
            return Verdict.COUNT;
        }
        List<PodFailurePolicyRule> rules = Objects.requireNonNullElse(job.getSpec().getPodFailurePolicy().getRules(),
                List.of());
        for (int i = 0; i < rules.size(); i++) {
            PodFailurePolicyRule rule = rules.get(i);
            String matched = rule.getOnExitCodes() != null ? exitCodeMatch(rule.getOnExitCodes(), pod)
                    : conditionMatch(rule.getOnPodConditions(), pod) ? "" : null;
            if (matched == null) {
                continue;
            }
            String message = rule.getOnExitCodes() != null
                    ? "Container " + matched + " for pod " + pod.getMetadata().getNamespace() + "/"
                    + pod.getMetadata().getName() + " failed with exit code " + exitCode(pod, matched) + " matching "
                    + rule.getAction() + " rule at index " + i
                    : "Pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + " has condition "
                    + conditionName(rule.getOnPodConditions(), pod) + " matching " + rule.getAction()
                    + " rule at index " + i;
            return new Verdict(rule.getAction(), message);
        }
        return Verdict.COUNT;
    }

    /** The name of the first container whose exit code the requirement matches, or null. */
    private static String exitCodeMatch(PodFailurePolicyOnExitCodesRequirement on, Pod pod) {
        List<Integer> values = Objects.requireNonNullElse(on.getValues(), List.of());
        boolean in = "In".equals(on.getOperator());
        for (ContainerStatus s : terminated(pod)) {
            if (on.getContainerName() != null && !on.getContainerName().equals(s.getName())) {
                continue;
            }
            int code = s.getState().getTerminated().getExitCode();
            if (code != 0 && values.contains(code) == in) {
                return s.getName();
            }
        }
        return null;
    }

    private static int exitCode(Pod pod, String container) {
        return terminated(pod).stream().filter(s -> s.getName().equals(container))
                .mapToInt(s -> s.getState().getTerminated().getExitCode()).findFirst().orElse(0);
    }

    private static List<ContainerStatus> terminated(Pod pod) {
        List<ContainerStatus> out = new ArrayList<>();
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return out;
        }
        for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
            if (s.getState() != null && s.getState().getTerminated() != null
                    && s.getState().getTerminated().getExitCode() != null) {
                out.add(s);
            }
        }
        return out;
    }

    private static boolean conditionMatch(List<PodFailurePolicyOnPodConditionsPattern> patterns, Pod pod) {
        return conditionName(patterns, pod) != null;
    }

    private static String conditionName(List<PodFailurePolicyOnPodConditionsPattern> patterns, Pod pod) {
        if (patterns == null || pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return null;
        }
        for (PodFailurePolicyOnPodConditionsPattern p : patterns) {
            for (PodCondition c : pod.getStatus().getConditions()) {
                if (p.getType().equals(c.getType())
                        && Objects.requireNonNullElse(p.getStatus(), "True").equals(c.getStatus())) {
                    return c.getType();
                }
            }
        }
        return null;
    }

    /** How long after the latest failure a replacement waits, after {@code failures} failures. */
    static Duration backoff(Duration base, int failures) {
        if (failures <= 0) {
            return Duration.ZERO;
        }
        Duration d = base;
        for (int i = 1; i < failures && d.compareTo(MAX_BACKOFF) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }
}

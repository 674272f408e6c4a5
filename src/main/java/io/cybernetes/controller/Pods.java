package io.cybernetes.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

/** What several controllers ask of a pod. */
public final class Pods {

    private Pods() {
    }

    /** Whether the pod's Ready condition is True. */
    public static boolean ready(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return false;
        }
        for (PodCondition c : pod.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return "True".equals(c.getStatus());
            }
        }
        return false;
    }

    /** When the pod's Ready condition last became True, or null (not ready, or no time given). */
    public static java.time.Instant readySince(Pod pod) {
        if (!ready(pod)) {
            return null;
        }
        for (PodCondition c : pod.getStatus().getConditions()) {
            if ("Ready".equals(c.getType()) && c.getLastTransitionTime() != null) {
                return java.time.Instant.parse(c.getLastTransitionTime());
            }
        }
        return null;
    }

    /** Ready for {@code minReadySeconds} by {@code now}, as Kubernetes' IsPodAvailable judges it. */
    public static boolean available(Pod pod, int minReadySeconds, java.time.Instant now) {
        if (!ready(pod)) {
            return false;
        }
        if (minReadySeconds <= 0) {
            return true;
        }
        java.time.Instant since = readySince(pod);
        return since != null && !since.plusSeconds(minReadySeconds).isAfter(now);
    }
}

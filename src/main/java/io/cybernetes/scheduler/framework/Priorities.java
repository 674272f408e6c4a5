package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.Pod;

import java.util.Objects;

/** A pod's priority as the scheduler reads it: {@code spec.priority}, 0 when unset. */
public final class Priorities {

    private Priorities() {
    }

    public static int of(Pod pod) {
        return pod.getSpec() == null ? 0 : Objects.requireNonNullElse(pod.getSpec().getPriority(), 0);
    }
}

package io.cybernetes.api;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;

import java.util.List;
import java.util.Objects;

/** Whether tolerations tolerate a taint, by Kubernetes' rules. */
public final class Tolerations {

    private Tolerations() {
    }

    /**
     * An empty effect tolerates every effect; an empty key with {@code Exists} tolerates every
     * key; {@code Exists} any value, {@code Equal} (the default) the same value.
     */
    public static boolean tolerates(Toleration t, Taint taint) {
        if (t.getEffect() != null && !t.getEffect().isEmpty() && !t.getEffect().equals(taint.getEffect())) {
            return false;
        }
        String key = Objects.requireNonNullElse(t.getKey(), "");
        boolean exists = "Exists".equals(t.getOperator());
        if (key.isEmpty()) {
            return exists;
        }
        if (!key.equals(taint.getKey())) {
            return false;
        }
        return exists || Objects.equals(Objects.requireNonNullElse(t.getValue(), ""),
                Objects.requireNonNullElse(taint.getValue(), ""));
    }

    public static boolean toleratedBy(List<Toleration> tolerations, Taint taint) {
        return tolerations != null && tolerations.stream().anyMatch(t -> tolerates(t, taint));
    }
}

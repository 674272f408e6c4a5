package io.cybernetes.controller.deployment;

import io.cybernetes.api.Json;
import io.cybernetes.controller.IntOrPercent;
import io.cybernetes.controller.TemplateHash;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static io.cybernetes.controller.deployment.DeploymentController.HASH_LABEL;
import static io.cybernetes.controller.deployment.DeploymentController.NOT_COPIED;
import static io.cybernetes.controller.deployment.DeploymentController.REVISION;

/**
 * What a Deployment's spec and its ReplicaSets say, read as Kubernetes' deployment
 * utilities read them: desired replicas, strategy, surge and unavailability bounds,
 * revisions and annotations, and whether a set's pod template is the Deployment's.
 */
final class DeploymentSpecs {

    private DeploymentSpecs() {
    }


    static int desired(Deployment d) {
        return Objects.requireNonNullElse(d.getSpec().getReplicas(), 1);
    }

    static String strategyType(Deployment d) {
        return d.getSpec().getStrategy() == null || d.getSpec().getStrategy().getType() == null ? "RollingUpdate"
                : d.getSpec().getStrategy().getType();
    }

    static int minReadySeconds(Deployment d) {
        return Objects.requireNonNullElse(d.getSpec().getMinReadySeconds(), 0);
    }

    static Integer progressDeadline(Deployment d) {
        return d.getSpec().getProgressDeadlineSeconds();
    }

    /** maxSurge resolved against replicas (percentages rounded up); 0 for Recreate. */
    static int maxSurge(Deployment d) {
        if (!"RollingUpdate".equals(strategyType(d))) {
            return 0;
        }
        return fenceposts(d)[0];
    }

    /** maxUnavailable resolved against replicas (percentages rounded down), at most replicas; 0 for Recreate. */
    static int maxUnavailable(Deployment d) {
        if (!"RollingUpdate".equals(strategyType(d)) || desired(d) == 0) {
            return 0;
        }
        return Math.min(fenceposts(d)[1], desired(d));
    }

    /** maxSurge and maxUnavailable; both zero is read as unavailable 1, so a rollout can move. */
    static int[] fenceposts(Deployment d) {
        var ru = d.getSpec().getStrategy() == null ? null : d.getSpec().getStrategy().getRollingUpdate();
        int replicas = desired(d);
        int surge = ru == null ? IntOrPercent.resolve(null, "25%", replicas, true)
                : IntOrPercent.resolve(ru.getMaxSurge(), "25%", replicas, true);
        int unavailable = ru == null ? IntOrPercent.resolve(null, "25%", replicas, false)
                : IntOrPercent.resolve(ru.getMaxUnavailable(), "25%", replicas, false);
        if (surge == 0 && unavailable == 0) {
            unavailable = 1;
        }
        return new int[] {surge, unavailable};
    }

    static int replicas(ReplicaSet rs) {
        return rs == null ? 0 : Objects.requireNonNullElse(rs.getSpec().getReplicas(), 1);
    }

    static int statusReplicas(ReplicaSet rs) {
        return rs == null || rs.getStatus() == null ? 0 : Objects.requireNonNullElse(rs.getStatus().getReplicas(), 0);
    }

    static int available(ReplicaSet rs) {
        return rs == null || rs.getStatus() == null ? 0
                : Objects.requireNonNullElse(rs.getStatus().getAvailableReplicas(), 0);
    }

    /**
     * Available replicas a set can still have: its status, but never more than it was just
     * scaled to — a status written before a scale-down may still count pods being deleted.
     */
    static int availableNow(ReplicaSet rs) {
        return Math.min(replicas(rs), available(rs));
    }

    static int n(Integer v) {
        return v == null ? 0 : v;
    }

    static long revision(ReplicaSet rs) {
        try {
            return Long.parseLong(Objects.requireNonNullElse(annotation(rs, REVISION), "0"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static String annotation(HasMetadata o, String key) {
        return o.getMetadata().getAnnotations() == null ? null : o.getMetadata().getAnnotations().get(key);
    }

    static Map<String, String> annotations(HasMetadata o) {
        if (o.getMetadata().getAnnotations() == null) {
            o.getMetadata().setAnnotations(new LinkedHashMap<>());
        }
        return o.getMetadata().getAnnotations();
    }

    /** Copies the Deployment's own annotations onto the set (change-cause and the like); true when any changed. */
    static boolean copyAnnotations(Deployment d, ReplicaSet rs) {
        boolean changed = false;
        Map<String, String> target = annotations(rs);
        for (Map.Entry<String, String> e : Objects.requireNonNullElse(d.getMetadata().getAnnotations(),
                Map.<String, String>of()).entrySet()) {
            if (NOT_COPIED.contains(e.getKey()) || e.getValue().equals(target.get(e.getKey()))) {
                continue;
            }
            target.put(e.getKey(), e.getValue());
            changed = true;
        }
        return changed;
    }

    static Map<String, String> labels(HasMetadata o) {
        return o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels();
    }

    static final Comparator<ReplicaSet> BY_CREATION = Comparator
            .comparing((ReplicaSet rs) -> Objects.requireNonNullElse(rs.getMetadata().getCreationTimestamp(), ""))
            .thenComparing(rs -> rs.getMetadata().getName());

    /**
     * Whether a set's template is the Deployment's, the set's {@code pod-template-hash} label
     * aside, compared as Kubernetes compares the Go structs: a field that Go cannot tell
     * from its zero value (a plain {@code bool} or number) counts the same written as
     * {@code false}/0 or left out — kubectl's rollback writes templates without them, a
     * protobuf body carries them.
     */
    static boolean sameTemplate(PodTemplateSpec ofSet, PodTemplateSpec ofDeployment) {
        ObjectNode a = Json.toTree(ofSet);
        ObjectNode b = Json.toTree(ofDeployment);
        for (ObjectNode t : List.of(a, b)) {
            if (t.path("metadata").path("labels") instanceof ObjectNode labels) {
                labels.remove(HASH_LABEL);
                if (labels.isEmpty()) {
                    ((ObjectNode) t.get("metadata")).remove("labels");
                }
            }
            dropZero(t.get("metadata"), "generation");
            if (t.path("metadata") instanceof ObjectNode meta && meta.isEmpty()) {
                t.remove("metadata");
            }
            JsonNode spec = t.get("spec");
            dropZero(spec, "hostNetwork", "hostPID", "hostIPC");
            for (String list : List.of("containers", "initContainers", "ephemeralContainers")) {
                for (JsonNode c : spec == null ? Json.MAPPER.createArrayNode() : spec.path(list)) {
                    dropZero(c, "stdin", "stdinOnce", "tty");
                    c.path("ports").forEach(p -> dropZero(p, "hostPort"));
                    c.path("volumeMounts").forEach(m -> dropZero(m, "readOnly"));
                    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                        dropZero(c.get(probe), "initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                "successThreshold", "failureThreshold");
                    }
                }
            }
        }
        return a.equals(b);
    }

    /** Removes the fields that hold their type's zero value (false, 0). */
    static void dropZero(JsonNode node, String... fields) {
        if (!(node instanceof ObjectNode o)) {
            return;
        }
        for (String f : fields) {
            JsonNode v = o.get(f);
            if (v != null && ((v.isBoolean() && !v.asBoolean()) || (v.isNumber() && v.asLong() == 0))) {
                o.remove(f);
            }
        }
    }

    /** The template's hash as Kubernetes spells it: FNV-1a of the template and the collision count, in safe letters. */
    static String templateHash(PodTemplateSpec template, int collisionCount) {
        return TemplateHash.of(Json.toTree(template), collisionCount);
    }

    static <T> T copy(Object o, Class<T> type) {
        return Json.convert(Json.toTree(o), type);
    }
}

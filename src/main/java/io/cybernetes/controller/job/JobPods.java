package io.cybernetes.controller.job;

import io.cybernetes.api.Json;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Pods;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Job's pods as its controller sees and makes them: made from the template with the
 * tracking finalizer and the Job as controller; for an Indexed Job the completion index in
 * an annotation, a label, the {@code JOB_COMPLETION_INDEX} variable and the host name, and
 * with a per-index back-off limit the index's failures so far.
 */
final class JobPods {

    static final String TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
    static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
    static final String INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count";
    static final String INDEX_ENV = "JOB_COMPLETION_INDEX";

    private JobPods() {
    }

    static boolean indexed(Job job) {
        return "Indexed".equals(job.getSpec().getCompletionMode());
    }

    static Pod newPod(Job job, Integer index, int indexFailures) {
        var template = job.getSpec().getTemplate();
        ObjectMeta meta = new ObjectMeta();
        Map<String, String> labels = new HashMap<>(template.getMetadata() == null ? Map.of()
                : Objects.requireNonNullElse(template.getMetadata().getLabels(), Map.of()));
        Map<String, String> annotations = new HashMap<>(template.getMetadata() == null ? Map.of()
                : Objects.requireNonNullElse(template.getMetadata().getAnnotations(), Map.of()));
        String name = job.getMetadata().getName();
        meta.setNamespace(job.getMetadata().getNamespace());
        meta.setGenerateName((index == null ? name : name + "-" + index) + "-");
        meta.setOwnerReferences(new ArrayList<>(List.of(OwnerReferences.controlledBy(job))));
        meta.setFinalizers(new ArrayList<>(List.of(TRACKING_FINALIZER)));
        PodSpec spec = Json.convert(Json.toTree(template.getSpec()), PodSpec.class);
        if (index != null) {
            annotations.put(COMPLETION_INDEX, Integer.toString(index));
            labels.put(COMPLETION_INDEX, Integer.toString(index));
            if (job.getSpec().getBackoffLimitPerIndex() != null) {
                annotations.put(INDEX_FAILURE_COUNT, Integer.toString(indexFailures));
            }
            if (spec.getHostname() == null) {
                spec.setHostname(name + "-" + index);
            }
            for (Container c : spec.getContainers()) {
                List<EnvVar> env = new ArrayList<>(Objects.requireNonNullElse(c.getEnv(), List.of()));
                if (env.stream().noneMatch(e -> INDEX_ENV.equals(e.getName()))) {
                    env.add(0, new EnvVarBuilder().withName(INDEX_ENV).withNewValueFrom().withNewFieldRef()
                            .withFieldPath("metadata.annotations['" + COMPLETION_INDEX + "']").endFieldRef()
                            .endValueFrom().build());
                }
                c.setEnv(env);
            }
        }
        meta.setLabels(labels);
        meta.setAnnotations(annotations.isEmpty() ? null : annotations);
        Pod pod = new Pod();
        pod.setMetadata(meta);
        pod.setSpec(spec);
        return pod;
    }

    /** The pod's completion index, or null (a NonIndexed Job's pod, or one whose annotation is no index). */
    static Integer index(Pod pod) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        String v = a == null ? null : a.get(COMPLETION_INDEX);
        if (v == null) {
            return null;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static int indexFailures(Pod pod) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        try {
            return a == null || a.get(INDEX_FAILURE_COUNT) == null ? 0 : Integer.parseInt(a.get(INDEX_FAILURE_COUNT));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static String phase(Pod p) {
        return p.getStatus() == null || p.getStatus().getPhase() == null ? "Pending" : p.getStatus().getPhase();
    }

    static boolean succeeded(Pod p) {
        return "Succeeded".equals(phase(p));
    }

    /**
     * Whether the pod counts as failed: Failed, or (unless only failed pods are replaced)
     * deleted before it succeeded, as an orphan never gets the chance to fail.
     */
    static boolean failed(Pod p, Job job) {
        if ("Failed".equals(phase(p))) {
            return true;
        }
        boolean onlyFailed = "Failed".equals(job.getSpec().getPodReplacementPolicy())
                || job.getSpec().getPodFailurePolicy() != null;
        return !onlyFailed && p.getMetadata().getDeletionTimestamp() != null && !succeeded(p);
    }

    static boolean active(Pod p) {
        String phase = phase(p);
        return p.getMetadata().getDeletionTimestamp() == null && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    static boolean terminating(Pod p) {
        String phase = phase(p);
        return p.getMetadata().getDeletionTimestamp() != null && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    static boolean ready(Pod p) {
        return Pods.ready(p);
    }

    /** Restarts of the pod's containers (for OnFailure, each counts against the back-off limit). */
    static int restarts(Pod p) {
        if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
            return 0;
        }
        return p.getStatus().getContainerStatuses().stream()
                .mapToInt(s -> Objects.requireNonNullElse(s.getRestartCount(), 0)).sum();
    }

    static boolean hasFinalizer(Pod p) {
        return p.getMetadata().getFinalizers() != null && p.getMetadata().getFinalizers().contains(TRACKING_FINALIZER);
    }
}

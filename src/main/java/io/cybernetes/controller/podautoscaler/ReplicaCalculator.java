package io.cybernetes.controller.podautoscaler;

import io.cybernetes.api.Quantities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How many replicas a resource metric asks for, as Kubernetes' replica calculator works it
 * out from the pods' usage (in milli-units) against their requests: pods being deleted or
 * failed are left out; for cpu, pods not ready (or still starting, their sample taken
 * before they became ready) are left out too, and counted as idle when the rest would
 * scale up; pods without a sample count as using all of their request (at least the
 * target) when the rest would scale down and nothing when they would scale up. Within the
 * tolerance of the target, or when the pods left out would turn the direction around,
 * nothing changes.
 */
final class ReplicaCalculator {

    /** The calculator's settings: kube-controller-manager's --horizontal-pod-autoscaler-* flags. */
    record Settings(double tolerance, Duration cpuInitializationPeriod, Duration initialReadinessDelay) {
    }

    /** A replica count, the usage it came from (utilization in percent, or null) and the average usage per pod. */
    record Recommendation(int replicas, Integer utilization, long averageMilli, Instant timestamp) {
    }

    /**
     * One pod's sample from the resource metrics API: when it was taken, over what window,
     * and each container's usage by resource in milli-units.
     */
    record Sample(String pod, Instant timestamp, Duration window, Map<String, Map<String, Long>> containers) {
    }

    /** Why no recommendation could be made, in Kubernetes' words. */
    static final class MetricException extends Exception {
        MetricException(String message) {
            super(message);
        }
    }

    private final Settings settings;

    ReplicaCalculator(Settings settings) {
        this.settings = settings;
    }

    /**
     * Replicas for a resource (or one container's, when {@code container} is not null) at a
     * target utilization (percent of request) or, when {@code targetUtilization} is null, a
     * target average usage per pod in milli-units.
     */
    Recommendation resource(int currentReplicas, String resource, String container, Integer targetUtilization,
                            long targetAverageMilli, List<Pod> pods, List<Sample> metrics, Instant now)
            throws MetricException {
        Map<String, Long> usage = new HashMap<>();
        Map<String, Sample> samples = new HashMap<>();
        for (Sample m : metrics) {
            Long sum = usage(m, resource, container);
            if (sum != null) {
                usage.put(m.pod(), sum);
                samples.put(m.pod(), m);
            }
        }
        if (usage.isEmpty()) {
            throw new MetricException("unable to get metrics for resource " + resource
                    + ": no metrics returned from resource metrics API");
        }
        if (pods.isEmpty()) {
            throw new MetricException("no pods returned by selector while calculating replica count");
        }
        int ready = 0;
        Set<String> unready = new HashSet<>();
        Set<String> missing = new HashSet<>();
        Set<String> ignored = new HashSet<>();
        for (Pod pod : pods) {
            String name = pod.getMetadata().getName();
            String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
            if (pod.getMetadata().getDeletionTimestamp() != null || "Failed".equals(phase)) {
                ignored.add(name);
                continue;
            }
            if ("Pending".equals(phase)) {
                unready.add(name);
                continue;
            }
            Sample sample = samples.get(name);
            if (sample == null) {
                missing.add(name);
                continue;
            }
            if (resource.equals("cpu") && unreadyForCpu(pod, sample, now)) {
                unready.add(name);
                continue;
            }
            ready++;
        }
        usage.keySet().removeAll(ignored);
        usage.keySet().removeAll(unready);
        Map<String, Long> requests = new HashMap<>();
        for (Pod pod : pods) {
            requests.put(pod.getMetadata().getName(), request(pod, resource, container, targetUtilization != null));
        }
        if (usage.isEmpty()) {
            throw new MetricException("did not receive metrics for targeted pods (pods might be unready)");
        }
        Ratio first = ratio(usage, requests, targetUtilization, targetAverageMilli);
        Instant timestamp = samples.values().stream().map(Sample::timestamp).filter(Objects::nonNull)
                .min(Instant::compareTo).orElse(now);
        boolean scaleUpWithUnready = !unready.isEmpty() && first.ratio() > 1.0;
        if (!scaleUpWithUnready && missing.isEmpty()) {
            if (Math.abs(1.0 - first.ratio()) <= settings.tolerance()) {
                return new Recommendation(currentReplicas, first.utilization(), first.average(), timestamp);
            }
            return new Recommendation((int) Math.ceil(first.ratio() * ready), first.utilization(), first.average(),
                    timestamp);
        }
        if (!missing.isEmpty()) {
            for (String pod : missing) {
                if (first.ratio() < 1.0) {
                    usage.put(pod, targetUtilization != null
                            ? requests.getOrDefault(pod, 0L) * Math.max(100, targetUtilization) / 100 : targetAverageMilli);
                } else if (first.ratio() > 1.0) {
                    usage.put(pod, 0L);
                }
            }
        }
        if (scaleUpWithUnready) {
            for (String pod : unready) {
                usage.put(pod, 0L);
            }
        }
        Ratio second = ratio(usage, requests, targetUtilization, targetAverageMilli);
        if (Math.abs(1.0 - second.ratio()) <= settings.tolerance() || (first.ratio() < 1.0 && second.ratio() > 1.0)
                || (first.ratio() > 1.0 && second.ratio() < 1.0)) {
            return new Recommendation(currentReplicas, first.utilization(), first.average(), timestamp);
        }
        int replicas = (int) Math.ceil(second.ratio() * usage.size());
        if ((second.ratio() < 1.0 && replicas > currentReplicas) || (second.ratio() > 1.0 && replicas < currentReplicas)) {
            return new Recommendation(currentReplicas, first.utilization(), first.average(), timestamp);
        }
        return new Recommendation(replicas, first.utilization(), first.average(), timestamp);
    }

    private record Ratio(double ratio, Integer utilization, long average) {
    }

    /** Usage against the target: utilization over the requests of the pods sampled, or the average per pod. */
    private static Ratio ratio(Map<String, Long> usage, Map<String, Long> requests, Integer targetUtilization,
                               long targetAverageMilli) throws MetricException {
        long total = 0;
        long requested = 0;
        int counted = 0;
        for (Map.Entry<String, Long> e : usage.entrySet()) {
            Long request = requests.get(e.getKey());
            if (targetUtilization != null && request == null) {
                continue;
            }
            total += e.getValue();
            requested += request == null ? 0 : request;
            counted++;
        }
        if (targetUtilization == null) {
            long average = counted == 0 ? 0 : total / counted;
            return new Ratio((double) average / targetAverageMilli, null, average);
        }
        if (requested == 0) {
            throw new MetricException("no metrics returned matched known pods");
        }
        int utilization = (int) (total * 100 / requested);
        return new Ratio((double) utilization / targetUtilization, utilization, total / counted);
    }

    /**
     * For cpu: whether a pod's sample is to be left out. Still starting (within the cpu
     * initialization period): when it is not ready, or its sample was taken before a whole
     * window had passed since it became ready. Later: when it is not ready and never was.
     */
    private boolean unreadyForCpu(Pod pod, Sample sample, Instant now) {
        PodCondition ready = pod.getStatus().getConditions() == null ? null : pod.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
        Instant started = parse(pod.getStatus().getStartTime());
        if (ready == null || started == null) {
            return true;
        }
        Instant transition = parse(ready.getLastTransitionTime());
        if (transition == null) {
            transition = started;
        }
        if (started.plus(settings.cpuInitializationPeriod()).isAfter(now)) {
            Instant taken = sample.timestamp();
            Duration window = sample.window();
            return "False".equals(ready.getStatus()) || (taken != null && taken.isBefore(transition.plus(window)));
        }
        return "False".equals(ready.getStatus()) && started.plus(settings.initialReadinessDelay()).isAfter(transition);
    }

    /** What the pod (or its one container) uses of the resource, in milli-units; null when it has no sample of it. */
    private static Long usage(Sample m, String resource, String container) {
        long sum = 0;
        boolean found = false;
        for (Map.Entry<String, Map<String, Long>> c : m.containers().entrySet()) {
            if (container != null && !container.equals(c.getKey())) {
                continue;
            }
            Long v = c.getValue().get(resource);
            if (v == null) {
                return null;
            }
            sum += v;
            found = true;
        }
        return found ? sum : null;
    }

    /** The pod's request of the resource (or its one container's) in milli-units; null without one when it counts. */
    private static Long request(Pod pod, String resource, String container, boolean needed) throws MetricException {
        long sum = 0;
        for (Container c : pod.getSpec().getContainers()) {
            if (container != null && !container.equals(c.getName())) {
                continue;
            }
            Quantity q = c.getResources() == null || c.getResources().getRequests() == null ? null
                    : c.getResources().getRequests().get(resource);
            if (q == null) {
                if (needed) {
                    throw new MetricException("missing request for " + resource + " in container " + c.getName()
                            + " of Pod " + pod.getMetadata().getName());
                }
                continue;
            }
            sum += milli(q);
        }
        return sum;
    }

    static long milli(Quantity q) {
        return Quantities.parse(q.toString()).movePointRight(3).setScale(0, java.math.RoundingMode.CEILING)
                .longValueExact();
    }

    static Instant parse(String time) {
        try {
            return time == null ? null : Instant.parse(time);
        } catch (RuntimeException e) {
            return null;
        }
    }
}

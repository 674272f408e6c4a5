package io.cybernetes.controller.podautoscaler;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricStatus;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricTarget;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricValueStatus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The horizontal pod autoscaler, as kube-controller-manager's: every sync period each
 * HorizontalPodAutoscaler reads its target's scale subresource (Deployments, ReplicaSets,
 * StatefulSets, ReplicationControllers, custom resources with one), works out from the
 * resource metrics API how many replicas each of its metrics asks for (resource and
 * container resource metrics, by utilization of requests or average value), takes the
 * most, tempers it by its behavior ({@link ScaleBehavior}) and its bounds, writes the
 * target's scale when that changes it, and reports what it saw in its status and its
 * conditions (AbleToScale, ScalingActive, ScalingLimited) and Events, in Kubernetes' words.
 */
public final class HorizontalController implements Reconciler {

    public static final String NAME = "horizontal-pod-autoscaler";

    /**
     * @param syncPeriod             how often each autoscaler is evaluated
     * @param tolerance              how far usage may stray from the target before replicas change
     * @param downscaleStabilization how long a higher recommendation holds scale-down back (without a behavior)
     * @param cpuInitializationPeriod how long after its start a pod's cpu counts only once it is ready
     * @param initialReadinessDelay  how long after its start a pod not ready is taken as still starting
     */
    public record Settings(Duration syncPeriod, double tolerance, Duration downscaleStabilization,
                           Duration cpuInitializationPeriod, Duration initialReadinessDelay) {
    }

    /** Where the pods' usage comes from: the resource metrics API. */
    public interface Metrics {
        List<ReplicaCalculator.Sample> pods(String namespace, String labelSelector);
    }

    private final ApiClient client;
    private final Indexer<HorizontalPodAutoscaler> autoscalers;
    private final Indexer<Pod> pods;
    private final ResourceRegistry registry;
    private final Metrics metrics;
    private final EventRecorder events;
    private final Clock clock;
    private final Settings settings;
    private final ReplicaCalculator calculator;
    private final ScaleBehavior behavior;

    public HorizontalController(ApiClient client, Indexer<HorizontalPodAutoscaler> autoscalers, Indexer<Pod> pods,
                                ResourceRegistry registry, Metrics metrics, EventRecorder events, Clock clock,
                                Settings settings) {
        this.client = client;
        this.autoscalers = autoscalers;
        this.pods = pods;
        this.registry = registry;
        this.metrics = metrics;
        this.events = events;
        this.clock = clock;
        this.settings = settings;
        this.calculator = new ReplicaCalculator(new ReplicaCalculator.Settings(settings.tolerance(),
                settings.cpuInitializationPeriod(), settings.initialReadinessDelay()));
        this.behavior = new ScaleBehavior(settings.downscaleStabilization());
    }

    /**
     * The metrics the resource metrics API serves, read through the client as JSON (the
     * window is a Go duration, {@code 15.000123s}, which fabric8's PodMetrics misreads).
     */
    public static Metrics metricsApi(ApiClient client, ResourceRegistry registry) {
        ResourceType podMetrics = registry.byPath("metrics.k8s.io", "v1beta1", "pods").orElseThrow();
        return (namespace, selector) -> {
            List<ReplicaCalculator.Sample> out = new ArrayList<>();
            for (var item : client.listJson(podMetrics, namespace, selector)) {
                Map<String, Map<String, Long>> containers = new java.util.LinkedHashMap<>();
                for (var c : item.path("containers")) {
                    Map<String, Long> usage = new java.util.HashMap<>();
                    c.path("usage").properties().forEach(e -> usage.put(e.getKey(),
                            ReplicaCalculator.milli(new Quantity(e.getValue().asString()))));
                    containers.put(c.path("name").asString(""), usage);
                }
                out.add(new ReplicaCalculator.Sample(item.path("metadata").path("name").asString(""),
                        ReplicaCalculator.parse(item.path("timestamp").asString(null)),
                        io.cybernetes.api.Times.parseGoDuration(item.path("window").asString(""))
                                .orElse(Duration.ZERO), containers));
            }
            return out;
        };
    }

    /** Autoscalers added or with a new spec are evaluated at once; the rest every sync period. */
    public ResourceEventHandler<HorizontalPodAutoscaler> handler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(HorizontalPodAutoscaler hpa) {
                controller.enqueue(io.cybernetes.client.Keys.of(hpa));
            }

            @Override
            public void onUpdate(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa) {
                if (!Objects.equals(old.getMetadata().getGeneration(), hpa.getMetadata().getGeneration())) {
                    controller.enqueue(io.cybernetes.client.Keys.of(hpa));
                }
            }

            @Override
            public void onDelete(HorizontalPodAutoscaler hpa, boolean finalStateUnknown) {
                controller.enqueue(io.cybernetes.client.Keys.of(hpa));
            }
        };
    }

    @Override
    public Result reconcile(Request request) {
        String key = request.namespace() + "/" + request.name();
        HorizontalPodAutoscaler cached = autoscalers.get(key).orElse(null);
        if (cached == null) {
            behavior.forget(key);
            return Result.DONE;
        }
        // the informer's object is shared: work on a copy
        HorizontalPodAutoscaler hpa = io.cybernetes.api.Json.convert(io.cybernetes.api.Json.toTree(cached),
                HorizontalPodAutoscaler.class);
        HorizontalPodAutoscalerStatus before = copy(cached.getStatus());
        HorizontalPodAutoscalerStatus status = hpa.getStatus() == null ? new HorizontalPodAutoscalerStatus()
                : hpa.getStatus();
        hpa.setStatus(status);
        evaluate(key, hpa, status);
        status.setObservedGeneration(hpa.getMetadata().getGeneration());
        if (!Objects.equals(before, status)) {
            try {
                client.updateStatus(hpa);
            } catch (ApiException e) {
                if (e.code() != 404 && e.code() != 409) {
                    throw e;
                }
                return Result.after(Duration.ofSeconds(1)); // changed meanwhile: look again soon
            }
        }
        return Result.after(settings.syncPeriod());
    }

    private void evaluate(String key, HorizontalPodAutoscaler hpa, HorizontalPodAutoscalerStatus status) {
        Instant now = clock.instant();
        CrossVersionObjectReference ref = hpa.getSpec().getScaleTargetRef();
        String namespace = hpa.getMetadata().getNamespace();
        Scale scale;
        ResourceType target;
        try {
            target = target(ref);
            scale = client.getScale(target, namespace, ref.getName());
        } catch (ApiException e) {
            events.warning(hpa, "FailedGetScale", e.getMessage());
            condition(status, "AbleToScale", "False", "FailedGetScale",
                    "the HPA controller was unable to get the target's current scale: " + e.getMessage(), now);
            return;
        }
        condition(status, "AbleToScale", "True", "SucceededGetScale",
                "the HPA controller was able to get the target's current scale", now);
        int current = scale.getSpec() == null || scale.getSpec().getReplicas() == null ? 0
                : scale.getSpec().getReplicas();
        status.setCurrentReplicas(current); // as Kubernetes reports it: the replicas the target's spec asks for
        // a new autoscaler (or a restarted controller) holds back scale-down for a window from now, as Kubernetes'
        behavior.recordInitial(key, current, now);
        int min = Objects.requireNonNullElse(hpa.getSpec().getMinReplicas(), 1);
        int max = hpa.getSpec().getMaxReplicas();
        int desired;
        String reason;
        if (current == 0 && min != 0) {
            desired = 0;
            reason = "";
            condition(status, "ScalingActive", "False", "ScalingDisabled",
                    "scaling is disabled since the replica count of the target is zero", now);
            status.setCurrentMetrics(null);
        } else if (current > max) {
            desired = max;
            reason = "Current number of replicas above Spec.MaxReplicas";
            status.setCurrentMetrics(null);
        } else if (current < min) {
            desired = min;
            reason = "Current number of replicas below Spec.MinReplicas";
            status.setCurrentMetrics(null);
        } else {
            Proposal p = fromMetrics(hpa, scale, current, status, now);
            if (p == null) {
                return; // no metric worked: nothing changes, the conditions say why
            }
            ScaleBehavior.Outcome o = hpa.getSpec().getBehavior() == null
                    ? behavior.normalize(key, current, p.replicas(), min, max, now)
                    : behavior.normalize(key, current, p.replicas(), min, max, hpa.getSpec().getBehavior(), now);
            condition(status, "AbleToScale", "True", o.ableReason(), o.ableMessage(), now);
            condition(status, "ScalingLimited", o.limited() ? "True" : "False", o.limitedReason(),
                    o.limitedMessage(), now);
            desired = o.replicas();
            reason = desired > current ? p.metric() + " above target" : "All metrics below target";
        }
        if (desired != current) {
            try {
                scale.getSpec().setReplicas(desired);
                client.updateScale(target, namespace, ref.getName(), scale);
            } catch (ApiException e) {
                condition(status, "AbleToScale", "False", "FailedUpdateScale",
                        "the HPA controller was unable to update the target scale: " + e.getMessage(), now);
                events.warning(hpa, "FailedRescale", "New size: " + desired + "; reason: " + reason + "; error: "
                        + e.getMessage());
                status.setDesiredReplicas(current);
                return;
            }
            behavior.rescaled(key, current, desired, hpa.getSpec().getBehavior(), now);
            condition(status, "AbleToScale", "True", "SucceededRescale",
                    "the HPA controller was able to update the target scale to " + desired, now);
            events.normal(hpa, "SuccessfulRescale", "New size: " + desired + "; reason: " + reason);
            status.setLastScaleTime(now.truncatedTo(ChronoUnit.SECONDS).toString());
        }
        status.setDesiredReplicas(desired);
    }

    /** The most replicas any metric asks for, and the metric that asks for them. */
    private record Proposal(int replicas, String metric) {
    }

    private Proposal fromMetrics(HorizontalPodAutoscaler hpa, Scale scale, int current,
                                 HorizontalPodAutoscalerStatus status, Instant now) {
        String selector = scale.getStatus() == null ? null : scale.getStatus().getSelector();
        List<MetricSpec> specs = Objects.requireNonNullElse(hpa.getSpec().getMetrics(), List.of());
        if (selector == null || selector.isEmpty()) {
            String message = "selector is required";
            events.warning(hpa, "SelectorRequired", message);
            condition(status, "ScalingActive", "False", "InvalidSelector",
                    "the HPA target's scale is missing a selector", now);
            return null;
        }
        LabelSelector labels;
        try {
            labels = LabelSelector.parse(selector);
        } catch (ApiException e) {
            events.warning(hpa, "InvalidSelector", "couldn't convert selector into a corresponding internal selector"
                    + " object: " + e.getMessage());
            condition(status, "ScalingActive", "False", "InvalidSelector", "couldn't convert selector into a"
                    + " corresponding internal selector object: " + e.getMessage(), now);
            return null;
        }
        String namespace = hpa.getMetadata().getNamespace();
        List<Pod> selected = pods.byIndex(io.cybernetes.client.Indexer.NAMESPACE_INDEX, namespace).stream()
                .filter(p -> labels.matches(Objects.requireNonNullElse(p.getMetadata().getLabels(), Map.of())))
                .toList();
        List<ReplicaCalculator.Sample> samples = null;
        String metricsError = null;
        List<MetricStatus> currentMetrics = new ArrayList<>();
        int best = -1;
        String bestMetric = "";
        List<String[]> failures = new ArrayList<>(); // reason and detail of each metric that could not be read
        for (MetricSpec spec : specs) {
            boolean container = "ContainerResource".equals(spec.getType());
            if (!container && !"Resource".equals(spec.getType())) {
                failures.add(failed(hpa, currentMetrics, "FailedGet" + spec.getType() + "Metric", "unable to get"
                        + " metric of type " + spec.getType() + ": no custom or external metrics API is served here"));
                continue;
            }
            String resource = container ? spec.getContainerResource().getName() : spec.getResource().getName();
            String containerName = container ? spec.getContainerResource().getContainer() : null;
            MetricTarget t = container ? spec.getContainerResource().getTarget() : spec.getResource().getTarget();
            boolean utilization = t.getAverageUtilization() != null;
            String metricName = resource + (container && utilization ? " container resource" : " resource")
                    + (utilization ? " utilization (percentage of request)" : "");
            try {
                if (samples == null && metricsError == null) {
                    try {
                        samples = metrics.pods(namespace, selector);
                    } catch (ApiException e) {
                        metricsError = e.getMessage();
                    }
                }
                if (metricsError != null) {
                    throw new ReplicaCalculator.MetricException("unable to get metrics for resource " + resource
                            + ": unable to fetch metrics from resource metrics API: " + metricsError);
                }
                long targetAverage = utilization ? 0 : ReplicaCalculator.milli(t.getAverageValue());
                ReplicaCalculator.Recommendation r = calculator.resource(current, resource, containerName,
                        t.getAverageUtilization(), targetAverage, selected, samples, now);
                MetricValueStatus value = new MetricValueStatus(r.utilization(), new Quantity(
                        io.cybernetes.api.Quantities.format(java.math.BigDecimal.valueOf(r.averageMilli(), 3))), null);
                currentMetrics.add(container
                        ? new MetricStatus(new io.fabric8.kubernetes.api.model.autoscaling.v2
                                .ContainerResourceMetricStatus(containerName, value, resource), null, null, null, null,
                                "ContainerResource")
                        : new MetricStatus(null, null, null, null, new io.fabric8.kubernetes.api.model.autoscaling.v2
                                .ResourceMetricStatus(value, resource), "Resource"));
                if (r.replicas() > best) {
                    best = r.replicas();
                    bestMetric = metricName;
                }
            } catch (ReplicaCalculator.MetricException e) {
                failures.add(failed(hpa, currentMetrics, container ? "FailedGetContainerResourceMetric"
                        : "FailedGetResourceMetric", "failed to get " + resource
                        + (utilization ? " utilization: " : " usage: ") + e.getMessage()));
            }
        }
        // one status a metric, in order ({"type": ""} for one that could not be read), as Kubernetes reports them
        status.setCurrentMetrics(currentMetrics.isEmpty() ? null : currentMetrics);
        // all metrics failed, or some did and the rest would scale down (they might want more): nothing
        // changes, the first failure says why, as Kubernetes' computeReplicasForMetrics decides
        if (!failures.isEmpty() && (failures.size() >= specs.size() || best < current)) {
            String[] first = failures.get(0);
            condition(status, "ScalingActive", "False", first[0], "the HPA was unable to compute the replica count: "
                    + first[1], now);
            events.warning(hpa, "FailedComputeMetricsReplicas", "invalid metrics (" + failures.size()
                    + " invalid out of " + specs.size() + "), first error is: " + first[1]);
            return null;
        }
        if (best < 0) {
            return null; // no metric at all (the API server defaults one): nothing to go by
        }
        condition(status, "ScalingActive", "True", "ValidMetricFound",
                "the HPA was able to successfully calculate a replica count from " + bestMetric, now);
        return new Proposal(best, bestMetric);
    }

    /** A metric that could not be read: its Event, its empty status ({@code {"type": ""}}), its reason and detail. */
    private String[] failed(HorizontalPodAutoscaler hpa, List<MetricStatus> statuses, String reason, String detail) {
        events.warning(hpa, reason, detail);
        statuses.add(new MetricStatus(null, null, null, null, null, ""));
        return new String[] {reason, detail};
    }

    /** The resource the reference names, by its group (any version of it) and kind. */
    private ResourceType target(CrossVersionObjectReference ref) {
        String apiVersion = Objects.requireNonNullElse(ref.getApiVersion(), "");
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        Optional<ResourceType> exact = registry.byKind(apiVersion, ref.getKind());
        return exact.or(() -> registry.all().stream().filter(t -> t.group().equals(group)
                && t.kind().equals(ref.getKind())).findFirst()).orElseThrow(() -> ApiException.of(404, "NotFound",
                "no matches for kind \"" + ref.getKind() + "\" in group \"" + group + "\""));
    }

    /** Sets a condition; its transition time moves only when its status does. */
    private static void condition(HorizontalPodAutoscalerStatus status, String type, String value, String reason,
                                  String message, Instant now) {
        List<HorizontalPodAutoscalerCondition> conditions = new ArrayList<>(Objects.requireNonNullElse(
                status.getConditions(), List.of()));
        HorizontalPodAutoscalerCondition existing = conditions.stream().filter(c -> type.equals(c.getType()))
                .findFirst().orElse(null);
        String at = now.truncatedTo(ChronoUnit.SECONDS).toString();
        if (existing == null) {
            HorizontalPodAutoscalerCondition c = new HorizontalPodAutoscalerCondition();
            c.setType(type);
            c.setStatus(value);
            c.setReason(reason);
            c.setMessage(message);
            c.setLastTransitionTime(at);
            conditions.add(c);
        } else {
            if (!value.equals(existing.getStatus())) {
                existing.setLastTransitionTime(at);
            }
            existing.setStatus(value);
            existing.setReason(reason);
            existing.setMessage(message);
        }
        List<String> order = List.of("AbleToScale", "ScalingActive", "ScalingLimited");
        conditions.sort(java.util.Comparator.comparingInt(c -> order.indexOf(c.getType())));
        status.setConditions(conditions);
    }

    private static HorizontalPodAutoscalerStatus copy(HorizontalPodAutoscalerStatus s) {
        return s == null ? null : io.cybernetes.api.Json.convert(io.cybernetes.api.Json.toTree(s),
                HorizontalPodAutoscalerStatus.class);
    }
}

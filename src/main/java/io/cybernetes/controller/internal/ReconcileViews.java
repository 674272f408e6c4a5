package io.cybernetes.controller.internal;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.client.ApiClient;
import io.cybernetes.controller.cronjob.CronJobController;
import io.cybernetes.controller.daemon.DaemonSetController;
import io.cybernetes.controller.podautoscaler.HorizontalController;
import io.cybernetes.controller.statefulset.StatefulSetController;
import io.cybernetes.controller.deployment.DeploymentController;
import io.cybernetes.controller.disruption.DisruptionController;
import io.cybernetes.controller.endpoint.EndpointsController;
import io.cybernetes.controller.endpointslice.EndpointSliceController;
import io.cybernetes.controller.endpointslicemirroring.EndpointSliceMirroringController;
import io.cybernetes.controller.job.JobController;
import io.cybernetes.controller.replicaset.ReplicaSetController;
import io.cybernetes.controller.replication.ReplicationManager;
import io.cybernetes.controller.service.LoadBalancerController;
import io.cybernetes.controller.ttlafterfinished.TtlAfterFinishedController;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the reconcile status shows for each kind a controller keeps: the view's kind and
 * resource name, the controllers that reconcile objects of the kind, what was asked
 * ({@code desired}) and what the controllers report ({@code observed}), and the Table's
 * columns. The endpoint adds what every view has: generation lag where the kind reports an
 * observed generation, conditions, and the controllers' last results.
 */
final class ReconcileViews {

    private ReconcileViews() {
    }

    /** A column of the Table: its header, type, and where its value is in the view. */
    record Column(String name, String type, String path) {
    }

    /** Fills a view's status from the object (as a tree) and the objects related to it (for a Service, its slices). */
    interface Describer {
        void describe(HasMetadata object, JsonNode tree, ObjectNode status, List<JsonNode> related);
    }

    /**
     * One kind's view. {@code related} fetches, per request, the objects a describer needs
     * besides the object itself, by the name of the object they belong to (null: none).
     */
    record View(String kind, String plural, String of, Class<? extends HasMetadata> type, List<String> controllers,
                boolean observesGeneration, List<Column> columns, Describer describer, Related related) {

        String notFound(String name) {
            return plural + "." + ResourceRegistry.STATUS + " \"" + name + "\" not found";
        }
    }

    /** Objects related to the viewed ones, by the name of the object they belong to. */
    interface Related {
        Map<String, List<JsonNode>> fetch(ApiClient client, String namespace);
    }

    private static final Column NAME = new Column("Name", "string", "metadata.name");
    private static final Column LAG = new Column("Generation Lag", "integer", "status.generationLag");
    private static final Column LAST_RESULT = new Column("Last Result", "string", "status.lastReconcile.result");
    private static final Column LAST_TIME = new Column("Last Reconcile", "string", "status.lastReconcile.time");

    private static List<Column> columns(Column... specific) {
        List<Column> out = new ArrayList<>();
        out.add(NAME);
        out.addAll(List.of(specific));
        out.add(LAST_RESULT);
        out.add(LAST_TIME);
        return List.copyOf(out);
    }

    private static final List<Column> REPLICA_COLUMNS = columns(
            new Column("Desired", "integer", "status.desiredReplicas"),
            new Column("Available", "integer", "status.observed.availableReplicas"), LAG);

    static final List<View> ALL = List.of(
            new View("DeploymentReconcile", "deploymentreconciles", "Deployments", Deployment.class,
                    List.of(DeploymentController.NAME), true, REPLICA_COLUMNS, ReconcileViews::deployment, null),
            new View("ReplicaSetReconcile", "replicasetreconciles", "ReplicaSets", ReplicaSet.class,
                    List.of(ReplicaSetController.NAME), true, REPLICA_COLUMNS, replicas(), null),
            new View("ReplicationControllerReconcile", "replicationcontrollerreconciles", "ReplicationControllers",
                    ReplicationController.class, List.of(ReplicationManager.NAME), true, REPLICA_COLUMNS, replicas(),
                    null),
            new View("DaemonSetReconcile", "daemonsetreconciles", "DaemonSets", DaemonSet.class,
                    List.of(DaemonSetController.NAME), true, columns(
                            new Column("Desired", "integer", "status.observed.desiredNumberScheduled"),
                            new Column("Available", "integer", "status.observed.numberAvailable"),
                            new Column("Up-to-date", "integer", "status.observed.updatedNumberScheduled"), LAG),
                    ReconcileViews::daemonSet, null),
            new View("StatefulSetReconcile", "statefulsetreconciles", "StatefulSets", StatefulSet.class,
                    List.of(StatefulSetController.NAME), true, columns(
                            new Column("Desired", "integer", "status.desiredReplicas"),
                            new Column("Ready", "integer", "status.observed.readyReplicas"),
                            new Column("Updated", "integer", "status.observed.updatedReplicas"), LAG),
                    ReconcileViews::statefulSet, null),
            new View("HorizontalPodAutoscalerReconcile", "horizontalpodautoscalerreconciles", "HorizontalPodAutoscalers",
                    HorizontalPodAutoscaler.class, List.of(HorizontalController.NAME), true, columns(
                            new Column("Target", "string", "status.desired.target"),
                            new Column("Desired", "integer", "status.observed.desiredReplicas"),
                            new Column("Current", "integer", "status.observed.currentReplicas"), LAG),
                    ReconcileViews::autoscaler, null),
            new View("JobReconcile", "jobreconciles", "Jobs", Job.class,
                    List.of(JobController.NAME, TtlAfterFinishedController.NAME), false, columns(
                            new Column("Completions", "integer", "status.desired.completions"),
                            new Column("Succeeded", "integer", "status.observed.succeeded"),
                            new Column("Active", "integer", "status.observed.active"),
                            new Column("Failed", "integer", "status.observed.failed")),
                    ReconcileViews::job, null),
            new View("CronJobReconcile", "cronjobreconciles", "CronJobs", CronJob.class,
                    List.of(CronJobController.NAME), false, columns(
                            new Column("Schedule", "string", "status.desired.schedule"),
                            new Column("Active", "integer", "status.observed.active"),
                            new Column("Last Schedule", "string", "status.observed.lastScheduleTime")),
                    ReconcileViews::cronJob, null),
            new View("ServiceReconcile", "servicereconciles", "Services", Service.class,
                    List.of(EndpointSliceController.NAME, EndpointsController.NAME,
                            EndpointSliceMirroringController.NAME, LoadBalancerController.NAME), false,
                    columns(new Column("Type", "string", "status.desired.type"),
                            new Column("Ready", "integer", "status.observed.readyEndpoints"),
                            new Column("Not Ready", "integer", "status.observed.notReadyEndpoints")),
                    ReconcileViews::service, ReconcileViews::slices),
            new View("PodDisruptionBudgetReconcile", "poddisruptionbudgetreconciles", "PodDisruptionBudgets",
                    PodDisruptionBudget.class, List.of(DisruptionController.NAME), true, columns(
                            new Column("Desired Healthy", "integer", "status.observed.desiredHealthy"),
                            new Column("Current Healthy", "integer", "status.observed.currentHealthy"),
                            new Column("Allowed Disruptions", "integer", "status.observed.disruptionsAllowed"), LAG),
                    ReconcileViews::budget, null));

    static Optional<View> byPlural(String plural) {
        return ALL.stream().filter(v -> v.plural().equals(plural)).findFirst();
    }

    /** Copies the fields of {@code from} that are there into {@code to}. */
    private static void copy(JsonNode from, ObjectNode to, String... fields) {
        for (String f : fields) {
            JsonNode v = from.get(f);
            if (v != null && !v.isNull()) {
                to.set(f, v);
            }
        }
    }

    private static Describer replicas() {
        return (o, tree, st, related) -> {
            st.put("desiredReplicas", tree.path("spec").path("replicas").asInt(1));
            copy(tree.path("status"), st.putObject("observed"), "replicas", "updatedReplicas", "readyReplicas",
                    "availableReplicas", "unavailableReplicas", "fullyLabeledReplicas");
        };
    }

    private static void deployment(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> related) {
        replicas().describe(o, tree, st, related);
        Map<String, String> annotations = o.getMetadata().getAnnotations();
        String revision = annotations == null ? null : annotations.get(DeploymentController.REVISION);
        if (revision != null) {
            st.put("revision", revision);
        }
    }

    private static void daemonSet(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> related) {
        copy(tree.path("spec"), st.putObject("desired"), "updateStrategy", "minReadySeconds");
        copy(tree.path("status"), st.putObject("observed"), "desiredNumberScheduled", "currentNumberScheduled",
                "numberReady", "numberAvailable", "numberUnavailable", "updatedNumberScheduled", "numberMisscheduled");
    }

    private static void statefulSet(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> related) {
        replicas().describe(o, tree, st, related);
        copy(tree.path("status"), (ObjectNode) st.path("observed"), "currentReplicas", "currentRevision",
                "updateRevision");
        copy(tree.path("spec"), st.putObject("desired"), "podManagementPolicy", "updateStrategy", "serviceName");
    }

    private static void autoscaler(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> related) {
        JsonNode spec = tree.path("spec");
        ObjectNode desired = st.putObject("desired");
        desired.put("target", spec.path("scaleTargetRef").path("kind").asString("") + "/"
                + spec.path("scaleTargetRef").path("name").asString(""));
        copy(spec, desired, "minReplicas", "maxReplicas", "metrics");
        copy(tree.path("status"), st.putObject("observed"), "currentReplicas", "desiredReplicas", "currentMetrics",
                "lastScaleTime");
    }

    private static void job(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> related) {
        JsonNode spec = tree.path("spec");
        JsonNode status = tree.path("status");
        copy(spec, st.putObject("desired"), "completions", "parallelism", "completionMode", "suspend", "backoffLimit",
                "backoffLimitPerIndex", "activeDeadlineSeconds", "ttlSecondsAfterFinished");
        copy(status, st.putObject("observed"), "active", "ready", "succeeded", "failed", "terminating",
                "completedIndexes", "failedIndexes", "startTime", "completionTime");
    }

    private static void cronJob(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> related) {
        copy(tree.path("spec"), st.putObject("desired"), "schedule", "timeZone", "suspend", "concurrencyPolicy",
                "startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit");
        ObjectNode observed = st.putObject("observed");
        JsonNode status = tree.path("status");
        observed.put("active", status.path("active").size());
        copy(status, observed, "lastScheduleTime", "lastSuccessfulTime");
    }

    private static void service(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> slices) {
        JsonNode spec = tree.path("spec");
        ObjectNode desired = st.putObject("desired");
        desired.put("type", spec.path("type").asString("ClusterIP"));
        copy(spec, desired, "selector", "clusterIP");
        desired.put("ports", spec.path("ports").size());
        ObjectNode observed = st.putObject("observed");
        Set<String> ready = new LinkedHashSet<>();
        Set<String> notReady = new LinkedHashSet<>();
        for (JsonNode slice : slices) {
            for (JsonNode e : slice.path("endpoints")) {
                String address = e.path("addresses").path(0).asString("");
                // a missing ready condition means ready, as the API documents it
                (e.path("conditions").path("ready").asBoolean(true) ? ready : notReady).add(address);
            }
        }
        notReady.removeAll(ready);
        observed.put("endpointSlices", slices.size());
        observed.put("readyEndpoints", ready.size());
        observed.put("notReadyEndpoints", notReady.size());
        ArrayNode ingress = observed.putArray("loadBalancerIngress");
        for (JsonNode i : tree.path("status").path("loadBalancer").path("ingress")) {
            ingress.add(i.path("ip").asString(i.path("hostname").asString("")));
        }
    }

    /** A namespace's EndpointSlices (every namespace's when null), by the Service they are labelled with. */
    private static Map<String, List<JsonNode>> slices(ApiClient client, String namespace) {
        Map<String, List<JsonNode>> out = new HashMap<>();
        for (EndpointSlice s : client.list(EndpointSlice.class, namespace, null).items()) {
            Map<String, String> labels = s.getMetadata().getLabels();
            String service = labels == null ? null : labels.get(EndpointSliceController.SERVICE_NAME);
            if (service != null) {
                out.computeIfAbsent(s.getMetadata().getNamespace() + "/" + service, k -> new ArrayList<>())
                        .add(Json.toTree(s));
            }
        }
        return out;
    }

    private static void budget(HasMetadata o, JsonNode tree, ObjectNode st, List<JsonNode> related) {
        copy(tree.path("spec"), st.putObject("desired"), "minAvailable", "maxUnavailable",
                "unhealthyPodEvictionPolicy");
        ObjectNode observed = st.putObject("observed");
        copy(tree.path("status"), observed, "expectedPods", "currentHealthy", "desiredHealthy", "disruptionsAllowed");
        observed.put("disruptedPods", tree.path("status").path("disruptedPods").size());
    }
}

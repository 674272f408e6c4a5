package io.cybernetes.controller.internal;

import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ComponentLifecycle;
import io.cybernetes.client.Samples;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.LeaderElector;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.ControllerManager;
import io.cybernetes.controller.ControllerProperties;
import io.cybernetes.controller.PodIndexes;
import io.cybernetes.controller.clusterroleaggregation.ClusterRoleAggregationController;
import io.cybernetes.controller.cronjob.CronJobController;
import io.cybernetes.controller.daemon.DaemonSetController;
import io.cybernetes.controller.podautoscaler.HorizontalController;
import io.cybernetes.controller.statefulset.StatefulSetController;
import io.cybernetes.controller.volume.PersistentVolumeController;
import io.cybernetes.controller.volume.VolumeProtectionController;
import io.cybernetes.controller.deployment.DeploymentController;
import io.cybernetes.controller.disruption.DisruptionController;
import io.cybernetes.controller.endpoint.EndpointsController;
import io.cybernetes.controller.endpointslice.EndpointSliceController;
import io.cybernetes.controller.endpointslicemirroring.EndpointSliceMirroringController;
import io.cybernetes.controller.garbagecollector.GarbageCollector;
import io.cybernetes.controller.job.JobController;
import io.cybernetes.controller.namespace.NamespaceController;
import io.cybernetes.controller.nodelifecycle.NodeLifecycleController;
import io.cybernetes.controller.podgc.PodGarbageCollector;
import io.cybernetes.controller.replicaset.ReplicaSetController;
import io.cybernetes.controller.replication.ReplicationManager;
import io.cybernetes.controller.service.LoadBalancerController;
import io.cybernetes.controller.serviceaccount.ServiceAccountsController;
import io.cybernetes.controller.ttlafterfinished.TtlAfterFinishedController;
import io.cybernetes.controller.certificates.CertificateSigningController;
import io.cybernetes.api.CertificateAuthority;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.cybernetes.api.PrometheusText;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The controller manager inside the application: an in-process {@link ApiClient} as
 * {@code system:kube-controller-manager} (authenticated, authorized and admitted like
 * any client), the controllers registered by name, started after the API server is up
 * and stopped before it goes down.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ControllerProperties.class)
class ControllerManagerConfiguration {

    static final String USER = "system:kube-controller-manager";

    @Bean
    ControllerManager controllerManager(LocalApi api, InProcessCredentials credentials, ControllerProperties props,
                                        ResourceRegistry registry, CertificateAuthority ca) {
        LoadBalancerController.checkPool(props.loadBalancerAddresses());
        ApiClient client = ApiClients.local(api, credentials.tokenFor(USER, List.of()),
                io.cybernetes.api.Version.userAgent("kube-controller-manager"));
        ControllerProperties.LeaderElection le = props.leaderElection();
        LeaderElector.Timing timing = le.enabled()
                ? new LeaderElector.Timing(le.leaseDuration(), le.renewDeadline(), le.retryPeriod()) : null;
        return new ControllerManager(client, registrations(props, registry, ca), props.resyncPeriod(), identity(), le.namespace(),
                le.name(), timing);
    }

    /** A candidate's identity as kube-controller-manager makes it: host name and a unique suffix. */
    private static String identity() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return host + "_" + UUID.randomUUID();
    }

    /** The controllers; the garbage collector and the namespace controller find the kinds in the served registry. */
    static Map<String, ControllerManager.Registration> registrations(ControllerProperties props,
                                                                     ResourceRegistry registry, CertificateAuthority clusterCa) {
        ControllerProperties.Workers w = props.workers();
        Map<String, ControllerManager.Registration> r = new LinkedHashMap<>();
        r.put(DeploymentController.NAME, (client, informers) -> {
            var deployments = informers.informerFor(Deployment.class);
            var sets = informers.informerFor(ReplicaSet.class);
            var pods = informers.informerFor(Pod.class);
            DeploymentController dc = new DeploymentController(client, deployments.indexer(), sets.indexer(),
                    pods.indexer(), new EventRecorder(client, "deployment-controller"), Clock.systemUTC());
            Controller c = new Controller(DeploymentController.NAME, dc, w.deployment());
            deployments.addEventHandler(dc.deploymentHandler(c));
            sets.addEventHandler(dc.replicaSetHandler(c));
            pods.addEventHandler(dc.podHandler(c));
            return c;
        });
        r.put(ReplicaSetController.NAME, (client, informers) -> {
            var sets = informers.informerFor(ReplicaSet.class);
            var pods = informers.informerFor(Pod.class);
            ReplicaSetController rc = new ReplicaSetController(client, sets.indexer(), pods.indexer(),
                    new EventRecorder(client, "replicaset-controller"));
            Controller c = new Controller(ReplicaSetController.NAME, rc, w.replicaSet());
            sets.addEventHandler(rc.replicaSetHandler(c));
            pods.addEventHandler(rc.podHandler(c));
            return c;
        });
        r.put(ReplicationManager.NAME, (client, informers) -> ReplicationManager.create(client, informers,
                w.replicationController()));
        r.put(DaemonSetController.NAME, (client, informers) -> {
            var sets = informers.informerFor(DaemonSet.class);
            var pods = informers.informerFor(Pod.class);
            var nodes = informers.informerFor(Node.class);
            var revisions = informers.informerFor(ControllerRevision.class);
            DaemonSetController dc = new DaemonSetController(client, sets.indexer(), pods.indexer(), nodes.indexer(),
                    revisions.indexer(), new EventRecorder(client, "daemonset-controller"), Clock.systemUTC());
            Controller c = new Controller(DaemonSetController.NAME, dc, w.daemonSet());
            sets.addEventHandler(dc.daemonSetHandler(c));
            pods.addEventHandler(dc.podHandler(c));
            nodes.addEventHandler(dc.nodeHandler(c));
            revisions.addEventHandler(dc.revisionHandler(c));
            return c;
        });
        r.put(StatefulSetController.NAME, (client, informers) -> {
            var sets = informers.informerFor(StatefulSet.class);
            var pods = informers.informerFor(Pod.class);
            var claims = informers.informerFor(PersistentVolumeClaim.class);
            var revisions = informers.informerFor(ControllerRevision.class);
            StatefulSetController sc = new StatefulSetController(client, sets.indexer(), pods.indexer(),
                    claims.indexer(), revisions.indexer(), new EventRecorder(client, "statefulset-controller"),
                    Clock.systemUTC());
            Controller c = new Controller(StatefulSetController.NAME, sc, w.statefulSet());
            sets.addEventHandler(sc.setHandler(c));
            pods.addEventHandler(sc.podHandler(c));
            revisions.addEventHandler(sc.revisionHandler(c));
            return c;
        });
        r.put(PersistentVolumeController.NAME, (client, informers) -> {
            var claims = informers.informerFor(PersistentVolumeClaim.class);
            var volumes = informers.informerFor(PersistentVolume.class);
            var classes = informers.informerFor(StorageClass.class);
            var pods = informers.informerFor(Pod.class);
            PersistentVolumeController pc = new PersistentVolumeController(client, claims.indexer(), volumes.indexer(),
                    classes.indexer(), pods.indexer(), new EventRecorder(client, "persistentvolume-controller"));
            Controller c = new Controller(PersistentVolumeController.NAME, pc, w.persistentVolume());
            claims.addEventHandler(pc.claimHandler(c));
            volumes.addEventHandler(pc.volumeHandler(c));
            classes.addEventHandler(pc.classHandler(c));
            pods.addEventHandler(pc.podHandler(c));
            return c;
        });
        r.put(VolumeProtectionController.NAME, (client, informers) -> {
            var claims = informers.informerFor(PersistentVolumeClaim.class);
            var volumes = informers.informerFor(PersistentVolume.class);
            var pods = informers.informerFor(Pod.class);
            VolumeProtectionController vp = new VolumeProtectionController(client, claims.indexer(), volumes.indexer(),
                    pods.indexer());
            Controller c = new Controller(VolumeProtectionController.NAME, vp, 1);
            claims.addEventHandler(vp.claimHandler(c));
            volumes.addEventHandler(vp.volumeHandler(c));
            pods.addEventHandler(vp.podHandler(c));
            return c;
        });
        r.put(GarbageCollector.NAME, (client, informers) -> {
            GarbageCollector gc = new GarbageCollector(client, registry);
            Controller c = new Controller(GarbageCollector.NAME, gc, w.garbageCollector());
            Map<String, ResourceType> watched = new LinkedHashMap<>();
            followKinds(informers, gc, c, watched);
            // kinds come and go with CRDs: the graph follows them, as the collector's discovery resync does
            informers.onStop(registry.onChange(() -> {
                if (!informers.stopped()) {
                    followKinds(informers, gc, c, watched);
                }
            }));
            return c;
        });
        r.put(NamespaceController.NAME, (client, informers) -> {
            var namespaces = informers.informerFor(Namespace.class);
            NamespaceController nc = new NamespaceController(client, namespaces.indexer(), registry,
                    new EventRecorder(client, "namespace-controller"));
            Controller c = new Controller(NamespaceController.NAME, nc, w.namespace());
            namespaces.addEventHandler(nc.handler(c));
            return c;
        });
        r.put(NodeLifecycleController.NAME, (client, informers) -> {
            var nodes = informers.informerFor(Node.class);
            var leases = informers.informerFor(Lease.class);
            var pods = informers.informerFor(Pod.class);
            podsByNode(pods.indexer());
            NodeLifecycleController nl = new NodeLifecycleController(client, nodes.indexer(), leases.indexer(),
                    pods.indexer(), new EventRecorder(client, "node-controller"), props.nodeMonitorGracePeriod(),
                    Clock.systemUTC());
            Controller c = new Controller(NodeLifecycleController.NAME, nl, w.nodeLifecycle());
            nodes.addEventHandler(nl.nodeHandler(c));
            leases.addEventHandler(nl.leaseHandler(c));
            return c;
        });
        r.put(ServiceAccountsController.NAME, (client, informers) -> {
            var namespaces = informers.informerFor(Namespace.class);
            var accounts = informers.informerFor(ServiceAccount.class);
            ServiceAccountsController sa = new ServiceAccountsController(client, namespaces.indexer(),
                    accounts.indexer());
            Controller c = new Controller(ServiceAccountsController.NAME, sa, 1);
            namespaces.addEventHandler(sa.namespaceHandler(c));
            accounts.addEventHandler(sa.serviceAccountHandler(c));
            return c;
        });
        r.put(ClusterRoleAggregationController.NAME, (client, informers) -> {
            var roles = informers.informerFor(ClusterRole.class);
            ClusterRoleAggregationController ca = new ClusterRoleAggregationController(client, roles.indexer());
            Controller c = new Controller(ClusterRoleAggregationController.NAME, ca, 1);
            roles.addEventHandler(ca.handler(c));
            return c;
        });
        r.put(PodGarbageCollector.NAME, (client, informers) -> {
            var pods = informers.informerFor(Pod.class);
            var nodes = informers.informerFor(Node.class);
            podsByNode(pods.indexer());
            PodGarbageCollector pg = new PodGarbageCollector(client, pods.indexer(), nodes.indexer(),
                    props.podGcQuarantine(), Clock.systemUTC());
            Controller c = new Controller(PodGarbageCollector.NAME, pg, w.podGc());
            pods.addEventHandler(pg.podHandler(c));
            nodes.addEventHandler(pg.nodeHandler(c));
            return c;
        });
        r.put(EndpointsController.NAME, (client, informers) -> {
            var services = informers.informerFor(Service.class);
            var pods = informers.informerFor(Pod.class);
            var endpoints = informers.informerFor(Endpoints.class);
            EndpointsController ec = new EndpointsController(client, services.indexer(), pods.indexer(),
                    endpoints.indexer());
            Controller c = new Controller(EndpointsController.NAME, ec, w.endpoints());
            services.addEventHandler(ec.serviceHandler(c));
            pods.addEventHandler(ec.podHandler(c));
            endpoints.addEventHandler(ec.endpointsHandler(c));
            return c;
        });
        r.put(EndpointSliceController.NAME, (client, informers) -> {
            var services = informers.informerFor(Service.class);
            var pods = informers.informerFor(Pod.class);
            var slices = informers.informerFor(EndpointSlice.class);
            var nodes = informers.informerFor(Node.class);
            EndpointSliceController sc = new EndpointSliceController(client, services.indexer(), pods.indexer(),
                    slices.indexer(), nodes.indexer());
            Controller c = new Controller(EndpointSliceController.NAME, sc, w.endpointSlice());
            services.addEventHandler(sc.serviceHandler(c));
            pods.addEventHandler(sc.podHandler(c));
            slices.addEventHandler(sc.sliceHandler(c));
            return c;
        });
        r.put(EndpointSliceMirroringController.NAME, (client, informers) -> {
            var services = informers.informerFor(Service.class);
            var endpoints = informers.informerFor(Endpoints.class);
            var slices = informers.informerFor(EndpointSlice.class);
            EndpointSliceMirroringController mc = new EndpointSliceMirroringController(client, services.indexer(),
                    endpoints.indexer(), slices.indexer(), new EventRecorder(client, "endpoint-slice-mirroring-controller"));
            Controller c = new Controller(EndpointSliceMirroringController.NAME, mc, w.endpointSliceMirroring());
            services.addEventHandler(mc.serviceHandler(c));
            endpoints.addEventHandler(mc.endpointsHandler(c));
            slices.addEventHandler(mc.sliceHandler(c));
            return c;
        });
        r.put(LoadBalancerController.NAME, (client, informers) -> {
            var services = informers.informerFor(Service.class);
            LoadBalancerController lb = new LoadBalancerController(client, services.indexer(),
                    props.loadBalancerAddresses(), new EventRecorder(client, "service-controller"));
            Controller c = new Controller(LoadBalancerController.NAME, lb, 1);
            services.addEventHandler(lb.serviceHandler(c));
            return c;
        });
        r.put(JobController.NAME, (client, informers) -> {
            var jobs = informers.informerFor(Job.class);
            var pods = informers.informerFor(Pod.class);
            JobController jc = new JobController(client, jobs.indexer(), pods.indexer(),
                    new EventRecorder(client, "job-controller"), Clock.systemUTC(), props.jobBackoff());
            Controller c = new Controller(JobController.NAME, jc, w.job());
            jobs.addEventHandler(jc.jobHandler(c));
            pods.addEventHandler(jc.podHandler(c));
            return c;
        });
        r.put(CronJobController.NAME, (client, informers) -> {
            var cronJobs = informers.informerFor(CronJob.class);
            var jobs = informers.informerFor(Job.class);
            CronJobController cc = new CronJobController(client, cronJobs.indexer(), jobs.indexer(),
                    new EventRecorder(client, "cronjob-controller"), Clock.systemUTC());
            Controller c = new Controller(CronJobController.NAME, cc, w.cronJob());
            cronJobs.addEventHandler(cc.cronJobHandler(c));
            jobs.addEventHandler(cc.jobHandler(c));
            return c;
        });
        r.put(DisruptionController.NAME, (client, informers) -> {
            var budgets = informers.informerFor(PodDisruptionBudget.class);
            var pods = informers.informerFor(Pod.class);
            var sets = informers.informerFor(ReplicaSet.class);
            var deployments = informers.informerFor(Deployment.class);
            var rcs = informers.informerFor(ReplicationController.class);
            var statefulSets = informers.informerFor(StatefulSet.class);
            DisruptionController dc = new DisruptionController(client, budgets.indexer(), pods.indexer(),
                    new DisruptionController.Workloads(sets.indexer(), deployments.indexer(), rcs.indexer(),
                            statefulSets.indexer()), new EventRecorder(client, "controllermanager"), Clock.systemUTC());
            Controller c = new Controller(DisruptionController.NAME, dc, w.disruption());
            budgets.addEventHandler(dc.budgetHandler(c));
            pods.addEventHandler(dc.podHandler(c));
            sets.addEventHandler(dc.scaleHandler(c));
            deployments.addEventHandler(dc.scaleHandler(c));
            rcs.addEventHandler(dc.scaleHandler(c));
            statefulSets.addEventHandler(dc.scaleHandler(c));
            return c;
        });
        r.put(HorizontalController.NAME, (client, informers) -> {
            var autoscalers = informers.informerFor(HorizontalPodAutoscaler.class);
            var pods = informers.informerFor(Pod.class);
            var hpa = props.horizontalPodAutoscaler();
            HorizontalController hc = new HorizontalController(client, autoscalers.indexer(), pods.indexer(), registry,
                    HorizontalController.metricsApi(client, registry), new EventRecorder(client, "horizontal-pod-autoscaler"),
                    Clock.systemUTC(), new HorizontalController.Settings(hpa.syncPeriod(), hpa.tolerance(),
                            hpa.downscaleStabilization(), hpa.cpuInitializationPeriod(), hpa.initialReadinessDelay()));
            Controller c = new Controller(HorizontalController.NAME, hc, w.horizontalPodAutoscaler());
            autoscalers.addEventHandler(hc.handler(c));
            return c;
        });
        r.put(TtlAfterFinishedController.NAME, (client, informers) -> {
            var jobs = informers.informerFor(Job.class);
            TtlAfterFinishedController ttl = new TtlAfterFinishedController(client, jobs.indexer(), Clock.systemUTC());
            Controller c = new Controller(TtlAfterFinishedController.NAME, ttl, 1);
            jobs.addEventHandler(ttl.handler(c));
            return c;
        });
        r.put(CertificateSigningController.NAME, (client, informers) -> {
            var csrs = informers.informerFor(CertificateSigningRequest.class);
            CertificateSigningController signer = new CertificateSigningController(client, csrs.indexer(), clusterCa,
                    props.clusterSigningDuration(), Clock.systemUTC());
            Controller c = new Controller(CertificateSigningController.NAME, signer, 1);
            csrs.addEventHandler(signer.handler(c));
            return c;
        });
        r.keySet().removeIf(name -> !props.runs(name));
        return r;
    }

    private static void podsByNode(io.cybernetes.client.Indexer<Pod> pods) {
        if (!pods.hasIndex(PodIndexes.BY_NODE_NAME)) {
            PodIndexes.addByNodeName(pods);
        }
    }

    /**
     * The garbage collector reads metadata only, so it watches every kind through metadata
     * informers: one for each kind served now, none for those no longer served.
     */
    private static void followKinds(SharedInformerFactory informers, GarbageCollector gc, Controller c,
                                    Map<String, ResourceType> watched) {
        synchronized (watched) {
            List<ResourceType> kinds = gc.kinds();
            // one no longer served at the version it is watched at (a CRD dropped that version) is watched afresh
            watched.values().removeIf(t -> {
                boolean gone = !kinds.contains(t);
                if (gone) {
                    informers.removeMetadataInformer(t);
                }
                return gone;
            });
            for (ResourceType t : kinds) {
                if (watched.putIfAbsent(t.keyPrefix(), t) == null) {
                    informers.metadataInformerFor(t).addEventHandler(gc.handler(c, t));
                }
            }
        }
    }

    /**
     * The controllers' work queues under client-go's names, at {@code /metrics}: depth, adds,
     * retries, the longest running reconcile and the time work took, by queue name.
     */
    @Bean
    PrometheusText.Source workqueueMetrics(ControllerManager manager) {
        return out -> {
            List<Controller.Status> all = manager.names().stream().map(manager::status).toList();
            out.family("workqueue_depth", "gauge", "[ALPHA] Current depth of workqueue");
            all.forEach(s -> out.sample("workqueue_depth", s.queue().depth(), "name", s.name()));
            out.family("workqueue_adds_total", "counter", "[ALPHA] Total number of adds handled by workqueue");
            all.forEach(s -> out.sample("workqueue_adds_total", s.queue().adds(), "name", s.name()));
            out.family("workqueue_retries_total", "counter", "[ALPHA] Total number of retries handled by workqueue");
            all.forEach(s -> out.sample("workqueue_retries_total", s.queue().retries(), "name", s.name()));
            out.family("workqueue_longest_running_processor_seconds", "gauge", "[ALPHA] How many seconds has the"
                    + " longest running processor for workqueue been running.");
            all.forEach(s -> out.sample("workqueue_longest_running_processor_seconds",
                    s.queue().longestRunning().toNanos() / 1e9, "name", s.name()));
            out.family("workqueue_work_duration_seconds", "histogram", "[ALPHA] How long in seconds processing an"
                    + " item from workqueue takes.");
            for (Controller.Status s : all) {
                long done = s.queue().completed();
                double sum = s.queue().meanWork().toNanos() / 1e9 * done;
                out.sample("workqueue_work_duration_seconds_bucket", done, "name", s.name(), "le", "+Inf");
                out.sample("workqueue_work_duration_seconds_sum", sum, "name", s.name());
                out.sample("workqueue_work_duration_seconds_count", done, "name", s.name());
            }
        };
    }

    /** The controllers' counters as Micrometer meters (at /actuator/prometheus), tagged by controller. */
    @Bean
    MeterBinder controllerMetrics(ControllerManager manager) {
        return registry -> {
            for (String name : manager.names()) {
                Tags tags = Tags.of("controller", name);
                Gauge.builder("cybernetes.controller.queue.depth", manager, m -> m.status(name).queue().depth())
                        .description("Keys waiting in the work queue").tags(tags).register(registry);
                Gauge.builder("cybernetes.controller.in.flight", manager, m -> m.status(name).queue().inFlight())
                        .description("Keys being reconciled").tags(tags).register(registry);
                Gauge.builder("cybernetes.controller.longest.running", manager,
                                m -> m.status(name).queue().longestRunning().toNanos() / 1e9)
                        .description("Seconds the longest running reconcile has taken so far").baseUnit("seconds")
                        .tags(tags).register(registry);
                Gauge.builder("cybernetes.controller.workers", manager, m -> m.status(name).workers())
                        .description("Workers running").tags(tags).register(registry);
                Gauge.builder("cybernetes.controller.leader", manager, m -> m.isLeader() ? 1 : 0)
                        .description("1 when this replica runs the controller").tags(tags).register(registry);
                Gauge.builder("cybernetes.controller.reconcile.p50", manager, m -> m.status(name).p50().toNanos() / 1e9)
                        .description("Median reconcile time of the latest 1,024").baseUnit("seconds").tags(tags)
                        .register(registry);
                Gauge.builder("cybernetes.controller.reconcile.p99", manager, m -> m.status(name).p99().toNanos() / 1e9)
                        .description("99th percentile reconcile time of the latest 1,024").baseUnit("seconds").tags(tags)
                        .register(registry);
                FunctionCounter.builder("cybernetes.controller.reconciles", manager, m -> m.status(name).reconciles())
                        .description("Reconciles done").tags(tags).register(registry);
                FunctionCounter.builder("cybernetes.controller.errors", manager, m -> m.status(name).errors())
                        .description("Reconciles that failed").tags(tags).register(registry);
                FunctionCounter.builder("cybernetes.controller.queue.adds", manager, m -> m.status(name).queue().adds())
                        .description("Keys added to the work queue").tags(tags).register(registry);
                FunctionCounter.builder("cybernetes.controller.queue.retries", manager,
                                m -> m.status(name).queue().retries())
                        .description("Keys added again with backoff").tags(tags).register(registry);
            }
        };
    }

    /**
     * Starts the manager once the API server serves (a phase after the web server's) and
     * stops it first: its informers end before the watch threads do.
     */
    @Bean
    SmartLifecycle controllerSamplesLifecycle(@Qualifier("controllerSamples") Samples samples) {
        return new ComponentLifecycle(true, samples::start, samples::close, Integer.MAX_VALUE);
    }

    /** Every 5 s for 15 minutes: reconciles done and queue depth over all controllers, for the dashboard's charts. */
    @Bean
    Samples controllerSamples(ControllerManager manager) {
        return new Samples("controllers", List.of("reconciles", "queueDepth"), Duration.ofSeconds(5),
                Duration.ofMinutes(15), () -> {
                    double reconciles = 0;
                    double depth = 0;
                    for (ControllerManager.ControllerState s : manager.states()) {
                        reconciles += s.status().reconciles();
                        depth += s.status().queue().depth();
                    }
                    return new double[] {reconciles, depth};
                }, Clock.systemUTC());
    }

    @Bean
    SmartLifecycle controllerManagerLifecycle(ControllerManager manager, ControllerProperties props) {
        return new ComponentLifecycle(props.enabled(), manager::start, manager::stop, Integer.MAX_VALUE);
    }
}

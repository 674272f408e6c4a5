package io.cybernetes.scheduler;

import io.cybernetes.api.PrometheusText;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.LeaderElector;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.scheduler.framework.ClusterEvent;
import io.cybernetes.scheduler.framework.ClusterVolumes;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.scheduler.framework.Framework;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Runs the scheduler behind leader election, as kube-scheduler: the leader builds fresh
 * informers (pods, nodes, and the disruption budgets preemption weighs), a queue and a
 * cache, and schedules one pod after another, binding on a pool of binder threads; losing the lease stops it all. Pending pods for the
 * default scheduler go to the queue; bound pods to the cache; nodes, pods placed or
 * deleted, claims, volumes and classes are told to the queue as cluster events, which
 * bring back the unschedulable pods they may help.
 */
public final class SchedulerManager {

    private static final Logger log = LoggerFactory.getLogger(SchedulerManager.class);
    public static final String SCHEDULER_NAME = "default-scheduler";
    /** Threads binding pods: bindings wait on the store's commits, so that many overlap them. */
    static final int BINDERS = 32;

    private final ApiClient client;
    private final Supplier<Framework> frameworks;
    private final LeaderElector elector;
    private final Clock clock;
    private volatile Term term;
    private volatile Scheduler lastScheduler;

    private record Term(SharedInformerFactory informers, SchedulingQueue queue, Scheduler scheduler,
                        ExecutorService binders, Thread loop) {
    }

    public SchedulerManager(ApiClient client, Supplier<Framework> frameworks, String identity,
                            String electionNamespace, String electionName, LeaderElector.Timing timing, Clock clock) {
        this.client = client;
        this.frameworks = frameworks;
        this.clock = clock;
        this.elector = new LeaderElector(client, electionNamespace, electionName, identity, timing,
                new LeaderElector.Callbacks() {
                    @Override
                    public void startedLeading() {
                        startTerm();
                    }

                    @Override
                    public void stoppedLeading() {
                        stopTerm();
                    }
                });
    }

    public void start() {
        synchronized (lifecycle) {
            elector.start();
        }
    }

    /** Stops scheduling; under a lock of its own, as the elector's thread takes this object's to stop the term. */
    public void stop() {
        synchronized (lifecycle) {
            elector.stop();
            stopTerm();
        }
    }

    /** Orders start and stop. */
    private final Object lifecycle = new Object();

    public boolean isLeader() {
        return term != null;
    }

    /** The scheduler's own client (as {@code system:kube-scheduler}). */
    public ApiClient client() {
        return client;
    }

    /** The last decision about a pod (namespace/name), from the scheduler of this or the last term. */
    public Optional<io.cybernetes.scheduler.framework.Framework.Decision> lastDecision(String podKey) {
        Scheduler s = lastScheduler;
        return s == null ? Optional.empty() : s.lastDecision(podKey);
    }

    /** The depths of the scheduling queue, while this replica schedules. */
    public Optional<SchedulingQueue.Depths> queueDepths() {
        Term t = term;
        return t == null ? Optional.empty() : Optional.of(t.queue().depths());
    }

    /** kube-scheduler's metrics of this replica's scheduler: pending pods by queue, attempts and their times. */
    public void collect(PrometheusText out) {
        out.family("scheduler_pending_pods", "gauge", "[STABLE] Number of pending pods, by the queue type."
                + " 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ;"
                + " 'unschedulable' means number of pods in unschedulablePods.");
        SchedulingQueue.Depths d = queueDepths().orElse(new SchedulingQueue.Depths(0, 0, 0));
        out.sample("scheduler_pending_pods", d.active(), "queue", "active");
        out.sample("scheduler_pending_pods", d.backoff(), "queue", "backoff");
        out.sample("scheduler_pending_pods", d.unschedulable(), "queue", "unschedulable");
        Scheduler s = lastScheduler;
        if (s != null) {
            s.collect(out);
        }
    }

    /** What the scheduler of this or the last term has done (empty before this replica first led). */
    public Optional<Scheduler.Stats> stats() {
        Scheduler s = lastScheduler;
        return s == null ? Optional.empty() : Optional.of(s.stats());
    }

    static boolean pending(Pod p) {
        return p.getSpec() != null && (p.getSpec().getNodeName() == null || p.getSpec().getNodeName().isEmpty())
                && p.getMetadata().getDeletionTimestamp() == null
                && SCHEDULER_NAME.equals(Objects.requireNonNullElse(p.getSpec().getSchedulerName(), SCHEDULER_NAME))
                && !terminal(p);
    }

    private static boolean terminal(Pod p) {
        return "Succeeded".equals(phase(p)) || "Failed".equals(phase(p));
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }

    private synchronized void startTerm() {
        if (term != null) {
            return;
        }
        SharedInformerFactory informers = new SharedInformerFactory(client, Duration.ofMinutes(5));
        Framework framework = frameworks.get();
        SchedulingQueue queue = new SchedulingQueue(clock, framework.queueSort(), new SchedulingQueue.Hints() {
            @Override
            public boolean mayHelp(Pod pod, java.util.Set<String> rejectedBy, ClusterEvent event, Object before,
                                   Object after) {
                return framework.mayHelp(pod, rejectedBy, event, before, after);
            }

            @Override
            public boolean anyInterestIn(ClusterEvent event) {
                return framework.anyInterestIn(event);
            }
        });
        SchedulerCache cache = new SchedulerCache(clock);
        ExecutorService binders = Executors.newFixedThreadPool(BINDERS, r -> {
            Thread t = new Thread(r, "scheduler-binder");
            t.setDaemon(true);
            return t;
        });
        Scheduler scheduler = new Scheduler(client, framework, queue, cache,
                new EventRecorder(client, SCHEDULER_NAME), binders, clock);
        informers.informerFor(Pod.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                onUpdate(null, p);
            }

            @Override
            public void onUpdate(Pod old, Pod p) {
                if (pending(p)) {
                    cache.pendingPod(p);
                    queue.update(p);
                    return;
                }
                queue.delete(p);
                cache.putPod(p);
                if (!assigned(p)) {
                    return;
                }
                if (terminal(p)) {
                    // it has finished: the cache no longer counts it, as if it were deleted
                    if (old != null && assigned(old) && !terminal(old)) {
                        queue.clusterChanged(ClusterEvent.ASSIGNED_POD_DELETE, old, null);
                    }
                    return;
                }
                if (old == null || !assigned(old)) {
                    queue.clusterChanged(ClusterEvent.ASSIGNED_POD_ADD, null, p);
                } else if (!Objects.equals(old.getMetadata().getLabels(), p.getMetadata().getLabels())) {
                    queue.clusterChanged(ClusterEvent.ASSIGNED_POD_UPDATE, old, p);
                }
            }

            @Override
            public void onDelete(Pod p, boolean finalStateUnknown) {
                queue.delete(p);
                cache.removePod(p);
                scheduler.forgetDecision(io.cybernetes.client.Keys.of(p));
                // a placed pod, or one nominated to a node (it held room there), leaves room behind
                if (assigned(p) || p.getStatus() != null && p.getStatus().getNominatedNodeName() != null) {
                    queue.clusterChanged(ClusterEvent.ASSIGNED_POD_DELETE, p, null);
                }
            }
        });
        informers.informerFor(Node.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node n) {
                cache.putNode(n);
                queue.clusterChanged(ClusterEvent.NODE_ADD, null, n);
            }

            @Override
            public void onUpdate(Node old, Node n) {
                cache.putNode(n);
                if (!Objects.equals(old.getSpec(), n.getSpec()) || !Objects.equals(
                        old.getMetadata().getLabels(), n.getMetadata().getLabels())
                        || !Objects.equals(allocatable(old), allocatable(n))) {
                    queue.clusterChanged(ClusterEvent.NODE_UPDATE, old, n);
                }
            }

            @Override
            public void onDelete(Node n, boolean finalStateUnknown) {
                cache.removeNode(n.getMetadata().getName());
                queue.clusterChanged(ClusterEvent.NODE_DELETE, n, null);
            }
        });
        var budgets = informers.informerFor(PodDisruptionBudget.class);
        framework.disruptionBudgets(() -> budgets.indexer().list());
        var claims = informers.informerFor(PersistentVolumeClaim.class);
        var volumes = informers.informerFor(PersistentVolume.class);
        var classes = informers.informerFor(StorageClass.class);
        framework.volumes(new ClusterVolumes() {
            @Override
            public Optional<PersistentVolumeClaim> claim(String namespace, String name) {
                return claims.indexer().get(namespace + "/" + name);
            }

            @Override
            public Optional<PersistentVolume> volume(String name) {
                return volumes.indexer().get(name);
            }

            @Override
            public Optional<String> bindingMode(String storageClass) {
                return classes.indexer().get(storageClass).map(c -> Objects.requireNonNullElse(
                        c.getVolumeBindingMode(), "Immediate"));
            }
        });
        // a claim bound, or a volume or class that comes, may let a pod waiting for it be placed
        claims.addEventHandler(clusterChange(queue, ClusterEvent.PVC_CHANGE));
        volumes.addEventHandler(clusterChange(queue, ClusterEvent.PV_CHANGE));
        classes.addEventHandler(clusterChange(queue, ClusterEvent.STORAGE_CLASS_CHANGE));
        informers.start();
        Thread loop = new Thread(() -> run(informers, queue, cache, scheduler), "scheduler");
        loop.setDaemon(true);
        Term t = new Term(informers, queue, scheduler, binders, loop);
        term = t;
        lastScheduler = scheduler;
        loop.start();
    }

    private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> ResourceEventHandler<T> clusterChange(
            SchedulingQueue queue, ClusterEvent event) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                queue.clusterChanged(event, null, obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                queue.clusterChanged(event, oldObj, newObj);
            }
        };
    }

    /** Whether the pod is placed on a node. */
    static boolean assigned(Pod p) {
        return p.getSpec() != null && p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty();
    }

    private void run(SharedInformerFactory informers, SchedulingQueue queue, SchedulerCache cache,
                     Scheduler scheduler) {
        try {
            while (!informers.waitForSync(Duration.ofSeconds(10))) {
                log.info("scheduler: waiting for the informers to sync");
            }
            log.info("scheduler: scheduling");
            long lastHousekeeping = System.nanoTime();
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    scheduler.scheduleOne(1000);
                } catch (RuntimeException e) {
                    log.warn("scheduler: a scheduling cycle failed: {}", e.toString());
                }
                if (System.nanoTime() - lastHousekeeping > 1_000_000_000L) {
                    cache.expire();
                    queue.flushUnschedulable();
                    lastHousekeeping = System.nanoTime();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Object allocatable(Node n) {
        return n.getStatus() == null ? null : n.getStatus().getAllocatable();
    }

    private synchronized void stopTerm() {
        Term t = term;
        if (t == null) {
            return;
        }
        term = null;
        t.loop().interrupt();
        t.queue().close();
        t.informers().stop();
        t.binders().shutdownNow();
        t.scheduler().close();
        try {
            // bindings under way finish before a successor may schedule
            if (!t.binders().awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS)) {
                log.warn("scheduler: bindings still under way after 5s");
            }
            t.loop().join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

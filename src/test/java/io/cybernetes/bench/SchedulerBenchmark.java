package io.cybernetes.bench;

import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.SharedInformer;
import io.cybernetes.scheduler.Scheduler;
import io.cybernetes.scheduler.SchedulerManager;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * The scheduler at scale, as Kubernetes' scheduler_perf measures it
 * ({@code -Pbench -Dbench.only=scheduler}): {@code bench.schedNodes} (5,000) nodes created
 * through the API (no kubelets: pods are only bound), then per workload its initial pods
 * (waited for until bound) and its measured pods created by 16 clients while the bindings
 * are counted from a watch every second — throughput as the average and the percentiles of
 * those per-second counts. Workloads: SchedulingBasic (1,000 + 10,000 pods), NodeAffinity
 * (pods require a label half the nodes have; 1,000 + 5,000), PodTopologySpread (pods spread
 * over 3 zones with maxSkew 1; 1,000 + 5,000). The scheduler runs in the server as it always
 * does: informers, queue, cache, framework, binding through {@code pods/binding}.
 */
final class SchedulerBenchmark {

    /** How many nodes each warm-up round preempts on (all of them if there are fewer). */
    private static final int WARM_NODES = 20;

    private final ApiClient admin;
    private final SchedulerManager scheduler;
    private final ExecutorService clients = Executors.newFixedThreadPool(16);

    SchedulerBenchmark(ConfigurableApplicationContext ctx, String adminToken) {
        this.admin = ApiClients.local(ctx.getBean(LocalApi.class), adminToken);
        this.scheduler = ctx.getBean(SchedulerManager.class);
    }

    void run() throws Exception {
        int nodes = Integer.getInteger("bench.schedNodes", 5000);
        long t = System.nanoTime();
        parallel(nodes, this::createNode);
        System.out.printf(Locale.ROOT, "%nscheduler: %,d nodes created through the API in %.1f s (cpu 4, memory 32Gi,"
                + " 110 pods each; zones zone-0..2; half labelled bench-affinity=yes)%n", nodes, secs(t));
        while (scheduler.stats().isEmpty()) {
            Thread.sleep(100);
        }
        for (String[] pc : new String[][] {{"bench-low", "1"}, {"bench-high", "10"}}) {
            admin.create(new io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder().withNewMetadata()
                    .withName(pc[0]).endMetadata().withValue(Integer.parseInt(pc[1])).build());
        }
        warmUntilCompiled(nodes);
        workload("SchedulingBasic", "sched-basic", 1000, Integer.getInteger("bench.schedPods", 10_000),
                i -> pod("basic").build());
        workload("NodeAffinity", "sched-affinity", 1000, 5000, i -> pod("affinity").editSpec()
                .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchExpression().withKey("bench-affinity").withOperator("In")
                .withValues("yes").endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity().endSpec().build());
        workload("PodTopologySpread", "sched-spread", 1000, 5000, i -> pod("spread").editSpec()
                .addNewTopologySpreadConstraint().withMaxSkew(1).withTopologyKey("topology.kubernetes.io/zone")
                .withWhenUnsatisfiable("DoNotSchedule").withNewLabelSelector().addToMatchLabels("app", "spread")
                .endLabelSelector().endTopologySpreadConstraint().endSpec().build());
        // scheduler_perf's SchedulingPodAffinity: every pod requires a pod of its colour in its zone
        // (the two namespaces both count), the first one placing itself
        IntFunction<Pod> blue = i -> pod("affinity").editMetadata().addToLabels("color", "blue").endMetadata()
                .editSpec().withNewAffinity().withNewPodAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withNewLabelSelector().addToMatchLabels("color", "blue").endLabelSelector()
                .withTopologyKey("topology.kubernetes.io/zone").withNamespaces("sched-podaffinity-0",
                        "sched-podaffinity-1").endRequiredDuringSchedulingIgnoredDuringExecution().endPodAffinity()
                .endAffinity().endSpec().build();
        workload(new Workload("SchedulingPodAffinity", "sched-podaffinity", 5000, blue, 5000, blue, null, 35));
        // PreemptionAsync: nodes 3.6 of 4 cores full with low-priority pods, a high-priority pod that must
        // preempt three of them every 200 ms, and the measured pods (100m) placed meanwhile
        workload(new Workload("SchedulingPreemption", "sched-preemption", 4 * nodes,
                i -> priority(pod("low"), "bench-low", "900m"), 5000, i -> pod("preemption").build(),
                new Churn(200, () -> priority(pod("preemptor"), "bench-high", "3"), null), 570));
        // Unschedulable: a high-priority pod no node can take (9 cores) every 200 ms
        workload(new Workload("Unschedulable", "sched-unschedulable", 100, i -> pod("unsched").build(), 10_000,
                i -> pod("unsched").build(), new Churn(200, () -> priority(pod("large"), "bench-high", "9"), null), 590));
        // SchedulingWithMixedChurn: every second a node, an unschedulable pod and a Service made and
        // the previous ones deleted
        workload(new Workload("SchedulingWithMixedChurn", "sched-churn", 0, null, 10_000, i -> pod("churn").build(),
                new Churn(1000, () -> priority(pod("large"), "bench-high", "9"), this::churnNodeAndService), 710));
        clients.shutdown();
    }

    /** What a workload runs beside its measured pods: a pod every {@code millis}, and more. */
    private record Churn(long millis, java.util.function.Supplier<Pod> pod, java.util.function.IntConsumer more) {
    }

    /**
     * One of scheduler_perf's workloads: initial pods (waited for until bound, in
     * {@code ns}-0), measured pods (in {@code ns}-1) and churn while they are placed;
     * {@code threshold} is scheduler_perf's published minimum pods/s at 5,000 nodes.
     */
    private record Workload(String title, String ns, int initial, IntFunction<Pod> initialPod, int measured,
                            IntFunction<Pod> measuredPod, Churn churn, int threshold) {
    }

    private static Pod priority(PodBuilder pod, String priorityClass, String cpu) {
        return pod.editSpec().withPriorityClassName(priorityClass).editFirstContainer().editResources()
                .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec().build();
    }

    /** Recreates churn node {@code n % 2} and Service {@code n % 2}: the one made a second ago goes. */
    private void churnNodeAndService(int n) {
        String node = "sched-churn-node-" + (n % 2);
        String service = "churn-" + (n % 2);
        try {
            admin.delete(Node.class, null, node, null, 0L);
        } catch (RuntimeException absent) {
            // the first time round
        }
        try {
            admin.delete(io.fabric8.kubernetes.api.model.Service.class, "sched-churn-1", service, null, 0L);
        } catch (RuntimeException absent) {
            // the first time round
        }
        createNode(node, 0);
        admin.create(new io.fabric8.kubernetes.api.model.ServiceBuilder().withNewMetadata().withName(service)
                .withNamespace("sched-churn-1").endMetadata().withNewSpec().addNewPort().withPort(80).endPort()
                .addToSelector("app", "churn").endSpec().build());
    }

    private void createNode(int i) {
        createNode(String.format(Locale.ROOT, "sched-node-%04d", i), i);
    }

    private void createNode(String name, int i) {
        Map<String, Quantity> capacity = Map.of("cpu", new Quantity("4"), "memory", new Quantity("32Gi"), "pods",
                new Quantity("110"));
        Node created = admin.create(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", name)
                .addToLabels("topology.kubernetes.io/zone", "zone-" + (i % 3))
                .addToLabels("bench-affinity", i % 2 == 0 ? "yes" : "no").endMetadata().withNewSpec().endSpec()
                .build());
        created.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder().withCapacity(capacity)
                .withAllocatable(capacity).addNewCondition().withType("Ready").withStatus("True")
                .withReason("KubeletReady").endCondition().build());
        admin.updateStatus(created);
    }

    private static PodBuilder pod(String app) {
        return new PodBuilder().withNewMetadata().addToLabels("app", app).endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("registry.k8s.io/pause:3.10").withNewResources()
                .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("500Mi"))
                .endResources().endContainer().endSpec();
    }

    private void workload(String title, String ns, int initial, int measured, IntFunction<Pod> podNamed)
            throws Exception {
        workload(new Workload(title, ns, initial, podNamed, measured, podNamed, null, 0));
    }

    private void workload(Workload w) throws Exception {
        String only = System.getProperty("bench.schedWorkloads", "");
        if (!only.isEmpty() && !Arrays.asList(only.split(",")).contains(w.title())) {
            return;
        }
        String title = w.title();
        int initial = w.initial();
        int measured = w.measured();
        String initNs = w.ns() + "-0";
        String ns = w.ns() + "-1";
        String churnNs = w.ns() + "-churn";
        for (String n : List.of(initNs, ns, churnNs)) {
            admin.create(new NamespaceBuilder().withNewMetadata().withName(n).endMetadata().build());
        }
        Set<String> initialBound = ConcurrentHashMap.newKeySet();
        SharedInformer<Pod> initialPods = countBound(initNs, initialBound);
        Set<String> bound = ConcurrentHashMap.newKeySet();
        SharedInformer<Pod> pods = countBound(ns, bound);
        long tInit = System.nanoTime();
        parallel(initial, i -> create(initNs, w.initialPod().apply(i), "init-" + i));
        while (initialBound.size() < initial) {
            Thread.sleep(50);
        }
        double initSeconds = secs(tInit);
        initialPods.stop();
        java.util.concurrent.ScheduledExecutorService churning = Executors.newSingleThreadScheduledExecutor();
        int[] churned = new int[1];
        if (w.churn() != null) {
            churning.scheduleAtFixedRate(() -> {
                try {
                    create(churnNs, w.churn().pod().get(), "churn-" + churned[0]);
                    if (w.churn().more() != null) {
                        w.churn().more().accept(churned[0]);
                    }
                } catch (RuntimeException e) {
                    System.out.println("  churn: " + e.getMessage());
                }
                churned[0]++;
            }, 0, w.churn().millis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        Scheduler.Stats before = scheduler.stats().orElseThrow();
        Duration cpu0 = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        long t0 = System.nanoTime();
        long[] createdAt = new long[1];
        List<Long> perSecond = new ArrayList<>();
        ExecutorService creators = Executors.newFixedThreadPool(16);
        Future<?> creating = Executors.newSingleThreadExecutor().submit(() -> {
            parallel(creators, measured, i -> create(ns, w.measuredPod().apply(i), "pod-" + i));
            createdAt[0] = System.nanoTime();
            return null;
        });
        int last = bound.size();
        long nextSample = t0 + 1_000_000_000L;
        while (bound.size() < measured) {
            Thread.sleep(10);
            if (System.nanoTime() >= nextSample) {
                int now = bound.size();
                perSecond.add((long) (now - last));
                last = now;
                nextSample += 1_000_000_000L;
            }
        }
        double elapsed = secs(t0);
        Duration cpu = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).minus(cpu0);
        creating.get();
        creators.shutdown();
        churning.shutdownNow();
        churning.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        Scheduler.Stats after = scheduler.stats().orElseThrow();
        pods.stop();
        long[] sorted = perSecond.stream().mapToLong(Long::longValue).sorted().toArray();
        long attempts = after.attempts() - before.attempts();
        System.out.printf(Locale.ROOT, "  %-18s %,d initial (placed in %.1f s) + %,d measured pods on %,d nodes: %.1f s,"
                        + " %,.0f pods/s (per second: p50 %,d, p90 %,d, p99 %,d)%s%n", title, initial, initSeconds,
                measured, Integer.getInteger("bench.schedNodes", 5000), elapsed, measured / elapsed, pct(sorted, 0.5),
                pct(sorted, 0.9), pct(sorted, 0.99), w.threshold() == 0 ? ""
                        : String.format(Locale.ROOT, "; scheduler_perf's threshold %d: %s", w.threshold(),
                        measured / elapsed >= w.threshold() ? "met" : "NOT met"));
        System.out.printf(Locale.ROOT, "  %-18s cycle %.2f ms avg over %,d attempts (%,d unschedulable), binding %.2f"
                        + " ms avg, at most %d bindings under way%n", "", (after.cycleNanos() - before.cycleNanos())
                        / 1e6 / Math.max(1, attempts), attempts, after.unschedulable() - before.unschedulable(),
                (after.bindNanos() - before.bindNanos()) / 1e6 / Math.max(1, after.bound() - before.bound()),
                after.maxBindsInFlight());
        System.out.printf(Locale.ROOT, "  %-18s pods created at %,.0f/s (all in %.1f s); the server used %.2f of %d"
                        + " cores%n", "", measured / ((createdAt[0] - t0) / 1e9), (createdAt[0] - t0) / 1e9,
                cpu.toMillis() / 1000.0 / elapsed, Runtime.getRuntime().availableProcessors());
        parallel(initial + measured, i -> admin.delete(Pod.class, i < initial ? initNs : ns,
                i < initial ? "init-" + i : "pod-" + (i - initial), null, 0L));
        // the churn's pods too: left pending (no namespace controller runs here), they would be
        // retried by the scheduler through every later workload, ahead of its pods
        parallel(churned[0], i -> {
            try {
                admin.delete(Pod.class, churnNs, "churn-" + i, null, 0L);
            } catch (RuntimeException gone) {
                // preempted or never created
            }
        });
        // and the namespaces (preempted pods, which wait for a kubelet, stay in theirs)
        for (String n : List.of(initNs, ns, churnNs)) {
            admin.delete(io.fabric8.kubernetes.api.model.Namespace.class, null, n, null, null);
        }
    }

    /**
     * Pods placed and deleted again, 2,000 a round, until the JIT compiler takes under a tenth of a round (twelve
     * rounds at most; each printed): a JVM compiles its hot paths during its first minute or two of load, and the
     * first workload was measured while it did (SchedulingBasic 421 pods/s overall, 850–1,136 in its last seconds;
     * after five rounds, the most there were until 2026-12-04, the JIT still compiled all of the fifth).
     * scheduler_perf's Go scheduler has nothing to warm up. Each round also preempts, on {@link #WARM_NODES} nodes
     * (node affinity keeps the pods there): low-priority pods fill them, as in SchedulingPreemption, and as many
     * high-priority pods each evict three or more — without it, preemption's paths were first compiled while
     * SchedulingPreemption was measured (2026-12-05).
     */
    private void warmUntilCompiled(int nodes) throws Exception {
        String ns = "sched-warm";
        admin.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
        int each = 2_000;
        int warmNodes = Math.min(WARM_NODES, nodes);
        int low = 4 * warmNodes; // four fill a node: 3.6 of its 4 cores
        Set<String> bound = ConcurrentHashMap.newKeySet(); // every round's pods, deleted or not
        Set<String> nominated = ConcurrentHashMap.newKeySet();
        SharedInformer<Pod> pods = countBound(ns, bound);
        try {
            pods.addEventHandler(nominatedCounter(nominated));
            List<String> names = java.util.stream.IntStream.range(0, warmNodes)
                    .mapToObj(i -> String.format(Locale.ROOT, "sched-node-%04d", i)).toList();
            JitWarmUp.run("  warm-up", 12, r -> {
                long t0 = System.nanoTime();
                // the low-priority pods first and bound, so that no plain pod takes their room
                parallel(low, i -> create(ns, onNodes(priority(pod("warm-low"), "bench-low", "900m"), names),
                        "warm-low-" + r + "-" + i));
                awaitAll(bound, "warm-low-" + r + "-", low, "the warm-up's low-priority pods");
                parallel(each, i -> create(ns, pod("warm").build(), "warm-" + r + "-" + i));
                awaitAll(bound, "warm-" + r + "-", each, "the warm-up's pods");
                parallel(warmNodes, i -> create(ns, onNodes(priority(pod("warm-high"), "bench-high", "3"), names),
                        "warm-high-" + r + "-" + i));
                awaitAll(nominated, "warm-high-" + r + "-", warmNodes, "the warm-up's preemptions");
                // the preemptors first: deleting their victims first would let them bind, only to go
                parallel(warmNodes, i -> admin.delete(Pod.class, ns, "warm-high-" + r + "-" + i, null, 0L));
                parallel(low, i -> admin.delete(Pod.class, ns, "warm-low-" + r + "-" + i, null, 0L));
                parallel(each, i -> admin.delete(Pod.class, ns, "warm-" + r + "-" + i, null, 0L));
                return String.format(Locale.ROOT, "%,d pods placed, %d preemptors nominated, all deleted in %.1f s",
                        each, warmNodes, secs(t0));
            });
        } finally {
            pods.stop();
        }
        admin.delete(io.fabric8.kubernetes.api.model.Namespace.class, null, ns, null, null);
    }

    /** Waits (two minutes at most) until {@code names} holds {@code prefix} + 0 .. {@code count} - 1. */
    private static void awaitAll(Set<String> names, String prefix, int count, String what) {
        org.awaitility.Awaitility.await(what).atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
                .until(() -> java.util.stream.IntStream.range(0, count).allMatch(i -> names.contains(prefix + i)));
    }

    /** The pod, kept to {@code nodes} by required node affinity on their host names. */
    private static Pod onNodes(Pod pod, List<String> nodes) {
        pod.getSpec().setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm().addNewMatchExpression()
                .withKey("kubernetes.io/hostname").withOperator("In").withValues(nodes).endMatchExpression()
                .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        return pod;
    }

    /** An informer, started and synced, that adds the names of the namespace's pods to {@code bound} once bound. */
    private SharedInformer<Pod> countBound(String ns, Set<String> bound) throws InterruptedException {
        SharedInformer<Pod> pods = new SharedInformer<>("bench-" + ns, admin.listerWatcher(Pod.class, ns),
                Duration.ofHours(1));
        pods.addEventHandler(boundCounter(bound));
        pods.start();
        pods.waitForSync(Duration.ofSeconds(30));
        return pods;
    }

    private static ResourceEventHandler<Pod> boundCounter(Set<String> bound) {
        return namesOf(p -> p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty(), bound);
    }

    /** Adds the names of pods nominated to a node (preemption made room for them) to {@code nominated}. */
    private static ResourceEventHandler<Pod> nominatedCounter(Set<String> nominated) {
        return namesOf(p -> p.getStatus() != null && p.getStatus().getNominatedNodeName() != null
                && !p.getStatus().getNominatedNodeName().isEmpty(), nominated);
    }

    /** Adds the name of every pod that is, or comes to be, {@code which} to {@code names}. */
    private static ResourceEventHandler<Pod> namesOf(java.util.function.Predicate<Pod> which, Set<String> names) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                onUpdate(null, p);
            }

            @Override
            public void onUpdate(Pod old, Pod p) {
                if (which.test(p)) {
                    names.add(p.getMetadata().getName());
                }
            }
        };
    }

    private void create(String ns, Pod pod, String name) {
        pod.getMetadata().setNamespace(ns);
        pod.getMetadata().setName(name);
        admin.create(pod);
    }

    /** Runs {@code work} for 0..n-1 on the 16 clients and waits. */
    private void parallel(int n, java.util.function.IntConsumer work) throws Exception {
        parallel(clients, n, work);
    }

    private static void parallel(ExecutorService pool, int n, java.util.function.IntConsumer work) throws Exception {
        List<Future<?>> all = new ArrayList<>();
        int chunk = Math.max(1, n / 64);
        for (int from = 0; from < n; from += chunk) {
            int start = from;
            int end = Math.min(n, from + chunk);
            all.add(pool.submit(() -> {
                for (int i = start; i < end; i++) {
                    work.accept(i);
                }
            }));
        }
        for (Future<?> f : all) {
            f.get();
        }
    }

    private static long pct(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
    }

    private static double secs(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}

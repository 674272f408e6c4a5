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
        clients.shutdown();
    }

    private void createNode(int i) {
        String name = String.format(Locale.ROOT, "sched-node-%04d", i);
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
        String only = System.getProperty("bench.schedWorkloads", "");
        if (!only.isEmpty() && !Arrays.asList(only.split(",")).contains(title)) {
            return;
        }
        admin.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
        Set<String> bound = ConcurrentHashMap.newKeySet();
        SharedInformer<Pod> pods = new SharedInformer<>("bench-" + ns, admin.listerWatcher(Pod.class, ns),
                Duration.ofHours(1));
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                onUpdate(null, p);
            }

            @Override
            public void onUpdate(Pod old, Pod p) {
                if (p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty()) {
                    bound.add(p.getMetadata().getName());
                }
            }
        });
        pods.start();
        pods.waitForSync(Duration.ofSeconds(30));
        parallel(initial, i -> create(ns, podNamed.apply(i), "init-" + i));
        while (bound.size() < initial) {
            Thread.sleep(50);
        }
        Scheduler.Stats before = scheduler.stats().orElseThrow();
        Duration cpu0 = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        long t0 = System.nanoTime();
        long[] createdAt = new long[1];
        List<Long> perSecond = new ArrayList<>();
        ExecutorService creators = Executors.newFixedThreadPool(16);
        Future<?> creating = Executors.newSingleThreadExecutor().submit(() -> {
            parallel(creators, measured, i -> create(ns, podNamed.apply(i), "pod-" + i));
            createdAt[0] = System.nanoTime();
            return null;
        });
        int last = bound.size();
        long nextSample = t0 + 1_000_000_000L;
        while (bound.size() < initial + measured) {
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
        Scheduler.Stats after = scheduler.stats().orElseThrow();
        pods.stop();
        long[] sorted = perSecond.stream().mapToLong(Long::longValue).sorted().toArray();
        long attempts = after.attempts() - before.attempts();
        System.out.printf(Locale.ROOT, "  %-18s %,d initial + %,d measured pods on %,d nodes: %.1f s, %,.0f pods/s"
                        + " (per second: p50 %,d, p90 %,d, p99 %,d)%n", title, initial, measured,
                Integer.getInteger("bench.schedNodes", 5000), elapsed, measured / elapsed, pct(sorted, 0.5),
                pct(sorted, 0.9), pct(sorted, 0.99));
        System.out.printf(Locale.ROOT, "  %-18s cycle %.2f ms avg over %,d attempts (%,d unschedulable), binding %.2f"
                        + " ms avg, at most %d bindings under way%n", "", (after.cycleNanos() - before.cycleNanos())
                        / 1e6 / Math.max(1, attempts), attempts, after.unschedulable() - before.unschedulable(),
                (after.bindNanos() - before.bindNanos()) / 1e6 / Math.max(1, after.bound() - before.bound()),
                after.maxBindsInFlight());
        System.out.printf(Locale.ROOT, "  %-18s pods created at %,.0f/s (all in %.1f s); the server used %.2f of %d"
                        + " cores%n", "", measured / ((createdAt[0] - t0) / 1e9), (createdAt[0] - t0) / 1e9,
                cpu.toMillis() / 1000.0 / elapsed, Runtime.getRuntime().availableProcessors());
        parallel(initial + measured, i -> admin.delete(Pod.class, ns, i < initial ? "init-" + i : "pod-" + (i - initial),
                null, 0L));
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

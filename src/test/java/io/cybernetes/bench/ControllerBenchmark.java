package io.cybernetes.bench;

import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.ControllerManager;
import io.cybernetes.controller.FakeKubelet;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The controllers at scale ({@code -Pbench -Dbench.only=controllers}): a Deployment of
 * {@code bench.replicas} (10,000) over {@code bench.nodes} (1,000) nodes whose pods a
 * stand-in kubelet (16 workers, in process, as the admin) binds round-robin and marks
 * Running — time from create to all pods Running and to the Deployment's status saying
 * so, reconciles per second, heap; then pod start-up latency with a Deployment scaled by
 * 10 every 100 ms (100 pods/s) for {@code bench.rateSeconds} (30) seconds.
 */
final class ControllerBenchmark {

    private static final String NS = "bench-deploy";

    private final ApiClient admin;
    private final ControllerManager manager;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final AtomicLong maxHeap = new AtomicLong();
    private final Map<String, Long> added = new ConcurrentHashMap<>();
    private final Map<String, Long> running = new ConcurrentHashMap<>();
    private final List<String> addedOrder = java.util.Collections.synchronizedList(new ArrayList<>());

    ControllerBenchmark(ConfigurableApplicationContext ctx, String adminToken) {
        this.admin = ApiClients.local(ctx.getBean(LocalApi.class), adminToken);
        this.manager = ctx.getBean(ControllerManager.class);
    }

    void run() throws Exception {
        int nodeCount = Integer.getInteger("bench.nodes", 1000);
        int replicas = Integer.getInteger("bench.replicas", 10_000);
        int rateSeconds = Integer.getInteger("bench.rateSeconds", 30);
        admin.create(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build());
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(String.format(Locale.ROOT, "bench-node-%04d", i));
        }
        System.out.printf(Locale.ROOT, "%ncontrollers: a Deployment of %,d replicas over %,d nodes%n", replicas,
                nodeCount);
        long t = System.nanoTime();
        Thread sampler = new Thread(this::sampleHeap, "heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
        try (FakeKubelet kubelet = new FakeKubelet(admin, NS, nodes, Duration.ZERO, Duration.ofSeconds(10), 16, Map.of())) {
            System.out.printf(Locale.ROOT, "  %,d nodes registered with leases in %.1f s%n", nodeCount, secs(t));
            SharedInformerFactory informers = new SharedInformerFactory(admin, Duration.ofHours(1));
            informers.informerFor(Pod.class).addEventHandler(tracker());
            informers.start();
            informers.waitForSync(Duration.ofSeconds(30));
            scaleOut(replicas);
            startupLatency(rateSeconds);
            informers.stop();
        }
    }

    private void scaleOut(int replicas) throws InterruptedException {
        long reconciles0 = reconciles();
        maxHeap.set(0);
        long t0 = System.nanoTime();
        admin.create(deployment("big", replicas));
        long allCreated = 0;
        long allRunning = 0;
        while (allRunning == 0) {
            if (allCreated == 0 && countAdded("big") >= replicas) {
                allCreated = System.nanoTime();
            }
            if (countRunning("big") >= replicas) {
                allRunning = System.nanoTime();
            }
            Thread.sleep(20);
            if (System.nanoTime() - t0 > Duration.ofMinutes(10).toNanos()) {
                throw new IllegalStateException("not all pods Running after 10 minutes: " + countRunning("big"));
            }
        }
        long reported;
        while (true) {
            Deployment d = admin.get(Deployment.class, NS, "big").orElseThrow();
            var s = d.getStatus();
            if (s != null && s.getAvailableReplicas() != null && s.getAvailableReplicas() == replicas
                    && s.getUpdatedReplicas() == replicas && s.getObservedGeneration() >= d.getMetadata().getGeneration()) {
                reported = System.nanoTime();
                break;
            }
            Thread.sleep(20);
        }
        double total = (reported - t0) / 1e9;
        long reconciles = reconciles() - reconciles0;
        System.out.printf(Locale.ROOT, "  all %,d pods created after %.1f s (%,.0f pods/s)%n", replicas,
                (allCreated - t0) / 1e9, replicas / ((allCreated - t0) / 1e9));
        System.out.printf(Locale.ROOT, "  all Running after %.1f s; Deployment status says so after %.1f s%n",
                (allRunning - t0) / 1e9, total);
        System.out.printf(Locale.ROOT, "  reconciles: %,d in %.1f s = %,.0f/s (all controllers)%n", reconciles, total,
                reconciles / total);
        long[] latencies = latencies("big", null);
        System.out.printf(Locale.ROOT, "  pod created → Running: p50 %.2f s, p99 %.2f s%n", pct(latencies, 0.5) / 1e9,
                pct(latencies, 0.99) / 1e9);
        System.gc();
        System.out.printf(Locale.ROOT, "  heap used: at most %,d MiB during the run, %,d MiB after a GC%n",
                maxHeap.get() >> 20, memory.getHeapMemoryUsage().getUsed() >> 20);
    }

    /** Pods asked for at 100 per second (10 more replicas every 100 ms): how long until each runs. */
    private void startupLatency(int seconds) throws InterruptedException {
        admin.create(deployment("steady", 0));
        int steps = seconds * 10;
        long[] stepAt = new long[steps];
        long start = System.nanoTime();
        for (int i = 0; i < steps; i++) {
            long due = start + i * 100_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            stepAt[i] = System.nanoTime();
            admin.patch(Deployment.class, NS, "steady", "{\"spec\":{\"replicas\":" + ((i + 1) * 10) + "}}");
        }
        int want = steps * 10;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (countRunning("steady") < want && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        // the i-th pod to appear answers the i/10-th scale step
        long[] fromAsk = latencies("steady", stepAt);
        long[] fromCreate = latencies("steady", null);
        System.out.printf(Locale.ROOT, "%npod start-up at 100 pods/s for %d s (%,d pods asked, %,d made, %,d Running,"
                        + " %,d still there):%n", seconds, want, countAdded("steady"), countRunning("steady"),
                admin.list(Pod.class, NS, "app=steady").items().size());
        System.out.printf(Locale.ROOT, "  scale request → Running: p50 %.2f s, p99 %.2f s, max %.2f s%n",
                pct(fromAsk, 0.5) / 1e9, pct(fromAsk, 0.99) / 1e9, pct(fromAsk, 1.0) / 1e9);
        System.out.printf(Locale.ROOT, "  pod created → Running: p50 %.3f s, p99 %.3f s%n", pct(fromCreate, 0.5) / 1e9,
                pct(fromCreate, 0.99) / 1e9);
        Map<String, Integer> reasons = new java.util.TreeMap<>();
        for (var e : admin.list(io.fabric8.kubernetes.api.model.Event.class, NS, null).items()) {
            reasons.merge(e.getReason() + " " + e.getInvolvedObject().getKind(), Math.max(1, e.getCount() == null ? 1
                    : e.getCount()), Integer::sum);
        }
        System.out.println("  events: " + reasons);
    }

    private long[] latencies(String app, long[] stepAt) {
        List<Long> out = new ArrayList<>();
        List<String> order;
        synchronized (addedOrder) {
            order = new ArrayList<>(addedOrder);
        }
        int i = 0;
        for (String key : order) {
            if (!key.startsWith(NS + "/" + app + "-")) {
                continue;
            }
            Long ran = running.get(key);
            if (ran != null) {
                long from = stepAt == null ? added.get(key) : stepAt[Math.min(i / 10, stepAt.length - 1)];
                out.add(ran - from);
            }
            i++;
        }
        long[] a = out.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }

    private static long pct(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
    }

    private ResourceEventHandler<Pod> tracker() {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                String key = NS + "/" + p.getMetadata().getName();
                if (added.putIfAbsent(key, System.nanoTime()) == null) {
                    addedOrder.add(key);
                }
                onUpdate(null, p);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod p) {
                if (p.getStatus() != null && "Running".equals(p.getStatus().getPhase())) {
                    running.putIfAbsent(NS + "/" + p.getMetadata().getName(), System.nanoTime());
                }
            }
        };
    }

    private int countAdded(String app) {
        return (int) added.keySet().stream().filter(k -> k.startsWith(NS + "/" + app + "-")).count();
    }

    private int countRunning(String app) {
        return (int) running.keySet().stream().filter(k -> k.startsWith(NS + "/" + app + "-")).count();
    }

    private long reconciles() {
        long n = 0;
        for (String name : manager.names()) {
            n += manager.status(name).reconciles();
        }
        return n;
    }

    private void sampleHeap() {
        while (true) {
            maxHeap.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static Deployment deployment(String name, int replicas) {
        return new DeploymentBuilder().withNewMetadata().withNamespace(NS).withName(name).endMetadata().withNewSpec()
                .withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector().withNewTemplate()
                .withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec().addNewContainer().withName("c")
                .withImage("nginx").endContainer().endSpec().endTemplate().endSpec().build();
    }

    private static double secs(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

}

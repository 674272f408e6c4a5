package io.cybernetes.bench;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.SharedInformer;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.FakeKubelet;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 17's workloads at scale ({@code -Pbench -Dbench.only=workloads}), over
 * {@code bench.nodes} (1,000) nodes of a stand-in kubelet: a Service selecting a Deployment
 * of {@code bench.servicePods} (5,000) pods — time until its EndpointSlices list them all
 * ready, and slice writes per pod change while 500 of them are replaced; {@code bench.jobs}
 * (1,000) Jobs of 10 completions — completions per second; and one node of 110 pods drained
 * by evictions under a budget of 10 % unavailable.
 */
final class WorkloadsBenchmark {

    private final ApiClient admin;
    private final LocalApi api;
    private final String adminToken;

    WorkloadsBenchmark(ConfigurableApplicationContext ctx, String adminToken) {
        this.api = ctx.getBean(LocalApi.class);
        this.admin = ApiClients.local(api, adminToken);
        this.adminToken = adminToken;
    }

    void run() throws Exception {
        int nodeCount = Integer.getInteger("bench.nodes", 1000);
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(String.format(Locale.ROOT, "wl-node-%04d", i));
        }
        services(nodes, Integer.getInteger("bench.servicePods", 5000));
        jobs(nodes, Integer.getInteger("bench.jobs", 1000));
        drain();
    }

    private static double secs(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private void namespace(String ns) {
        admin.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
    }

    private static Deployment deployment(String ns, String name, int replicas) {
        return new DeploymentBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata().withNewSpec()
                .withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector().withNewTemplate()
                .withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec().addNewContainer()
                .withName("web").withImage("nginx").addNewPort().withName("http").withContainerPort(8080).endPort()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    private void services(List<String> nodes, int pods) throws Exception {
        String ns = "wl-services";
        namespace(ns);
        System.out.printf(Locale.ROOT, "%nservices: a Service over a Deployment of %,d pods on %,d nodes%n", pods,
                nodes.size());
        AtomicLong sliceWrites = new AtomicLong();
        AtomicLong podChanges = new AtomicLong();
        SharedInformerFactory informers = new SharedInformerFactory(admin, Duration.ofHours(1));
        SharedInformer<EndpointSlice> slices = informers.informerFor(EndpointSlice.class);
        slices.addEventHandler(counting(sliceWrites));
        informers.informerFor(Pod.class).addEventHandler(counting(podChanges));
        informers.start();
        informers.waitForSync(Duration.ofSeconds(30));
        try (FakeKubelet kubelet = new FakeKubelet(admin, ns, nodes, Duration.ZERO, Duration.ofSeconds(10), 16,
                Map.of())) {
            admin.create(new ServiceBuilder().withNewMetadata().withName("web").withNamespace(ns).endMetadata()
                    .withNewSpec().addToSelector("app", "web").addNewPort().withPort(80)
                    .withTargetPort(new IntOrString("http")).endPort().endSpec().build());
            long t0 = System.nanoTime();
            admin.create(deployment(ns, "web", pods));
            awaitReady(slices, ns, pods, t0);
            System.out.printf(Locale.ROOT, "  all %,d endpoints ready in the Service's slices %.1f s after the"
                    + " Deployment was created (%d slices)%n", pods, secs(t0), countSlices(slices, ns));
            // 500 pods replaced: each deletion and each replacement's progress is a pod change
            List<Pod> victims = admin.list(Pod.class, ns, "app=web").items().subList(0, 500);
            long writes0 = sliceWrites.get();
            long changes0 = podChanges.get();
            long t1 = System.nanoTime();
            for (Pod p : victims) {
                admin.delete(Pod.class, ns, p.getMetadata().getName(), null);
            }
            awaitReady(slices, ns, pods, t1);
            Thread.sleep(2000);
            long writes = sliceWrites.get() - writes0;
            long changes = podChanges.get() - changes0;
            System.out.printf(Locale.ROOT, "  500 pods replaced: ready again in %.1f s; %,d slice writes for %,d pod"
                    + " changes = %.2f per change%n", secs(t1) - 2, writes, changes, writes / (double) changes);
        }
        informers.stop();
    }

    private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> ResourceEventHandler<T> counting(
            AtomicLong n) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                n.incrementAndGet();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                if (!Objects.equals(oldObj.getMetadata().getResourceVersion(), newObj.getMetadata().getResourceVersion())) {
                    n.incrementAndGet();
                }
            }

            @Override
            public void onDelete(T lastKnown, boolean finalStateUnknown) {
                n.incrementAndGet();
            }
        };
    }

    private static void awaitReady(SharedInformer<EndpointSlice> slices, String ns, int want, long t0)
            throws InterruptedException {
        while (true) {
            int ready = 0;
            for (EndpointSlice s : slices.indexer().byIndex(io.cybernetes.client.Indexer.NAMESPACE_INDEX, ns)) {
                for (Endpoint e : Objects.requireNonNullElse(s.getEndpoints(), List.<Endpoint>of())) {
                    if (e.getConditions() != null && Boolean.TRUE.equals(e.getConditions().getReady())) {
                        ready++;
                    }
                }
            }
            if (ready == want) {
                return;
            }
            if (System.nanoTime() - t0 > Duration.ofMinutes(10).toNanos()) {
                throw new IllegalStateException("only " + ready + " of " + want + " endpoints ready after 10 minutes");
            }
            Thread.sleep(20);
        }
    }

    private static int countSlices(SharedInformer<EndpointSlice> slices, String ns) {
        return slices.indexer().byIndex(io.cybernetes.client.Indexer.NAMESPACE_INDEX, ns).size();
    }

    private void jobs(List<String> nodes, int jobs) throws Exception {
        String ns = "wl-jobs";
        namespace(ns);
        int completions = 10;
        System.out.printf(Locale.ROOT, "%njobs: %,d Jobs of %d completions each on %,d nodes%n", jobs, completions,
                nodes.size());
        try (FakeKubelet kubelet = new FakeKubelet(admin, ns, nodes, Duration.ZERO, Duration.ofSeconds(10), 16,
                Map.of())) {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            long t0 = System.nanoTime();
            List<Future<?>> created = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                String name = String.format(Locale.ROOT, "job-%04d", i);
                created.add(pool.submit(() -> admin.create(new JobBuilder().withNewMetadata().withName(name)
                        .withNamespace(ns).endMetadata().withNewSpec().withCompletions(completions).withParallelism(2)
                        .withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("work")
                        .withImage("busybox").endContainer().endSpec().endTemplate().endSpec().build())));
            }
            for (Future<?> f : created) {
                f.get();
            }
            pool.shutdown();
            while (true) {
                long done = admin.list(Job.class, ns, null).items().stream().filter(j -> j.getStatus() != null
                        && j.getStatus().getSucceeded() != null).mapToLong(j -> j.getStatus().getSucceeded()).sum();
                long complete = admin.list(Job.class, ns, null).items().stream().filter(j -> j.getStatus() != null
                        && j.getStatus().getConditions() != null && j.getStatus().getConditions().stream()
                        .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus()))).count();
                if (complete == jobs) {
                    double s = secs(t0);
                    System.out.printf(Locale.ROOT, "  all %,d Jobs Complete after %.1f s: %,d completions, %,.0f"
                            + " completions/s%n", jobs, s, done, done / s);
                    break;
                }
                if (secs(t0) > 900) {
                    throw new IllegalStateException("only " + complete + " Jobs complete after 15 minutes");
                }
                Thread.sleep(500);
            }
        }
    }

    private void drain() throws Exception {
        String ns = "wl-drain";
        namespace(ns);
        System.out.printf(Locale.ROOT, "%ndrain: one node of 110 pods under a budget of 10%% unavailable%n");
        try (FakeKubelet kubelet = new FakeKubelet(admin, ns, List.of("wl-drain-a", "wl-drain-b"), Duration.ZERO,
                Duration.ofSeconds(1), 16, Map.of())) {
            kubelet.silence("wl-drain-b"); // all 110 land on wl-drain-a
            admin.create(new PodDisruptionBudgetBuilder().withNewMetadata().withName("app").withNamespace(ns)
                    .endMetadata().withNewSpec().withMaxUnavailable(new IntOrString("10%")).withNewSelector()
                    .addToMatchLabels("app", "app").endSelector().endSpec().build());
            admin.create(deployment(ns, "app", 110));
            awaitRunning(ns, "wl-drain-a", 110);
            kubelet.resume("wl-drain-b");
            long t0 = System.nanoTime();
            Node node = admin.get(Node.class, null, "wl-drain-a").orElseThrow();
            admin.patch(Node.class, null, node.getMetadata().getName(), "{\"spec\":{\"unschedulable\":true}}");
            List<Pod> pods = admin.list(Pod.class, ns, "app=app").items();
            long refused = 0;
            List<Pod> left = new ArrayList<>(pods);
            while (!left.isEmpty()) {
                List<Pod> next = new ArrayList<>();
                for (Pod p : left) {
                    try {
                        evict(ns, p.getMetadata().getName());
                    } catch (ApiException e) {
                        if (e.code() != 429) {
                            throw e;
                        }
                        refused++;
                        next.add(p);
                    }
                }
                left = next;
                if (!left.isEmpty()) {
                    Thread.sleep(100); // kubectl drain waits 5 s between tries; the budget is what is measured here
                }
            }
            double evicted = secs(t0);
            awaitRunning(ns, "wl-drain-b", 110);
            System.out.printf(Locale.ROOT, "  110 pods evicted in %.1f s (%,d evictions refused by the budget and"
                    + " tried again); all 110 Running on the other node after %.1f s%n", evicted, refused, secs(t0));
        }
    }

    /** POSTs an Eviction for the pod, as kubectl drain does; a refusal is the ApiException of its Status. */
    private void evict(String ns, String pod) {
        Eviction e = new EvictionBuilder().withNewMetadata().withName(pod).withNamespace(ns).endMetadata().build();
        api.exchange(new LocalApi.Request("POST", "/api/v1/namespaces/" + ns + "/pods/" + pod + "/eviction", null,
                "application/json", "application/json", io.cybernetes.api.Json.write(io.cybernetes.api.Json.toTree(e))
                .getBytes(java.nio.charset.StandardCharsets.UTF_8), adminToken));
    }

    private void awaitRunning(String ns, String node, int want) throws InterruptedException {
        long t0 = System.nanoTime();
        while (true) {
            long running = admin.list(Pod.class, ns, "app=app").items().stream().filter(p -> node.equals(
                    p.getSpec().getNodeName()) && p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null
                    && "Running".equals(p.getStatus().getPhase())).count();
            if (running >= want) {
                return;
            }
            if (secs(t0) > 300) {
                throw new IllegalStateException(running + " of " + want + " pods Running on " + node);
            }
            Thread.sleep(50);
        }
    }
}

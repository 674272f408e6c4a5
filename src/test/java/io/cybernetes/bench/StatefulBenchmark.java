package io.cybernetes.bench;

import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.controller.ControllerManager;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.cybernetes.node.NodeAgent;
import io.cybernetes.node.NodeFleet;
import org.springframework.context.ConfigurableApplicationContext;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Issue 19's workloads at scale ({@code -Pbench -Dbench.only=stateful}) on {@code bench.nodes}
 * (1,000) simulated nodes in process, placed by the scheduler: a DaemonSet rolled out to every
 * node and then updated (10 % unavailable at a time) — time until all are updated and
 * available; a StatefulSet of {@code bench.statefulReplicas} (100) with a claim each, under
 * OrderedReady and under Parallel — time until all are ready; and {@code bench.hpas} (500)
 * HorizontalPodAutoscalers over Deployments of two pods, evaluated every 15 s on the metrics
 * the nodes' kubelets report — the autoscaler's CPU per evaluation (its worker threads, which
 * also run its in-process API calls).
 */
final class StatefulBenchmark {

    private final ApiClient admin;
    private final LocalApi api;
    private final InProcessCredentials credentials;
    private final CertificateAuthority ca;
    private final ControllerManager manager;

    StatefulBenchmark(ConfigurableApplicationContext ctx, String adminToken, Path pki) throws Exception {
        this.api = ctx.getBean(LocalApi.class);
        this.admin = ApiClients.local(api, adminToken);
        this.credentials = ctx.getBean(InProcessCredentials.class);
        this.ca = CertificateAuthority.of(X509Certificates.readCertificate(pki.resolve("ca.crt")),
                X509Certificates.readPrivateKey(pki.resolve("ca.key")));
        this.manager = ctx.getBean(ControllerManager.class);
    }

    private ApiClient nodeClient(String node) {
        return ApiClients.local(api, credentials.tokenFor("system:node:" + node, List.of("system:nodes")),
                io.cybernetes.api.Version.userAgent("kubelet"));
    }

    void run() throws Exception {
        int count = Integer.getInteger("bench.nodes", 1000);
        NodeFleet fleet = null;
        long t0 = System.nanoTime();
        for (int i = 1; i <= count; i++) {
            String name = String.format(Locale.ROOT, "st-node-%04d", i);
            if (fleet == null) {
                fleet = new NodeFleet(ApiClients.local(api, credentials.tokenFor("system:cybernetes:node-simulator", List.of()),
                        io.cybernetes.api.Version.userAgent("node-simulator")), Clock.systemUTC(), 4);
                fleet.serveKubelets(ca, 0);
            }
            fleet.add(nodeClient(name), new NodeAgent.Config(name, "8", "32Gi", 110, "zone-" + (char) ('a' + i % 3),
                    "region-1", Map.of(), List.of(), List.of(), "10." + (100 + i / 250) + "." + (i % 250), "127.0.0.1",
                    Duration.ofMillis(200), Duration.ofSeconds(10)));
        }
        fleet.start();
        try {
            await("nodes registered", Duration.ofMinutes(5), () -> admin.list(Node.class, null, null).items().size()
                    >= count);
            System.out.printf(Locale.ROOT, "%n%,d simulated nodes registered in %.1f s%n", count, secs(t0));
            daemonSet(count);
            statefulSet("OrderedReady");
            statefulSet("Parallel");
            autoscalers(Integer.getInteger("bench.hpas", 500));
        } finally {
            fleet.close();
        }
    }

    private static double secs(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static void await(String what, Duration within, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + ": not done within " + within);
            }
            Thread.sleep(200);
        }
    }

    private void namespace(String ns) {
        admin.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
    }

    private void daemonSet(int nodes) throws Exception {
        String ns = "st-daemons";
        namespace(ns);
        System.out.printf(Locale.ROOT, "%ndaemonset: one pod on each of %,d nodes, rolled out and then updated"
                + " (maxUnavailable 10%%)%n", nodes);
        long t0 = System.nanoTime();
        admin.create(new DaemonSetBuilder().withNewMetadata().withName("agent").withNamespace(ns).endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", "agent").endSelector().withNewUpdateStrategy()
                .withType("RollingUpdate").withNewRollingUpdate().withNewMaxUnavailable("10%").endRollingUpdate()
                .endUpdateStrategy().withNewTemplate().withNewMetadata().addToLabels("app", "agent").endMetadata()
                .withNewSpec().addNewContainer().withName("agent").withImage("fluentd:1").endContainer().endSpec()
                .endTemplate().endSpec().build());
        awaitDaemons(ns, nodes);
        System.out.printf(Locale.ROOT, "  rolled out: all %,d pods available %.1f s after the DaemonSet was created%n",
                nodes, secs(t0));
        long t1 = System.nanoTime();
        admin.patch(DaemonSet.class, ns, "agent", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
                + "\"agent\",\"image\":\"fluentd:2\"}]}}}}");
        await("daemonset update starts", Duration.ofMinutes(1), () -> status(ns).getUpdatedNumberScheduled() == null
                || status(ns).getUpdatedNumberScheduled() < nodes);
        awaitDaemons(ns, nodes);
        System.out.printf(Locale.ROOT, "  updated: all %,d pods updated and available %.1f s after the template"
                + " changed%n", nodes, secs(t1));
    }

    private io.fabric8.kubernetes.api.model.apps.DaemonSetStatus status(String ns) {
        DaemonSet ds = admin.get(DaemonSet.class, ns, "agent").orElseThrow();
        return ds.getStatus() == null ? new io.fabric8.kubernetes.api.model.apps.DaemonSetStatus() : ds.getStatus();
    }

    private void awaitDaemons(String ns, int nodes) throws InterruptedException {
        await("daemonset", Duration.ofMinutes(20), () -> {
            var s = status(ns);
            return s.getDesiredNumberScheduled() != null && s.getDesiredNumberScheduled() == nodes
                    && s.getUpdatedNumberScheduled() != null && s.getUpdatedNumberScheduled() == nodes
                    && s.getNumberAvailable() != null && s.getNumberAvailable() == nodes;
        });
    }

    private void statefulSet(String policy) throws Exception {
        int replicas = Integer.getInteger("bench.statefulReplicas", 100);
        String ns = "st-" + policy.toLowerCase(Locale.ROOT);
        namespace(ns);
        long t0 = System.nanoTime();
        admin.create(new StatefulSetBuilder().withNewMetadata().withName("db").withNamespace(ns).endMetadata()
                .withNewSpec().withReplicas(replicas).withServiceName("db").withPodManagementPolicy(policy)
                .withNewSelector().addToMatchLabels("app", "db").endSelector().withNewTemplate().withNewMetadata()
                .addToLabels("app", "db").endMetadata().withNewSpec().addNewContainer().withName("db")
                .withImage("postgres:16").endContainer().endSpec().endTemplate().addNewVolumeClaimTemplate()
                .withNewMetadata().withName("data").endMetadata().withNewSpec().withAccessModes("ReadWriteOnce")
                .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources().endSpec()
                .endVolumeClaimTemplate().endSpec().build());
        await("statefulset " + policy, Duration.ofMinutes(20), () -> {
            StatefulSet s = admin.get(StatefulSet.class, ns, "db").orElseThrow();
            return s.getStatus() != null && s.getStatus().getReadyReplicas() != null
                    && s.getStatus().getReadyReplicas() == replicas;
        });
        System.out.printf(Locale.ROOT, "%nstatefulset, %s: %d replicas, each with a provisioned claim, all ready in"
                + " %.1f s%n", policy, replicas, secs(t0));
    }

    private void autoscalers(int hpas) throws Exception {
        String ns = "st-hpa";
        namespace(ns);
        System.out.printf(Locale.ROOT, "%nautoscalers: %d HorizontalPodAutoscalers, each over a Deployment of 2 pods"
                + " at its cpu target (evaluated every 15 s on the nodes' metrics)%n", hpas);
        for (int i = 0; i < hpas; i++) {
            String name = String.format(Locale.ROOT, "app-%03d", i);
            admin.create(new DeploymentBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                    .withNewSpec().withReplicas(2).withNewSelector().addToMatchLabels("app", name).endSelector()
                    .withNewTemplate().withNewMetadata().addToLabels("app", name)
                    .addToAnnotations("cybernetes.io/usage", "cpu=50m").endMetadata().withNewSpec().addNewContainer()
                    .withName("web").withImage("nginx").withNewResources().addToRequests("cpu", new Quantity("100m"))
                    .endResources().endContainer().endSpec().endTemplate().endSpec().build());
            admin.create(new HorizontalPodAutoscalerBuilder().withNewMetadata().withName(name).withNamespace(ns)
                    .endMetadata().withNewSpec().withNewScaleTargetRef().withApiVersion("apps/v1")
                    .withKind("Deployment").withName(name).endScaleTargetRef().withMinReplicas(2).withMaxReplicas(4)
                    .addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                    .withType("Utilization").withAverageUtilization(50).endTarget().endResource().endMetric()
                    .endSpec().build());
        }
        long t0 = System.nanoTime();
        await("autoscalers see metrics", Duration.ofMinutes(10), () -> admin.list(HorizontalPodAutoscaler.class, ns,
                null).items().stream().filter(h -> h.getStatus() != null && h.getStatus().getConditions() != null
                && h.getStatus().getConditions().stream().anyMatch(c -> "ScalingActive".equals(c.getType())
                && "True".equals(c.getStatus()))).count() == hpas);
        System.out.printf(Locale.ROOT, "  all %d compute a replica count %.1f s after the last was created (pods"
                + " running, two scrapes)%n", hpas, secs(t0));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu0 = autoscalerCpu(threads);
        long reconciles0 = manager.status("horizontal-pod-autoscaler").reconciles();
        long wall0 = System.nanoTime();
        Thread.sleep(Duration.ofSeconds(Long.getLong("bench.hpaSeconds", 60)).toMillis());
        long cpu = autoscalerCpu(threads) - cpu0;
        long evaluations = manager.status("horizontal-pod-autoscaler").reconciles() - reconciles0;
        double wall = secs(wall0);
        long scaled = admin.list(HorizontalPodAutoscaler.class, ns, null).items().stream()
                .filter(h -> h.getStatus().getDesiredReplicas() != null && h.getStatus().getDesiredReplicas() != 2)
                .count();
        System.out.printf(Locale.ROOT, "  over %.0f s: %,d evaluations (%.1f/s), autoscaler CPU %.0f ms = %.2f ms per"
                + " evaluation, %.1f %% of one core; %d of %d asked for other than 2 replicas%n", wall, evaluations,
                evaluations / wall, cpu / 1e6, evaluations == 0 ? 0 : cpu / 1e6 / evaluations, cpu / 1e7 / wall, scaled,
                hpas);
        System.out.printf(Locale.ROOT, "  pods: %,d%n", admin.list(Pod.class, ns, null).items().size());
    }

    /** The CPU the autoscaler's worker threads have used (they run its in-process API calls too). */
    private static long autoscalerCpu(ThreadMXBean mx) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("horizontal-pod-autoscaler-worker")) {
                long c = mx.getThreadCpuTime(t.getId());
                sum += Math.max(0, c);
            }
        }
        return sum;
    }
}

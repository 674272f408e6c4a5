package io.cybernetes.bench;

import io.cybernetes.api.LocalApi;
import io.cybernetes.apiserver.ApiServerEndpoints;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ListerWatcher;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Simulated nodes from a node-agent process of their own ({@code -Pbench -Dbench.only=nodes}):
 * {@code bench.agentNodes} (1,000) nodes, each with its own client certificate over HTTPS,
 * heartbeating every 10 s; the time until all are Ready, then over {@code bench.agentSeconds}
 * (60) the node agent's CPU (from the operating system's account of the process), the
 * server's, and the Lease renewals the server saw.
 */
final class NodeAgentBenchmark {

    private final ApiClient admin;
    private final int httpsPort;
    private final Path pki;

    NodeAgentBenchmark(ConfigurableApplicationContext ctx, String adminToken, Path pki) {
        this.admin = ApiClients.local(ctx.getBean(LocalApi.class), adminToken);
        this.httpsPort = ctx.getBean(ApiServerEndpoints.class).httpsPort();
        this.pki = pki;
    }

    void run() throws Exception {
        int nodes = Integer.getInteger("bench.agentNodes", 1000);
        int seconds = Integer.getInteger("bench.agentSeconds", 60);
        long t0 = System.nanoTime();
        Process agent = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-cp", System.getProperty("java.class.path"), "io.cybernetes.CybernetesApplication",
                "node-agent", "--server", "https://127.0.0.1:" + httpsPort, "--pki", pki.toString(),
                "--nodes", Integer.toString(nodes), "--heartbeat", "10s")
                .redirectErrorStream(true).redirectOutput(new File("target/bench-node-agent.log")).start();
        try {
            while (ready() < nodes) {
                if (!agent.isAlive()) {
                    throw new IllegalStateException("the node agent ended: see target/bench-node-agent.log");
                }
                Thread.sleep(500);
            }
            System.out.printf(Locale.ROOT, "%nnode agent: %,d nodes Ready %.1f s after the process started%n", nodes,
                    (System.nanoTime() - t0) / 1e9);
            Thread.sleep(15_000); // past registration, into the steady heartbeat
            AtomicLong renewals = new AtomicLong();
            ListerWatcher.WatchStream<Lease> leases = admin.watch(Lease.class, "kube-node-lease",
                    admin.list(Lease.class, "kube-node-lease", null).resourceVersion());
            Thread counter = new Thread(() -> {
                try {
                    while (true) {
                        ListerWatcher.Event<Lease> e = leases.next(1000);
                        if (e == null) {
                            continue;
                        }
                        if (e.type() == ListerWatcher.Event.Type.CLOSED || e.type() == ListerWatcher.Event.Type.ERROR) {
                            return;
                        }
                        if (e.type() == ListerWatcher.Event.Type.MODIFIED) {
                            renewals.incrementAndGet();
                        }
                    }
                } catch (InterruptedException | RuntimeException e) {
                    // the stream was closed
                }
            });
            counter.setDaemon(true);
            counter.start();
            ProcessHandle.Info before = agent.toHandle().info();
            Duration serverBefore = ProcessHandle.current().info().totalCpuDuration().orElseThrow();
            long w0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double wall = (System.nanoTime() - w0) / 1e9;
            Duration agentCpu = agent.toHandle().info().totalCpuDuration().orElseThrow()
                    .minus(before.totalCpuDuration().orElseThrow());
            Duration serverCpu = ProcessHandle.current().info().totalCpuDuration().orElseThrow().minus(serverBefore);
            leases.close();
            System.out.printf(Locale.ROOT, "  over %.0f s: node agent %.3f cores (%.1f s CPU), server %.3f cores;"
                            + " %,d lease renewals (%.0f/s; %d nodes × 1 per 10 s = %d/s)%n", wall,
                    agentCpu.toMillis() / 1000.0 / wall, agentCpu.toMillis() / 1000.0,
                    serverCpu.toMillis() / 1000.0 / wall, renewals.get(), renewals.get() / wall, nodes, nodes / 10);
            System.out.printf(Locale.ROOT, "  still Ready: %,d of %,d%n", ready(), nodes);
        } finally {
            agent.destroy();
            agent.waitFor();
        }
    }

    private int ready() {
        int n = 0;
        for (Node node : admin.list(Node.class, null, null).items()) {
            if (node.getStatus() != null && node.getStatus().getConditions() != null && node.getStatus().getConditions()
                    .stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))) {
                n++;
            }
        }
        return n;
    }
}

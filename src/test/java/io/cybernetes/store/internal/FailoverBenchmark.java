package io.cybernetes.store.internal;

import io.cybernetes.testing.PatroniCluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Failovers of a replicated PostgreSQL under load ({@code -Pbench -Dbench.only=failover},
 * {@code bench.failovers} of them, 3 by default): a server on a {@link PatroniCluster}
 * through its multi-host JDBC URL, the {@link FaultLoad} of the fault suite running 30 s
 * before the primary's host is killed and 30 s after writes succeed again. Per failover:
 * the time from the primary's loss to {@code /readyz} failing, to the standby's promotion,
 * to the first successful write and to {@code /readyz} passing again, the writes refused,
 * and the create latencies of that minute. Each run ends with the store judged as in the
 * fault suite, and the old primary back as the standby.
 */
public final class FailoverBenchmark {

    private FailoverBenchmark() {
    }

    public static void run() throws Exception {
        int failovers = Integer.getInteger("bench.failovers", 3);
        System.out.printf(Locale.ROOT, "Failover benchmark: %d failovers of a Patroni cluster (synchronous standby,"
                + " leader TTL %d s), %d cores%n", failovers, PatroniCluster.TTL_SECONDS,
                Runtime.getRuntime().availableProcessors());
        try (PatroniCluster db = new PatroniCluster()) {
            db.createDatabase("cybernetes");
            try (InProcessServer server = new InProcessServer("bench-failover", db.jdbcUrl("cybernetes"),
                    Duration.ofSeconds(2))) {
                for (int i = 1; i <= failovers; i++) {
                    once(i, db, server);
                }
            }
        }
    }

    private static void once(int run, PatroniCluster db, InProcessServer server) throws Exception {
        FaultLoad load = FaultLoad.start(server, "failover-" + run, 3, 2);
        Thread.sleep(30_000);
        int primary = db.primary();
        long refusedBefore = load.refused.get();
        long killed = db.kill(primary);
        long notReady = until(server, 500, killed);
        db.awaitPrimary(1 - primary, Duration.ofSeconds(60));
        long promoted = ms(killed);
        long firstWrite = load.awaitWrites(killed);
        long refused = load.refused.get() - refusedBefore;
        long ready = until(server, 200, killed);
        load.judge("failover " + run, killed, Duration.ofSeconds(30));
        List<Long> micros = new ArrayList<>(load.createMicros);
        micros.sort(null);
        System.out.printf(Locale.ROOT, "failover %d: /readyz failing after %,d ms, standby promoted after %,d ms,"
                        + " first write after %,d ms, /readyz passing after %,d ms; %d writes refused meanwhile;"
                        + " creates in the minute around it: %d, p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                run, notReady, promoted, firstWrite, ready, refused, micros.size(), pct(micros, 0.50),
                pct(micros, 0.99), micros.isEmpty() ? 0 : micros.get(micros.size() - 1) / 1000.0);
        db.start(primary);
        db.awaitSynchronousStandby(primary, Duration.ofSeconds(90));
    }

    /** Milliseconds from {@code since} until /readyz answers {@code code}. */
    private static long until(InProcessServer server, int code, long since) throws Exception {
        while (server.call("GET", "/readyz", null).statusCode() != code) {
            Thread.sleep(20);
        }
        return ms(since);
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    private static double pct(List<Long> sorted, double p) {
        return sorted.isEmpty() ? 0 : sorted.get((int) Math.min(sorted.size() - 1, Math.floor(p * sorted.size())))
                / 1000.0;
    }
}

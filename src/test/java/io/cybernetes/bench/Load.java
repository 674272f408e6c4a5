package io.cybernetes.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/** Closed-loop load: a number of clients each running operations back to back, timed one by one. */
final class Load {

    /** One operation, numbered from 1 across all clients. */
    interface Op {
        void run(long i) throws Exception;
    }

    /**
     * The rate over the whole run, the latencies of its operations (ms), and the process's
     * CPU time per operation (µs; server and load generator together, since they share the
     * JVM) — the figure that tells what the operation costs when the machine's share of
     * CPU varies from run to run: at most cores × 10⁶ / cpuMicros of them fit in a second.
     */
    record Result(double rate, double p50, double p99, long count, double cpuMicros) {
        void print(String what) {
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %,.0f |%n", what, rate, p50, p99, cpuMicros);
        }
    }

    /** The header of the table {@link Result#print} writes rows of. */
    static final String HEADER = "| what | ops/s | p50 ms | p99 ms | CPU µs/op |";
    static final String RULE = "|---|---:|---:|---:|---:|";

    /** The CPU time this process has used so far, in nanoseconds. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private Load() {
    }

    /** Runs for {@code duration}. */
    static Result timed(int clients, Duration duration, Op op) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        return run(clients, i -> System.nanoTime() < end, op);
    }

    /** Runs {@code n} operations. */
    static Result counted(int clients, long n, Op op) throws Exception {
        return run(clients, i -> i <= n, op);
    }

    /** The clients run operations numbered 1, 2, ... while {@code more} says so. */
    static Result run(int clients, LongPredicate more, Op op) throws Exception {
        AtomicLong seq = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long start = System.nanoTime();
        long cpu0 = processCpuNanos();
        List<Future<long[]>> futures = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            futures.add(pool.submit(() -> {
                long[] lat = new long[1024];
                int n = 0;
                for (long i = seq.incrementAndGet(); more.test(i); i = seq.incrementAndGet()) {
                    long t0 = System.nanoTime();
                    op.run(i);
                    if (n == lat.length) {
                        lat = Arrays.copyOf(lat, n * 2);
                    }
                    lat[n++] = System.nanoTime() - t0;
                }
                return Arrays.copyOf(lat, n);
            }));
        }
        try {
            List<long[]> all = new ArrayList<>();
            for (Future<long[]> f : futures) {
                all.add(f.get());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuMicros = (processCpuNanos() - cpu0) / 1e3;
            long[] merged = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            return new Result(merged.length / Math.max(seconds, 1e-9), WatchDelivery.ms(merged, 0.50),
                    WatchDelivery.ms(merged, 0.99), merged.length, cpuMicros / Math.max(1, merged.length));
        } finally {
            pool.shutdownNow();
        }
    }
}

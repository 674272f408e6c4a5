package io.cybernetes.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * How fast the machine is at this moment, apart from the server: SHA-256 over 128 MiB on one
 * thread, then on two at once (both cores), and a random walk through memory. Printed beside a
 * figure, it tells a slow machine (a slow probe) from a slow server (a probe as fast as ever); and
 * what the JVM did while the figure was taken ({@link #jvmWork}, {@link #printJvmWork}): its
 * collector and compiler, the CPU of its threads, and the machine's busy, idle and stolen time.
 */
final class MachineProbe {

    private static final int MIB = 128;

    private MachineProbe() {
    }

    /** Runs the probe (twice each way, the faster kept) and prints it, labelled. */
    static void print(String when) {
        double one = Math.min(digestMillis(), digestMillis());
        double two = Math.min(twoAtOnce(), twoAtOnce());
        System.out.printf(Locale.ROOT, "machine probe %s: SHA-256 of %d MiB in %.0f ms on one thread, %.0f ms on each"
                + " of two at once; memory %.0f ns a random read%n", when, MIB, one, two, memoryNanos());
    }

    /**
     * The JVM's own work so far, for {@link #printJvmWork}: garbage collections, their pause time and the JIT
     * compilers' time (ms), and the CPU time of its threads grouped by name (digits left out, so a pool's threads
     * count as one: nanoseconds).
     */
    record JvmWork(long collections, long pauseMillis, long jitMillis, Map<String, Long> cpuByThreads,
                   long processCpuNanos, long[] machineTicks) {
    }

    /** How much compiled code the JVM holds, by code heap (profiled code is C1's, non-profiled C2's). */
    private static String codeHeaps() {
        StringBuilder out = new StringBuilder("code heaps");
        for (java.lang.management.MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getName().startsWith("CodeHeap")) {
                out.append(String.format(Locale.ROOT, " %s %.1f MiB;", pool.getName().substring("CodeHeap ".length()),
                        pool.getUsage().getUsed() / 1048576.0));
            }
        }
        return out.toString();
    }

    /**
     * The machine's CPU time so far from {@code /proc/stat}, in ticks: busy (user, nice, system, interrupts), idle
     * (with I/O wait), stolen by the hypervisor; empty where there is no such file.
     */
    private static long[] machineTicks() {
        try {
            String[] f = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0).trim()
                    .split("\\s+");
            long busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]);
            return new long[] {busy, Long.parseLong(f[4]) + Long.parseLong(f[5]), Long.parseLong(f[8])};
        } catch (java.io.IOException | RuntimeException e) {
            return new long[0];
        }
    }

    static JvmWork jvmWork() {
        long n = 0;
        long ms = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
            ms += Math.max(0, gc.getCollectionTime());
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, Long> cpu = new HashMap<>();
        for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            long nanos = t == null ? -1 : threads.getThreadCpuTime(t.getThreadId());
            if (nanos > 0) {
                cpu.merge(t.getThreadName().replaceAll("[0-9]+", "#"), nanos, Long::sum);
            }
        }
        long process = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
        return new JvmWork(n, ms, ManagementFactory.getCompilationMXBean().getTotalCompilationTime(), cpu, process,
                machineTicks());
    }

    /**
     * Prints the JVM's work since {@code before} ({@link #jvmWork}), labelled, and where the CPU went: microseconds
     * per operation for the thread groups that took the most, all the JVM's threads together and the whole process.
     */
    static void printJvmWork(String what, JvmWork before, long ops) {
        JvmWork now = jvmWork();
        System.out.printf(Locale.ROOT, "%s: %d garbage collections, %d ms of pauses; JIT compiling %d ms; %s%n", what,
                now.collections() - before.collections(), now.pauseMillis() - before.pauseMillis(),
                now.jitMillis() - before.jitMillis(), codeHeaps());
        Map<String, Long> spent = new HashMap<>();
        now.cpuByThreads().forEach((group, nanos) ->
                spent.put(group, nanos - before.cpuByThreads().getOrDefault(group, 0L)));
        StringBuilder line = new StringBuilder("  CPU µs per operation by thread:");
        spent.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(8)
                .forEach(e -> line.append(String.format(Locale.ROOT, " %s %.0f;", e.getKey(),
                        e.getValue() / 1e3 / Math.max(1, ops))));
        long threads = spent.values().stream().mapToLong(Long::longValue).sum();
        long process = now.processCpuNanos() - before.processCpuNanos();
        System.out.printf(Locale.ROOT, "%s all threads %.0f; the process %.0f (the rest is the collector's, the"
                + " compiler's and threads that ended meanwhile)%n", line, threads / 1e3 / Math.max(1, ops),
                process / 1e3 / Math.max(1, ops));
        if (now.machineTicks().length == 3 && before.machineTicks().length == 3) {
            double[] d = new double[3];
            for (int i = 0; i < 3; i++) {
                d[i] = now.machineTicks()[i] - before.machineTicks()[i];
            }
            double all = Math.max(1, d[0] + d[1] + d[2]);
            System.out.printf(Locale.ROOT, "  the machine meanwhile (/proc/stat): busy %.1f %%, idle %.1f %%, stolen by"
                    + " the hypervisor %.1f %%%n", 100 * d[0] / all, 100 * d[1] / all, 100 * d[2] / all);
        }
    }

    /** A random cycle through 128 MiB, outside the heap (so the probe leaves the collector nothing to do). */
    private static java.nio.IntBuffer cycle;

    /**
     * Nanoseconds a read takes that misses every cache: a walk of a random cycle through 128 MiB, each step
     * depending on the last (the SHA-256 probe runs in the caches, so it misses a machine whose memory is busy).
     */
    private static double memoryNanos() {
        int n = 32 << 20;
        if (cycle == null) {
            java.nio.IntBuffer next = java.nio.ByteBuffer.allocateDirect(4 * n).order(java.nio.ByteOrder.nativeOrder())
                    .asIntBuffer();
            for (int i = 0; i < n; i++) {
                next.put(i, i);
            }
            java.util.SplittableRandom random = new java.util.SplittableRandom(42);
            for (int i = n - 1; i > 0; i--) { // Sattolo: one cycle through every slot
                int j = random.nextInt(i);
                int t = next.get(i);
                next.put(i, next.get(j));
                next.put(j, t);
            }
            cycle = next;
        }
        int steps = 2_000_000;
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            int at = 0;
            long t0 = System.nanoTime();
            for (int i = 0; i < steps; i++) {
                at = cycle.get(at);
            }
            // "at" is used (it is never -1), so the walk cannot be left out as dead code
            best = Math.min(best, (System.nanoTime() - t0) / (double) steps + (at == -1 ? 1 : 0));
        }
        return best;
    }

    private static double twoAtOnce() {
        CompletableFuture<Double> a = CompletableFuture.supplyAsync(MachineProbe::digestMillis);
        CompletableFuture<Double> b = CompletableFuture.supplyAsync(MachineProbe::digestMillis);
        return Math.max(a.join(), b.join());
    }

    private static double digestMillis() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] block = new byte[1 << 20];
            for (int i = 0; i < block.length; i++) {
                block[i] = (byte) i;
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < MIB; i++) {
                sha.update(block);
            }
            sha.digest();
            return (System.nanoTime() - t0) / 1e6;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

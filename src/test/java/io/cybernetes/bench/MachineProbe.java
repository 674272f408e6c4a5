package io.cybernetes.bench;

import java.security.MessageDigest;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * How fast the machine is at this moment, apart from the server: SHA-256 over 128 MiB on one
 * thread, then on two at once (both cores). Printed beside a figure, it tells a slow machine
 * (a slow probe) from a slow server (a probe as fast as ever).
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
                + " of two at once%n", when, MIB, one, two);
    }

    /**
     * The JVM's own work so far: garbage collections, their pause time (ms) and the JIT compilers' time (ms),
     * for {@link #printJvmWork}.
     */
    static long[] jvmWork() {
        long n = 0;
        long ms = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : java.lang.management.ManagementFactory
                .getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
            ms += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {n, ms, java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime()};
    }

    /** Prints the JVM's work since {@code before} ({@link #jvmWork}), labelled. */
    static void printJvmWork(String what, long[] before) {
        long[] now = jvmWork();
        System.out.printf(Locale.ROOT, "%s: %d garbage collections, %d ms of pauses; JIT compiling %d ms%n", what,
                now[0] - before[0], now[1] - before[1], now[2] - before[2]);
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

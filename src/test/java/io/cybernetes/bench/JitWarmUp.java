package io.cybernetes.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Warming a server up before it is measured: rounds of load, each printed with the share of its time the JVM's JIT
 * compiler was busy, until that share has been under a tenth in two rounds running. On two cores a server just
 * started compiles for one to two minutes under load and serves at a quarter to a half of its settled rate
 * meanwhile, and a single quiet round was often followed by busier ones.
 */
final class JitWarmUp {

    /** Rounds in a row with the compiler busy under a tenth of the time. */
    private static final int QUIET_ROUNDS = 2;

    private JitWarmUp() {
    }

    /** One round of load, numbered from 1; says what it did. */
    interface Round {
        String run(int number) throws Exception;
    }

    /** Runs rounds until the JIT settles, {@code maxRounds} of them at most. */
    static void run(String what, int maxRounds, Round round) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        int quiet = 0;
        for (int r = 1; r <= maxRounds; r++) {
            long compiled = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            String did = round.run(r);
            double busy = (jit.getTotalCompilationTime() - compiled) / ((System.nanoTime() - t0) / 1e6);
            System.out.printf(Locale.ROOT, "%s round %d: %s; JIT compiling %.0f %% of the time%n", what, r, did,
                    busy * 100);
            quiet = busy < 0.1 ? quiet + 1 : 0;
            if (quiet == QUIET_ROUNDS) {
                return;
            }
        }
    }
}

package io.cybernetes.store.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.cybernetes.store.StoreProperties;
import org.flywaydb.core.Flyway;

import java.io.PrintStream;
import java.time.Duration;

/**
 * Child process of {@link H2DurabilityTest}: writes to an H2 file database from four
 * threads and prints {@code ack <key> <revision>} for every acknowledged write, until
 * it is killed.
 */
public final class CrashWriter {

    private CrashWriter() {
    }

    public static void main(String[] args) throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[0]);
        cfg.setUsername("sa");
        cfg.setPassword("");
        HikariDataSource ds = new HikariDataSource(cfg);
        Flyway.configure().dataSource(ds).locations("classpath:db/migration").load().migrate();
        SqlStore store = new SqlStore(ds, new StoreProperties(64, Duration.ofMinutes(5), 1000, Duration.ofHours(1),
                1000, 100, Duration.ofMillis(100)), null);
        PrintStream out = System.out;
        for (int t = 0; t < 4; t++) {
            int thread = t;
            Thread w = new Thread(() -> {
                for (int i = 0; ; i++) {
                    String key = "crash/t" + thread + "-" + i;
                    long rev = store.create(key, StoreContractTest.obj("t" + thread + "-" + i, "v")).modRevision();
                    synchronized (out) {
                        out.println("ack " + key + " " + rev);
                        out.flush();
                    }
                }
            });
            w.start();
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}

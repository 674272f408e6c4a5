package io.cybernetes.store.internal;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import java.time.Duration;

/**
 * Database faults under a steady load ({@link FaultLoad}, the store as the judge): the
 * database cut off for a while, or its connections dropped mid-transaction. The failover of a
 * replicated PostgreSQL is {@link PatroniFailoverTest}; a killed replica {@link ReplicaKillTest}.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultSuiteTest {

    private ProxiedServer server;

    @BeforeAll
    void start() throws Exception {
        server = ProxiedServer.start("faults", Duration.ofSeconds(1));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theDatabaseCutOffForTwentySeconds() throws Exception {
        FaultLoad load = FaultLoad.start(server, "cutoff", 3, 2);
        Thread.sleep(2000);
        server.proxy.cut();
        Thread.sleep(20_000);
        server.proxy.restore();
        load.judge("database cut off for 20 s", System.nanoTime());
    }

    @Test
    void connectionsDroppedMidTransaction() throws Exception {
        FaultLoad load = FaultLoad.start(server, "dropped", 3, 1);
        for (int i = 0; i < 5; i++) {
            Thread.sleep(700);
            server.proxy.cut();
            server.proxy.restore();
        }
        load.judge("connections dropped 5 times", System.nanoTime());
    }
}

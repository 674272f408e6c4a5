package io.cybernetes.store.internal;

import io.cybernetes.testing.PatroniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIf;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fault suite's failover: a server on a replicated PostgreSQL (Patroni, a synchronous
 * standby) through a multi-host JDBC URL with {@code targetServerType=primary}, under the
 * steady load of {@link FaultLoad}, loses the primary's host. The standby is promoted, the
 * server finds it by itself, and the store as the judge finds no acknowledged write lost, no
 * lost update and every watch event once, in order. The old primary then comes back as the
 * standby.
 */
@EnabledIf("io.cybernetes.testing.PatroniCluster#available")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PatroniFailoverTest {

    private PatroniCluster db;
    private InProcessServer server;

    @BeforeAll
    void start() throws Exception {
        db = new PatroniCluster();
        db.createDatabase("cybernetes");
        server = new InProcessServer("patroni", db.jdbcUrl("cybernetes"), Duration.ofSeconds(2));
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void thePrimaryKilledTheStandbyIsPromotedAndNothingAcknowledgedIsLost() throws Exception {
        FaultLoad load = FaultLoad.start(server, "failover", 3, 2);
        Thread.sleep(2000);
        int primary = db.primary();
        assertThat(primary).as("a primary").isNotNegative();
        long killedAt = db.kill(primary);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> server.call("GET", "/readyz", null).statusCode() == 500);
        long notReady = (System.nanoTime() - killedAt) / 1_000_000;
        db.awaitPrimary(1 - primary, Duration.ofSeconds(60));
        long promoted = (System.nanoTime() - killedAt) / 1_000_000;
        load.judge("primary killed, standby promoted", killedAt);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> server.call("GET", "/readyz", null).statusCode() == 200);
        System.out.printf("failover: /readyz not ready %d ms after the primary was killed, the standby promoted"
                + " after %d ms%n", notReady, promoted);

        // the lost host comes back: it follows the new primary, and writes go on
        db.start(primary);
        db.awaitSynchronousStandby(primary, Duration.ofSeconds(90));
        assertThat(server.call("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"after-rejoin\"}}")
                .statusCode()).isEqualTo(201);
    }
}

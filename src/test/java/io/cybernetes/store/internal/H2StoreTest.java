package io.cybernetes.store.internal;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** The store contract on embedded H2 (a file database, as the default configuration runs it). */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@TestPropertySource(properties = {
        "spring.datasource.url=jdbc:h2:retry:./target/test-data/h2-store/db;WRITE_DELAY=0;QUERY_CACHE_SIZE=64",
        "cybernetes.auth.data-dir=./target/test-data/h2-store",
        "cybernetes.controllers.enabled=false",
        "cybernetes.scheduler.enabled=false",
        "cybernetes.nodes.count=0"})
class H2StoreTest extends StoreContractTest {

    /**
     * A thread interrupted while it reads or writes (a component stopping its workers) must
     * not take the database down for everyone: a plain file channel closes when its thread is
     * interrupted, and H2 with it; the default configuration's {@code retry:} file system
     * opens it again.
     */
    @Autowired
    DataSource dataSource;

    @Autowired
    H2FileKeeper fileKeeper;

    @Test
    void theFileIsKeptCompactWhileTheStoreRuns() throws Exception {
        assertThat(fileKeeper.running()).isTrue();
        try (Connection c = dataSource.getConnection()) {
            assertThat(H2FileKeeper.h2File(c)).isNotNull();
        }
        assertThat(fileKeeper.keep()).isTrue();
    }

    @Test
    void callersInterruptedWhileTheyUseTheStoreLeaveItWorking() throws Exception {
        String run = "interrupted/" + java.util.UUID.randomUUID() + "/";
        store.create(run + "a", obj("a", "x".repeat(2000)));
        Thread t = new Thread(() -> {
            for (int i = 0; i < 5; i++) {
                Thread.currentThread().interrupt();
                // a checkpoint writes and syncs the file on the calling thread, which is interrupted
                try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                    s.execute("CHECKPOINT SYNC");
                } catch (SQLException | RuntimeException e) {
                    // the interrupted call itself may fail; what matters is that the next ones work
                }
            }
        });
        t.start();
        t.join();
        assertThat(store.create(run + "after", obj("after", "z"))).isNotNull();
        assertThat(store.get(run + "a")).isPresent();
        assertThat(store.get(run + "after")).isPresent();
    }
}

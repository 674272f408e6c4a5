package io.cybernetes.store.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store contract on PostgreSQL, at the URL in {@code CYBERNETES_TEST_POSTGRES_URL}
 * (user {@code CYBERNETES_TEST_POSTGRES_USER}, default postgres). {@code .ci/run}
 * starts a server and fails the build if these tests were skipped.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
class PostgresStoreTest extends StoreContractTest {

    static final String URL = "CYBERNETES_TEST_POSTGRES_URL";

    @Autowired
    H2FileKeeper fileKeeper;

    @Test
    void noH2HousekeepingRunsOnPostgres() throws Exception {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> !fileKeeper.running());
        assertThat(fileKeeper.keep()).isFalse();
    }

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresTestDatabase.register(registry, "pg-store");
    }
}

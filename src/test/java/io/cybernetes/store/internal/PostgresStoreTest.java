package io.cybernetes.store.internal;

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The store contract on PostgreSQL, at the URL in {@code CYBERNETES_TEST_POSTGRES_URL}
 * (user {@code CYBERNETES_TEST_POSTGRES_USER}, default postgres). {@code .ci/run}
 * starts a server and fails the build if these tests were skipped.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
class PostgresStoreTest extends StoreContractTest {

    static final String URL = "CYBERNETES_TEST_POSTGRES_URL";

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) {
        PostgresTestDatabase.register(registry, "pg-store");
    }
}

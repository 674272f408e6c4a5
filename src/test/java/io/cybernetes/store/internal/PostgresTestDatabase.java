package io.cybernetes.store.internal;

import org.springframework.test.context.DynamicPropertyRegistry;

/** The PostgreSQL server the tests use, from the environment. */
final class PostgresTestDatabase {

    private PostgresTestDatabase() {
    }

    static String url() {
        return System.getenv(PostgresStoreTest.URL);
    }

    static String user() {
        String u = System.getenv("CYBERNETES_TEST_POSTGRES_USER");
        return u == null || u.isEmpty() ? "postgres" : u;
    }

    static void register(DynamicPropertyRegistry registry, String dataDir) {
        registry.add("spring.datasource.url", PostgresTestDatabase::url);
        registry.add("spring.datasource.username", PostgresTestDatabase::user);
        registry.add("spring.datasource.password", () -> "");
        registry.add("cybernetes.auth.data-dir", () -> "./target/test-data/" + dataDir);
        // the store's tests want the store alone: controllers here would act on the replica tests' objects
        registry.add("cybernetes.controllers.enabled", () -> "false");
        registry.add("cybernetes.scheduler.enabled", () -> "false");
        registry.add("cybernetes.nodes.count", () -> "0");
    }
}

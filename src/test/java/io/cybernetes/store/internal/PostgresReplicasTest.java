package io.cybernetes.store.internal;

import io.cybernetes.CybernetesApplication;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.Watch;
import io.cybernetes.store.WatchEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Two application contexts on one PostgreSQL database see each other's writes through their watches, in order. */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
class PostgresReplicasTest {

    private static ConfigurableApplicationContext replica(String name) {
        return new SpringApplicationBuilder(CybernetesApplication.class)
                .web(WebApplicationType.NONE)
                // command-line arguments: they take precedence over config/application.yml
                .run("--spring.datasource.url=" + PostgresTestDatabase.url(),
                        "--spring.datasource.username=" + PostgresTestDatabase.user(),
                        "--spring.datasource.password=",
                        "--cybernetes.store.poll-interval=50ms",
                        "--cybernetes.auth.data-dir=./target/test-data/replica-" + name,
                        "--spring.main.banner-mode=off");
    }

    @Test
    void writesThroughEitherReplicaReachWatchersOnBothInRevisionOrder() throws Exception {
        try (ConfigurableApplicationContext a = replica("a"); ConfigurableApplicationContext b = replica("b")) {
            assertThat(a.getEnvironment().getProperty("spring.datasource.url")).startsWith("jdbc:postgresql:");
            Store sa = a.getBean(Store.class);
            Store sb = b.getBean(Store.class);
            String prefix = "replicas/" + System.nanoTime() + "/";
            long start = Math.max(sa.currentRevision(), sb.currentRevision());
            try (Watch wa = sa.watch(prefix, start); Watch wb = sb.watch(prefix, start)) {
                List<Long> written = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    Store via = i % 2 == 0 ? sa : sb;
                    StoredObject o = via.create(prefix + i, StoreContractTest.obj("o" + i, "v"));
                    written.add(o.modRevision());
                }
                assertThat(StoreContractTest.take(wa, 20)).extracting(WatchEvent::revision)
                        .containsExactlyElementsOf(written);
                assertThat(StoreContractTest.take(wb, 20)).extracting(WatchEvent::revision)
                        .containsExactlyElementsOf(written);
            }
        }
    }
}

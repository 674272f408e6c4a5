package io.cybernetes.store.internal;

import io.cybernetes.store.StorageException;
import io.cybernetes.store.StoreProperties;
import io.cybernetes.store.ValueTransformer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import io.cybernetes.api.PrometheusText;

import javax.sql.DataSource;
import java.time.Duration;

/** Wires the SQL store and runs its compaction on a schedule. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StoreProperties.class)
@EnableScheduling
class StoreConfiguration {

    /** With the application's {@link ValueTransformer} (encryption at rest), when it has one. */
    @Bean(destroyMethod = "close")
    SqlStore store(DataSource dataSource, StoreProperties props, RevisionLogRepository logRepository,
                   ObjectProvider<ValueTransformer> transformer) {
        return new SqlStore(dataSource, props, logRepository, transformer.getIfAvailable(() -> ValueTransformer.IDENTITY));
    }

    /** The store's request latencies, at {@code /metrics}. */
    @Bean
    PrometheusText.Source storeMetrics(SqlStore store) {
        return store::collect;
    }

    @Bean
    Compactor compactor(SqlStore store) {
        return new Compactor(store);
    }

    /** Keeps an embedded H2 file compact (nothing on PostgreSQL, which keeps its files itself). */
    @Bean(destroyMethod = "close")
    H2FileKeeper h2FileKeeper(DataSource dataSource,
                              @Value("${cybernetes.store.file-housekeeping-interval:25ms}") Duration interval) {
        return new H2FileKeeper(dataSource, interval).start();
    }

    /**
     * Runs {@link SqlStore#compact()} every {@code cybernetes.store.compaction-interval}. While
     * the database is out of reach compaction waits for the next time (the store's tailer
     * already says that the database does not answer).
     */
    static final class Compactor {
        private static final Logger log = LoggerFactory.getLogger(Compactor.class);
        private final SqlStore store;

        Compactor(SqlStore store) {
            this.store = store;
        }

        @Scheduled(fixedDelayString = "${cybernetes.store.compaction-interval:30s}",
                initialDelayString = "${cybernetes.store.compaction-interval:30s}")
        void compact() {
            try {
                store.compact();
            } catch (StorageException e) {
                log.info("compaction skipped: {}", e.getMessage());
            }
        }
    }
}

package io.cybernetes.store;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * Settings of the store, documented in {@code config/application.yml}.
 *
 * @param maxBatch              most writes committed in one transaction (group commit)
 * @param compactionWindow      revisions younger than this are kept
 * @param compactionMinRevisions the last this many revisions are always kept
 * @param compactionInterval    how often the compactor runs
 * @param watchCacheEvents      events the per-process watch cache keeps in memory
 * @param watcherQueue          events buffered per watcher before a slow one is ended
 * @param pollInterval          how often the revision log is tailed for other replicas' writes
 */
@ConfigurationProperties("cybernetes.store")
public record StoreProperties(
        @DefaultValue("256") int maxBatch,
        @DefaultValue("5m") Duration compactionWindow,
        @DefaultValue("1000") long compactionMinRevisions,
        @DefaultValue("30s") Duration compactionInterval,
        @DefaultValue("50000") int watchCacheEvents,
        @DefaultValue("2000") int watcherQueue,
        @DefaultValue("100ms") Duration pollInterval) {
}

package io.cybernetes.store.internal;

import io.cybernetes.api.Json;
import io.cybernetes.api.PrometheusText;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.ListResult;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.StorageException.Code;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoreProperties;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.ValueTransformer;
import io.cybernetes.store.Watch;
import io.cybernetes.store.WatchEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The SQL-backed {@link Store}: writes through the {@link GroupCommitter}, single reads
 * from the current-objects table, lists and watches from the {@link WatchCache}, which
 * a tailer thread keeps up with the revision log (this process's commits directly,
 * other replicas' by polling).
 */
public final class SqlStore implements Store, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SqlStore.class);
    private static final long WRITE_TIMEOUT_SECONDS = 60;
    private static final long CACHE_WAIT_MILLIS = 5_000;
    /** The database counts as unreachable when the tailer has not reached it for this long. */
    private static final long HEALTH_WINDOW_NANOS = 2_000_000_000L;
    /** Revisions compacted in one transaction. */
    private static final long COMPACTION_STEP = 2_000;

    private final DataSource dataSource;
    private final StoreProperties props;
    private final RevisionLogRepository logRepository;
    private final ValueTransformer transformer;
    private final WatchCache cache;
    private final GroupCommitter committer;
    private final BlockingQueue<List<WatchEvent>> localCommits = new LinkedBlockingQueue<>();
    private final Thread tailer;
    private volatile boolean running = true;
    /** When the tailer last reached the database, and what failed since (null: nothing). */
    private volatile long lastContactNanos = System.nanoTime();
    private volatile String lastProblem;

    public SqlStore(DataSource dataSource, StoreProperties props, RevisionLogRepository logRepository) {
        this(dataSource, props, logRepository, ValueTransformer.IDENTITY);
    }

    public SqlStore(DataSource dataSource, StoreProperties props, RevisionLogRepository logRepository,
                    ValueTransformer transformer) {
        this.dataSource = dataSource;
        this.props = props;
        this.logRepository = logRepository;
        this.transformer = transformer;
        this.cache = new WatchCache(props.watchCacheEvents(), props.watcherQueue());
        logDatabase(dataSource);
        resync();
        this.committer = new GroupCommitter(dataSource, props.maxBatch(), transformer,
                key -> cache.latest(key).orElse(null), localCommits::add);
        this.tailer = new Thread(this::tail, "store-log-tailer");
        this.tailer.setDaemon(true);
        this.tailer.start();
    }

    /** Says at start-up which database this is (embedded H2 or a PostgreSQL server), and where. */
    private static void logDatabase(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            java.sql.DatabaseMetaData md = c.getMetaData();
            String url = md.getURL() == null ? "" : md.getURL().replaceAll("[?;].*$", "");
            log.info("Store: {} {} at {} (user {})", md.getDatabaseProductName(), md.getDatabaseProductVersion(), url,
                    md.getUserName());
        } catch (SQLException e) {
            throw new IllegalStateException("the database cannot be reached: " + e.getMessage(), e);
        }
    }

    GroupCommitter committer() {
        return committer;
    }

    // ---- writes

    @Override
    public StoredObject create(String key, ObjectNode value) {
        return write(WriteOp.of(WriteOp.Kind.CREATE, key, value, 0, null));
    }

    @Override
    public StoredObject update(String key, ObjectNode value, long expectedModRevision, String expectedUid) {
        return write(WriteOp.of(WriteOp.Kind.UPDATE, key, value, expectedModRevision, expectedUid));
    }

    @Override
    public StoredObject delete(String key, long expectedModRevision, String expectedUid) {
        return write(WriteOp.of(WriteOp.Kind.DELETE, key, null, expectedModRevision, expectedUid));
    }

    private StoredObject write(WriteOp op) {
        long started = System.nanoTime();
        try {
            committer.submit(op);
            return await(op);
        } finally {
            timed(op.kind().name().toLowerCase(), op.key(), started);
        }
    }

    /** etcd_request_duration_seconds, as the API server reports its store's requests. */
    private final PrometheusText.Histograms durations = new PrometheusText.Histograms(new double[] {0.005, 0.025, 0.05,
        0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}, "operation", "type");

    private void timed(String operation, String key, long startedNanos) {
        durations.observe((System.nanoTime() - startedNanos) / 1e9, operation, resourceOf(key));
    }

    /** The resource a key is under ({@code core/pods/ns/p} is pods; {@code apps/deployments/...} deployments.apps). */
    private static String resourceOf(String key) {
        String[] parts = key.split("/", 3);
        if (parts.length < 2) {
            return key;
        }
        return parts[0].equals("core") ? parts[1] : parts[1] + "." + parts[0];
    }

    /** The store's request latencies under the name Kubernetes gives its store's (etcd's). */
    public void collect(PrometheusText out) {
        durations.writeTo(out, "etcd_request_duration_seconds", "[ALPHA] Etcd request latency in seconds for each"
                + " operation and object type.");
    }

    @Override
    public long count(String prefix) {
        return cache.count(prefix);
    }

    static StoredObject await(WriteOp op) {
        try {
            return op.result().get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StorageException se) {
                throw se;
            }
            throw new StorageException(Code.INTERNAL, op.key(), String.valueOf(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new StorageException(Code.UNAVAILABLE, op.key(), "the write was not committed within "
                    + WRITE_TIMEOUT_SECONDS + "s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(Code.UNAVAILABLE, op.key(), "interrupted while waiting for the commit");
        }
    }

    // ---- reads

    @Override
    public Optional<StoredObject> get(String key) {
        long started = System.nanoTime();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT c.create_revision, c.mod_revision, l.obj_value FROM kv_current c"
                             + " JOIN kv_log l ON l.revision = c.mod_revision WHERE c.obj_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                String stored = rs.getString(3);
                String json = transformer.fromStorage(key, stored);
                return Optional.of(new StoredObject(key, rs.getLong(1), rs.getLong(2), Json.parseStored(json), json,
                        transformer.stale(key, stored)));
            }
        } catch (SQLException e) {
            throw unavailable(key, e);
        } finally {
            timed("get", key, started);
        }
    }

    @Override
    public Optional<StoredObject> getCached(String key) {
        return cache.latest(key);
    }

    @Override
    public long currentRevision() {
        return readCounter("revision");
    }

    @Override
    public long compactedRevision() {
        return readCounter("compacted_revision");
    }

    private long readCounter(String column) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM revision_counter WHERE id = 1");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw unavailable("", e);
        }
    }

    @Override
    public long cachedRevision() {
        return cache.revision();
    }

    @Override
    public ListResult list(ListRequest req) {
        long started = System.nanoTime();
        try {
            return listAt(req);
        } finally {
            timed("list", req.prefix(), started);
        }
    }

    private ListResult listAt(ListRequest req) {
        long at = switch (req.match()) {
            case ANY -> cache.revision();
            case LATEST -> {
                long latest = currentRevision();
                awaitCache(latest, req.prefix());
                yield latest;
            }
            case NOT_OLDER_THAN -> {
                awaitCache(req.revision(), req.prefix());
                yield cache.revision();
            }
            case EXACT -> {
                awaitCache(req.revision(), req.prefix());
                yield req.revision();
            }
        };
        return cache.list(req, at);
    }

    private void awaitCache(long revision, String key) {
        try {
            if (!cache.awaitRevision(revision, CACHE_WAIT_MILLIS)) {
                throw new StorageException(Code.TOO_LARGE_REVISION, key, "Too large resource version: " + revision
                        + ", current: " + cache.revision());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(Code.UNAVAILABLE, key, "interrupted");
        }
    }

    @Override
    public Watch watch(String prefix, long afterRevision) {
        awaitCache(afterRevision, prefix);
        for (int attempt = 0; ; attempt++) {
            long oldest = cache.oldestRevision();
            if (afterRevision >= oldest) {
                try {
                    return cache.watch(prefix, afterRevision);
                } catch (StorageException e) {
                    if (!e.isExpired() || attempt > 3) {
                        throw e;
                    }
                    continue;
                }
            }
            // Older than the cache: replay from the revision log when compaction has not reached it.
            long compacted = compactedRevision();
            if (afterRevision < compacted) {
                throw new StorageException(Code.EXPIRED, prefix, "too old resource version: " + afterRevision
                        + " (" + compacted + ")");
            }
            CacheWatcher w;
            try {
                w = cache.watch(prefix, oldest);
            } catch (StorageException e) {
                if (e.isExpired() && attempt < 3) {
                    continue;
                }
                throw e;
            }
            w.prepend(readLog(prefix, afterRevision, oldest));
            return w;
        }
    }

    private List<WatchEvent> readLog(String prefix, long after, long upTo) {
        List<WatchEvent> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT l.revision, l.obj_key, l.event_type, l.obj_value, p.obj_value"
                     + " FROM kv_log l LEFT JOIN kv_log p ON p.revision = l.prev_revision"
                     + " WHERE l.revision > ? AND l.revision <= ? ORDER BY l.revision")) {
            ps.setLong(1, after);
            ps.setLong(2, upTo);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String key = rs.getString(2);
                    if (!key.startsWith(prefix)) {
                        continue;
                    }
                    // a value this replica cannot read is left out, as the cache leaves it out
                    String value = readable(key, rs.getString(4));
                    if (value == null) {
                        continue;
                    }
                    String prev = rs.getString(5);
                    String prevValue = prev == null ? null : readable(key, prev);
                    out.add(new WatchEvent(WatchEvent.Type.valueOf(rs.getString(3)), rs.getLong(1), key,
                            Json.parseStored(value), prevValue == null ? null : Json.parseStored(prevValue)));
                }
            }
        } catch (SQLException e) {
            throw unavailable(prefix, e);
        }
        return out;
    }

    @Override
    public List<WatchEvent> history(String key) {
        return logRepository.findByKeyOrderByRevisionAsc(key).stream()
                .map(e -> {
                    String json = transformer.fromStorage(key, e.value());
                    return new WatchEvent(WatchEvent.Type.valueOf(e.eventType()), e.revision(), e.key(),
                            Json.parseStored(json), null, json);
                })
                .toList();
    }

    // ---- the tailer: keeps the cache up with the log

    private void tail() {
        long lastPoll = System.nanoTime();
        long pollNanos = props.pollInterval().toNanos();
        while (running) {
            try {
                List<WatchEvent> local = localCommits.poll(props.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                boolean applied = local != null && cache.apply(local);
                if (!applied || System.nanoTime() - lastPoll > pollNanos) {
                    catchUp();
                    lastPoll = System.nanoTime();
                    lastContactNanos = lastPoll;
                    if (lastProblem != null) {
                        log.info("the database answers again; the store has caught up to revision {}", cache.revision());
                        lastProblem = null;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                String problem = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
                if (lastProblem == null) {
                    log.warn("the database does not answer ({}); requests that need it are refused until it does",
                            problem);
                }
                lastProblem = String.valueOf(problem);
                sleepQuietly(500);
            }
        }
    }

    /**
     * Applies what the log holds after the cache's revision. The log's entry at that
     * revision is read with it and must be the one the cache applied: after a failover to a
     * database that lacks acknowledged writes (asynchronous replication, a restore from a
     * backup) the revisions are handed out again for other writes, and a cache that went on
     * would skip them. Then the cache is reloaded, its watches ended so that clients relist.
     */
    private void catchUp() {
        while (true) {
            long head = cache.revision();
            List<RawEntry> rows = new ArrayList<>();
            try (Connection c = dataSource.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT revision, obj_key, event_type, obj_value FROM kv_log"
                         + " WHERE revision >= ? ORDER BY revision LIMIT 1001")) {
                ps.setLong(1, head);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new RawEntry(rs.getLong(1), rs.getString(2), WatchEvent.Type.valueOf(rs.getString(3)),
                                rs.getString(4)));
                    }
                }
            } catch (SQLException e) {
                throw unavailable("", e);
            }
            WatchEvent applied = cache.headEvent();
            RawEntry logged = !rows.isEmpty() && rows.get(0).revision() == head ? rows.remove(0) : null;
            // a missing entry is no evidence when compaction may have taken it (superseded, and old enough)
            if (applied != null && !sameEntry(applied, logged) && (logged != null || head > compactedRevision())) {
                log.warn("the database's revision log does not hold revision {} as this replica applied it (the"
                        + " database lost acknowledged writes: a failover to a standby that lacked them, or a"
                        + " restore); reloading, and ending every watch so that clients list again", head);
                resync();
                return;
            }
            if (rows.isEmpty()) {
                return;
            }
            List<WatchEvent> events = new ArrayList<>(rows.size());
            for (RawEntry r : rows) {
                events.add(logged(r.revision(), r.key(), r.type(), r.stored()));
            }
            if (!cache.apply(events)) {
                log.warn("the revision log has a gap after revision {} (compacted past this replica); reloading",
                        cache.revision());
                resync();
                return;
            }
            if (events.size() < 1000) {
                return;
            }
        }
    }

    /** A row of the revision log as the database holds it. */
    private record RawEntry(long revision, String key, WatchEvent.Type type, String stored) {
    }

    /**
     * A log entry as the cache applies it. One whose value this replica cannot read (a key it is
     * not configured with) comes without an object: the cache forgets the key and tells no watcher.
     */
    private WatchEvent logged(long revision, String key, WatchEvent.Type type, String stored) {
        String json = readable(key, stored);
        if (json == null) {
            return new WatchEvent(type, revision, key, null, null, null);
        }
        return new WatchEvent(type, revision, key, Json.parseStored(json), null, json);
    }

    /** The JSON text of a stored value, or null (with a warning) when no configured provider reads it. */
    private String readable(String key, String stored) {
        try {
            return transformer.fromStorage(key, stored);
        } catch (StorageException e) {
            if (e.code() != Code.UNREADABLE) {
                throw e;
            }
            log.warn("{}; the object is left out of lists and watches here, and reading it answers 500, until a"
                    + " provider that reads it is configured", e.getMessage());
            return null;
        }
    }

    /**
     * Whether the log's entry is the event applied. The texts are compared as UTF-8 holds them:
     * a lone surrogate in a string the cache kept comes back from PostgreSQL as {@code ?}.
     */
    private boolean sameEntry(WatchEvent applied, RawEntry logged) {
        if (logged == null || !applied.key().equals(logged.key()) || applied.type() != logged.type()) {
            return false;
        }
        String json;
        try {
            json = transformer.fromStorage(logged.key(), logged.stored());
        } catch (StorageException unreadable) {
            return false;
        }
        return asUtf8(applied.jsonText()).equals(asUtf8(json));
    }

    private static String asUtf8(String text) {
        return new String(text.getBytes(java.nio.charset.StandardCharsets.UTF_8), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Loads a consistent snapshot of all current objects and the revision it was read at. */
    private void resync() {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                long revision;
                try (PreparedStatement ps = c.prepareStatement("SELECT revision FROM revision_counter WHERE id = 1");
                     ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    revision = rs.getLong(1);
                }
                List<StoredObject> all = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT c.obj_key, c.create_revision, c.mod_revision, l.obj_value FROM kv_current c"
                                + " JOIN kv_log l ON l.revision = c.mod_revision");
                     ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String key = rs.getString(1);
                        String json = readable(key, rs.getString(4));
                        if (json != null) {
                            all.add(new StoredObject(key, rs.getLong(2), rs.getLong(3), Json.parseStored(json), json));
                        }
                    }
                }
                c.commit();
                cache.reset(all, revision);
            } finally {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw unavailable("", e);
        }
    }

    // ---- compaction

    /**
     * Deletes superseded revisions older than the window, keeping at least the last
     * {@code compactionMinRevisions}. Returns the new compacted revision (unchanged when nothing was due).
     */
    public long compact() {
        long now = System.currentTimeMillis();
        try (Connection c = dataSource.getConnection()) {
            long current;
            long compacted;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT revision, compacted_revision FROM revision_counter WHERE id = 1");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                current = rs.getLong(1);
                compacted = rs.getLong(2);
            }
            long byTime = 0;
            try (PreparedStatement ps = c.prepareStatement("SELECT MAX(revision) FROM kv_log WHERE created_at < ?")) {
                ps.setLong(1, now - props.compactionWindow().toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        byTime = rs.getLong(1);
                    }
                }
            }
            long cutoff = Math.min(byTime, current - props.compactionMinRevisions());
            if (cutoff <= compacted) {
                return compacted;
            }
            // Publish the compacted revision first, so nobody starts reading what is about to go.
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE revision_counter SET compacted_revision = ? WHERE id = 1 AND compacted_revision < ?")) {
                ps.setLong(1, cutoff);
                ps.setLong(2, cutoff);
                ps.executeUpdate();
            }
            // In short transactions of a few thousand revisions each: one statement over all of them
            // would hold its locks and undo log for seconds, and every write would queue behind it.
            int deleted = 0;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM kv_log WHERE revision > ? AND revision <= ?"
                    + " AND NOT EXISTS (SELECT 1 FROM kv_current c WHERE c.mod_revision = kv_log.revision)")) {
                for (long from = compacted; from < cutoff; from += COMPACTION_STEP) {
                    ps.setLong(1, from);
                    ps.setLong(2, Math.min(cutoff, from + COMPACTION_STEP));
                    deleted += ps.executeUpdate();
                }
            }
            log.debug("compacted the revision log up to {} ({} rows deleted)", cutoff, deleted);
            return cutoff;
        } catch (SQLException e) {
            throw unavailable("", e);
        }
    }

    private static StorageException unavailable(String key, SQLException e) {
        return new StorageException(Code.UNAVAILABLE, key, "the database is unavailable", e);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String databaseProblem() {
        long window = Math.max(HEALTH_WINDOW_NANOS, 3 * props.pollInterval().toNanos());
        if (System.nanoTime() - lastContactNanos <= window) {
            return null;
        }
        String problem = lastProblem;
        return problem != null ? problem : "no answer from the database for "
                + (System.nanoTime() - lastContactNanos) / 1_000_000 + " ms";
    }

    int watcherCount() {
        return cache.watcherCount();
    }

    @Override
    public void close() {
        committer.close();
        running = false;
        tailer.interrupt();
    }
}

package io.cybernetes.store.internal;

import io.cybernetes.api.Json;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.StorageException.Code;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.ValueTransformer;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * Commits writes in batches, one transaction per batch, on a single writer thread.
 *
 * <p>Each batch first locks the single revision-counter row, so batches of every
 * replica commit one after another and revisions are assigned in commit order with no
 * gaps. Within the batch each write checks its preconditions against the state left by
 * the writes before it; a write that fails its check is answered alone, the rest go on.
 * If the transaction itself fails, every write of the batch fails and nothing of it is
 * stored. Only the counter row is contended, once per batch rather than once per write.
 */
final class GroupCommitter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GroupCommitter.class);

    private final DataSource dataSource;
    private final int maxBatch;
    private final ValueTransformer transformer;
    /** The watch cache's latest object for a key (null when it has none), whose values spare reading the log. */
    private final java.util.function.Function<String, StoredObject> cache;
    private final Consumer<List<WatchEvent>> onCommit;
    private final BlockingQueue<List<WriteOp>> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean running = true;

    GroupCommitter(DataSource dataSource, int maxBatch, ValueTransformer transformer,
                   java.util.function.Function<String, StoredObject> cache, Consumer<List<WatchEvent>> onCommit) {
        this.dataSource = dataSource;
        this.cache = cache;
        this.maxBatch = maxBatch;
        this.transformer = transformer;
        this.onCommit = onCommit;
        this.writer = new Thread(this::run, "store-group-commit");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    void submit(WriteOp op) {
        submitTogether(List.of(op));
    }

    /** Enqueues writes so that they land in the same batch (used to test batch failure). */
    void submitTogether(List<WriteOp> ops) {
        if (!running) {
            for (WriteOp op : ops) {
                op.result().completeExceptionally(new StorageException(Code.UNAVAILABLE, op.key(), "the store is shutting down"));
            }
            return;
        }
        queue.add(ops);
    }

    private void run() {
        while (running || !queue.isEmpty()) {
            List<WriteOp> batch = new ArrayList<>();
            try {
                List<WriteOp> first = queue.poll(200, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.addAll(first);
                while (batch.size() < maxBatch) {
                    List<WriteOp> next = queue.poll();
                    if (next == null) {
                        break;
                    }
                    batch.addAll(next);
                }
                commit(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                // commit() answers its writes itself; this is the last resort, so that none waits forever
                // and the writer lives on (a driver's assertion on a dropped connection once ended it)
                log.error("group commit loop failed", e);
                for (WriteOp op : batch) {
                    op.result().completeExceptionally(new StorageException(Code.INTERNAL, op.key(),
                            "the write failed: " + e.getMessage(), e));
                }
            }
        }
    }

    /**
     * The state of one key as seen inside a batch; value null means absent, or (with {@code unreadable})
     * present but not readable with the configured providers.
     */
    private record Current(String uid, long createRevision, long modRevision, ObjectNode value, boolean inDatabase,
                           StorageException unreadable) {
        Current(String uid, long createRevision, long modRevision, ObjectNode value, boolean inDatabase) {
            this(uid, createRevision, modRevision, value, inDatabase, null);
        }
    }

    private void commit(List<WriteOp> batch) {
        List<WriteOp> applied = new ArrayList<>(batch.size());
        List<StoredObject> results = new ArrayList<>(batch.size());
        List<WatchEvent> events = new ArrayList<>(batch.size());
        boolean committing = false;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                long revision = lockCounter(c);
                Map<String, Current> state = loadCurrent(c, batch);
                Map<String, Current> original = new HashMap<>(state);
                long now = System.currentTimeMillis();
                try (PreparedStatement logInsert = c.prepareStatement(
                        "INSERT INTO kv_log (revision, obj_key, event_type, create_revision, prev_revision, created_at, obj_value)"
                                + " VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                    for (WriteOp op : batch) {
                        Current cur = state.get(op.key());
                        StorageException rejected = check(op, cur);
                        if (rejected != null) {
                            op.result().completeExceptionally(rejected);
                            continue;
                        }
                        long rev = ++revision;
                        ObjectNode stamped = (op.kind() == WriteOp.Kind.DELETE ? cur.value() : op.value()).deepCopy();
                        Json.child(stamped, "metadata").put("resourceVersion", Long.toString(rev));
                        long createRev = op.kind() == WriteOp.Kind.CREATE ? rev : cur.createRevision();
                        WatchEvent.Type type = switch (op.kind()) {
                            case CREATE -> WatchEvent.Type.ADDED;
                            case UPDATE -> WatchEvent.Type.MODIFIED;
                            case DELETE -> WatchEvent.Type.DELETED;
                        };
                        logInsert.setLong(1, rev);
                        logInsert.setString(2, op.key());
                        logInsert.setString(3, type.name());
                        logInsert.setLong(4, createRev);
                        if (cur != null && cur.value() != null) {
                            logInsert.setLong(5, cur.modRevision());
                        } else {
                            logInsert.setNull(5, java.sql.Types.BIGINT);
                        }
                        logInsert.setLong(6, now);
                        String json = Json.write(stamped);
                        logInsert.setString(7, transformer.toStorage(op.key(), json));
                        logInsert.addBatch();
                        boolean inDb = cur != null && cur.inDatabase();
                        state.put(op.key(), op.kind() == WriteOp.Kind.DELETE
                                ? new Current(null, 0, rev, null, inDb)
                                : new Current(uidOf(stamped), createRev, rev, stamped, inDb));
                        applied.add(op);
                        results.add(new StoredObject(op.key(), createRev, rev, stamped, json));
                        events.add(new WatchEvent(type, rev, op.key(), stamped, cur == null ? null : cur.value(), json));
                    }
                    if (applied.isEmpty()) {
                        c.rollback();
                        return;
                    }
                    logInsert.executeBatch();
                }
                writeCurrent(c, state, original);
                try (PreparedStatement ps = c.prepareStatement("UPDATE revision_counter SET revision = ? WHERE id = 1")) {
                    ps.setLong(1, revision);
                    ps.executeUpdate();
                }
                committing = true;
                c.commit();
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c, e);
                throw e;
            }
        } catch (SQLException | RuntimeException e) {
            // the database out of reach before the commit: nothing was stored, and the client may retry (503);
            // lost during the commit itself, the outcome is unknown (500), as etcd's is on a lost connection
            boolean unreachable = !committing && e instanceof SQLException se && isConnectionFailure(se);
            String outcome = "a batch of " + batch.size() + " writes " + (unreachable ? "could not reach the database"
                    : committing ? "failed while committing; whether it was stored is unknown"
                    : "failed and was rolled back, nothing of it was stored") + ": " + e.getMessage();
            log.warn(outcome);
            String message = unreachable ? "the database is unavailable; nothing of this write was stored" : outcome;
            for (WriteOp op : batch) {
                op.result().completeExceptionally(new StorageException(unreachable ? Code.UNAVAILABLE : Code.INTERNAL,
                        op.key(), message, e));
            }
            return;
        }
        try {
            onCommit.accept(events);
        } catch (RuntimeException e) {
            log.error("could not hand committed events to the watch cache; the tailer will read them", e);
        }
        for (int i = 0; i < applied.size(); i++) {
            applied.get(i).result().complete(results.get(i));
        }
    }

    /**
     * Whether the database could not be reached at all: no connection from the pool in time,
     * or one lost (SQL state class 08, connection exception).
     */
    static boolean isConnectionFailure(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLTransientConnectionException
                    || t instanceof java.sql.SQLNonTransientConnectionException
                    || t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Takes the revision counter's row lock (another replica's writer waits for this commit)
     * and reads the counter. The lock comes from an update that changes nothing rather than
     * SELECT ... FOR UPDATE, which H2 parses anew every time.
     */
    private static long lockCounter(Connection c) throws SQLException {
        try (PreparedStatement lock = c.prepareStatement("UPDATE revision_counter SET revision = revision WHERE id = 1")) {
            lock.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT revision FROM revision_counter WHERE id = 1");
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("revision_counter row is missing");
            }
            return rs.getLong(1);
        }
    }

    /** How many keys the statements that load a batch's keys ask for: a batch's keys are padded to one of these. */
    private static final int[] LOAD_SHAPES = {1, 4, 16, 64, 100};
    /** The current rows without their values, which the watch cache mostly has already. */
    private static final Map<Integer, String> ROWS_BY_SHAPE = byShape("SELECT obj_key, uid, create_revision,"
            + " mod_revision FROM kv_current WHERE obj_key IN (");
    /** The values of the rows the watch cache has not caught up with, from the revision log. */
    private static final Map<Integer, String> VALUES_BY_SHAPE = byShape("SELECT revision, obj_value FROM kv_log"
            + " WHERE revision IN (");

    private static Map<Integer, String> byShape(String head) {
        return java.util.Arrays.stream(LOAD_SHAPES).boxed().collect(java.util.stream.Collectors.toMap(n -> n,
                n -> head + String.join(",", java.util.Collections.nCopies(n, "?")) + ")"));
    }

    /** A current row, before its value is known. */
    private record Row(String key, String uid, long createRevision, long modRevision) {

        Current with(ObjectNode value, StorageException unreadable) {
            return new Current(uid, createRevision, modRevision, value, true, unreadable);
        }
    }

    /**
     * The state of the batch's keys: their current rows, with the value the watch cache holds at the row's
     * revision (the usual case: it follows this writer's commits closely), else the value the log holds.
     */
    private Map<String, Current> loadCurrent(Connection c, List<WriteOp> batch) throws SQLException {
        Map<String, Current> state = new HashMap<>();
        List<Object> keys = new ArrayList<>(batch.stream().map(WriteOp::key).distinct().toList());
        Map<Long, Row> uncached = new HashMap<>();
        select(c, ROWS_BY_SHAPE, keys, rs -> {
            Row row = new Row(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4));
            StoredObject cached = cache.apply(row.key());
            if (cached != null && cached.modRevision() == row.modRevision()) {
                state.put(row.key(), row.with(cached.value(), null));
            } else {
                uncached.put(row.modRevision(), row);
            }
        });
        if (!uncached.isEmpty()) {
            select(c, VALUES_BY_SHAPE, new ArrayList<>(uncached.keySet()), rs -> {
                Row row = uncached.get(rs.getLong(1));
                try {
                    state.put(row.key(), row.with(Json.parseStored(transformer.fromStorage(row.key(),
                            rs.getString(2))), null));
                } catch (StorageException unreadable) {
                    state.put(row.key(), row.with(null, unreadable));
                }
            });
            for (Row row : uncached.values()) {
                // compaction keeps a current row's revision: one missing is damage, never an absent object
                state.putIfAbsent(row.key(), row.with(null, new StorageException(Code.INTERNAL, row.key(),
                        "the revision log has no value for revision " + row.modRevision() + " of " + row.key())));
            }
        }
        return state;
    }

    private interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    /**
     * Runs the statement for the values in chunks, each padded to one of the few shapes (the last value again):
     * the same few statements every time, which the database keeps parsed, rather than one per batch size.
     */
    private static void select(Connection c, Map<Integer, String> byShape, List<Object> values, RowReader reader)
            throws SQLException {
        int most = LOAD_SHAPES[LOAD_SHAPES.length - 1];
        for (int from = 0; from < values.size(); from += most) {
            List<Object> chunk = values.subList(from, Math.min(values.size(), from + most));
            int shape = java.util.Arrays.stream(LOAD_SHAPES).filter(n -> n >= chunk.size()).findFirst().orElseThrow();
            try (PreparedStatement ps = c.prepareStatement(byShape.get(shape))) {
                for (int i = 0; i < shape; i++) {
                    ps.setObject(i + 1, chunk.get(Math.min(i, chunk.size() - 1)));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        reader.read(rs);
                    }
                }
            }
        }
    }

    private static StorageException check(WriteOp op, Current cur) {
        if (cur != null && cur.unreadable() != null) {
            return op.kind() == WriteOp.Kind.CREATE
                    ? new StorageException(Code.KEY_EXISTS, op.key(), "key exists: " + op.key()) : cur.unreadable();
        }
        boolean exists = cur != null && cur.value() != null;
        if (op.kind() == WriteOp.Kind.CREATE) {
            return exists ? new StorageException(Code.KEY_EXISTS, op.key(), "key exists: " + op.key()) : null;
        }
        if (!exists) {
            return new StorageException(Code.KEY_NOT_FOUND, op.key(), "key not found: " + op.key());
        }
        if (op.expectedModRevision() > 0 && op.expectedModRevision() != cur.modRevision()) {
            return new StorageException(Code.CONFLICT, op.key(), "the object has been modified; please apply your changes"
                    + " to the latest version and try again");
        }
        if (op.expectedUid() != null && !op.expectedUid().equals(cur.uid())) {
            return new StorageException(Code.CONFLICT, op.key(), "Precondition failed: UID in precondition: "
                    + op.expectedUid() + ", UID in object meta: " + cur.uid());
        }
        return null;
    }

    /** Writes the final state of each touched key once: insert, update or delete. */
    private static void writeCurrent(Connection c, Map<String, Current> state, Map<String, Current> original)
            throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO kv_current (obj_key, uid, create_revision, mod_revision) VALUES (?, ?, ?, ?)");
             PreparedStatement update = c.prepareStatement(
                     "UPDATE kv_current SET uid = ?, create_revision = ?, mod_revision = ? WHERE obj_key = ?");
             PreparedStatement delete = c.prepareStatement("DELETE FROM kv_current WHERE obj_key = ?")) {
            boolean ins = false;
            boolean upd = false;
            boolean del = false;
            for (Map.Entry<String, Current> e : new LinkedHashMap<>(state).entrySet()) {
                Current now = e.getValue();
                if (now == original.get(e.getKey())) {
                    continue;
                }
                if (now.value() == null) {
                    if (now.inDatabase()) {
                        delete.setString(1, e.getKey());
                        delete.addBatch();
                        del = true;
                    }
                } else if (now.inDatabase()) {
                    update.setString(1, now.uid());
                    update.setLong(2, now.createRevision());
                    update.setLong(3, now.modRevision());
                    update.setString(4, e.getKey());
                    update.addBatch();
                    upd = true;
                } else {
                    insert.setString(1, e.getKey());
                    insert.setString(2, now.uid());
                    insert.setLong(3, now.createRevision());
                    insert.setLong(4, now.modRevision());
                    insert.addBatch();
                    ins = true;
                }
            }
            if (del) {
                delete.executeBatch();
            }
            if (upd) {
                update.executeBatch();
            }
            if (ins) {
                insert.executeBatch();
            }
        }
    }

    private static String uidOf(ObjectNode value) {
        return Json.text(value, "metadata.uid");
    }

    @Override
    public void close() {
        running = false;
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<List<WriteOp>> left = new ArrayList<>();
        queue.drainTo(left);
        for (List<WriteOp> ops : left) {
            for (WriteOp op : ops) {
                op.result().completeExceptionally(new StorageException(Code.UNAVAILABLE, op.key(), "the store was shut down"));
            }
        }
    }
}

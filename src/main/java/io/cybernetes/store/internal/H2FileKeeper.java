package io.cybernetes.store.internal;

import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.db.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps an embedded H2 database file compact, which H2 does by itself only from a background
 * thread it starts when commits may be delayed.
 *
 * <p>H2 writes every commit as a new chunk, placed at the first hole in its file large enough
 * for it (found by scanning the file's blocks from the start); a chunk becomes a hole again once
 * none of its pages is live. Its housekeeping rewrites the few live pages of sparse chunks into
 * new ones, so that the old ones are freed. H2 starts the thread that does it only with
 * {@code WRITE_DELAY > 0}, when a commit returns before it is in the file; the store commits with
 * {@code WRITE_DELAY=0} (an acknowledged write is in the file), so without this nothing is ever
 * rewritten: the file grows by a chunk for every commit, most of it dead, and every commit's scan
 * walks further (after 200,000 small commits that scan was two thirds of the store's commit
 * thread). This rewrites sparse chunks in small rounds, under H2's store lock as H2 does, every
 * {@code interval} but for at most a tenth of the time (a round walks all of H2's chunks, which
 * are many while it catches up). On any other database it stops at once.
 */
final class H2FileKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(H2FileKeeper.class);

    /**
     * Chunks rewritten in one round, at most: H2's store lock is held meanwhile and commits wait for it (H2's own
     * housekeeping round rewrote a few MiB at a time, holding it for 60-150 ms).
     */
    static final int REWRITE_BYTES = 256 << 10;

    private final DataSource dataSource;
    private final Duration interval;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** The database's store as last looked up (the keeper's thread's, and a test's calling {@link #keep}). */
    private volatile H2File file;

    H2FileKeeper(DataSource dataSource, Duration interval) {
        this.dataSource = dataSource;
        this.interval = interval;
        this.thread = new Thread(this::run, "h2-file-housekeeping");
        this.thread.setDaemon(true);
    }

    /** Starts the rounds (on an H2 file database; on any other the thread ends at once). */
    H2FileKeeper start() {
        thread.start();
        return this;
    }

    /** Whether rounds are still being run (not on a database other than an embedded H2 file). */
    boolean running() {
        return thread.isAlive();
    }

    private void run() {
        try {
            while (true) {
                long started = System.nanoTime();
                long pause;
                try {
                    if (!keep()) {
                        return;
                    }
                    // at most a tenth of the time: each round walks all of H2's chunks, and the rewrite holds the lock
                    pause = Math.max(interval.toNanos(), 9 * (System.nanoTime() - started));
                } catch (SQLException | RuntimeException e) {
                    // the database out of reach or closing: try again a little later
                    log.debug("H2 file housekeeping skipped: {}", e.getMessage());
                    pause = Math.max(interval.toNanos(), TimeUnit.SECONDS.toNanos(1));
                }
                // not Thread.interrupt() to stop: an interrupted file operation would close H2's file channel
                if (stopped.await(pause, TimeUnit.NANOSECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One round: the live pages of the sparsest chunks, up to {@link #REWRITE_BYTES} of chunks, rewritten into a new
     * one, so that those chunks are freed (when the file's chunks are less full than H2 keeps them). False when the
     * database is not an embedded H2 file. The store is looked up through a connection the first time and again only
     * once it has been closed, not every round.
     */
    boolean keep() throws SQLException {
        H2File h2 = file;
        if (h2 == null || h2.store().isClosed()) {
            try (Connection c = dataSource.getConnection()) {
                h2 = h2File(c);
            }
            if (h2 == null) {
                return false;
            }
            file = h2;
        }
        h2.store().compact(h2.autoCompactFillRate(), REWRITE_BYTES);
        return true;
    }

    /** An embedded H2 database's store, and how full H2 keeps its file's chunks when it keeps them itself (percent). */
    record H2File(MVStore store, int autoCompactFillRate) {
    }

    /** The embedded H2 database behind the connection, when it is kept in a writable file. */
    static H2File h2File(Connection c) throws SQLException {
        if (!c.isWrapperFor(JdbcConnection.class)) {
            return null;
        }
        Session session = c.unwrap(JdbcConnection.class).getSession();
        if (!(session instanceof SessionLocal local)) {
            return null; // a database served by an H2 server process: that process keeps its file
        }
        Store store = local.getDatabase().getStore();
        MVStore mv = store == null ? null : store.getMvStore();
        FileStore<?> file = mv == null ? null : mv.getFileStore();
        return file == null || file.isReadOnly() ? null
                : new H2File(mv, local.getDatabase().getSettings().autoCompactFillRate);
    }

    /** Stops the rounds, waiting for one under way (a few milliseconds) so that none meets a closing database. */
    @Override
    public void close() {
        stopped.countDown();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

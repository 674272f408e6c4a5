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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps an embedded H2 database file compact by running H2's own housekeeping, which H2 runs
 * only from a background thread it starts when commits may be delayed.
 *
 * <p>H2 writes every commit as a new chunk, placed at the first hole in its file large enough
 * for it (found by scanning the file's blocks from the start); a chunk becomes a hole again once
 * none of its pages is live. Its housekeeping rewrites the few live pages of sparse chunks into
 * new ones, so that the old ones are freed, and moves chunks from the end of the file into holes.
 * H2 starts the thread that does it only with {@code WRITE_DELAY > 0}, when a commit returns
 * before it is in the file; the store commits with {@code WRITE_DELAY=0} (an acknowledged write
 * is in the file), so without this nothing is ever rewritten: the file grows by a chunk for every
 * commit, most of it dead, and every commit's scan walks further (after 200,000 small commits that
 * scan was two thirds of the store's commit thread). This runs the same housekeeping round on a
 * thread of its own every {@code interval} (H2's thread runs it every 166 ms at its default write
 * delay of 500 ms), under H2's store lock as H2 runs it. On any other database it stops at once.
 */
final class H2FileKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(H2FileKeeper.class);

    private final DataSource dataSource;
    private final Duration interval;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);

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
                Duration pause = interval;
                try {
                    if (!keep()) {
                        return;
                    }
                } catch (SQLException | RuntimeException e) {
                    // the database out of reach or closing: try again a little later
                    log.debug("H2 file housekeeping skipped: {}", e.getMessage());
                    pause = interval.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : interval;
                }
                // not Thread.interrupt() to stop: an interrupted file operation would close H2's file channel
                if (stopped.await(pause.toNanos(), TimeUnit.NANOSECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One round of H2's housekeeping; false when the database is not an embedded H2 file, or H2 has none. */
    boolean keep() throws SQLException {
        if (HOUSEKEEPING == null) {
            return false;
        }
        try (Connection c = dataSource.getConnection()) {
            MVStore store = h2File(c);
            if (store == null) {
                return false;
            }
            try {
                HOUSEKEEPING.invoke(store.getFileStore(), store);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (IllegalAccessException e) {
                return false;
            }
            return true;
        }
    }

    /** The MVStore behind the connection, when it is an embedded H2 database kept in a writable file. */
    static MVStore h2File(Connection c) throws SQLException {
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
        return file == null || file.isReadOnly() ? null : mv;
    }

    /** H2's housekeeping round ({@code FileStore.doHousekeeping}, protected), or null in an H2 without it. */
    private static final Method HOUSEKEEPING = housekeeping();

    private static Method housekeeping() {
        try {
            Method m = FileStore.class.getDeclaredMethod("doHousekeeping", MVStore.class);
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException | RuntimeException e) {
            log.warn("this H2 has no housekeeping round to run ({}); its file is not kept compact", e.toString());
            return null;
        }
    }

    @Override
    public void close() {
        stopped.countDown();
    }
}

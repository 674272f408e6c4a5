package io.cybernetes.store;

/**
 * A stream of events after a revision, in revision order, each exactly once. A watch
 * that fell behind is ended ({@link #next} returns null and {@link #isEnded()} is true)
 * after its buffered events, so its consumer resumes from the last revision it saw;
 * events are never skipped.
 */
public interface Watch extends AutoCloseable {

    /** The next event, or null when none arrived within the timeout or the watch has ended. */
    WatchEvent next(long timeoutMillis) throws InterruptedException;

    boolean isEnded();

    /** The revision the watch has delivered up to (the latest revision for a bookmark). */
    long progressRevision();

    @Override
    void close();
}

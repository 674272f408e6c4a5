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

    /**
     * Asks to be told when there is something to take: {@code listener} runs, on the store's
     * own thread, after an event arrives or the watch ends. It must return at once (hand the
     * work to another thread); a consumer told so takes events with {@code next(0)}, so that
     * a watch needs no thread of its own while it waits.
     */
    void onReady(Runnable listener);

    boolean isEnded();

    /** The revision the watch has delivered up to (the latest revision for a bookmark). */
    long progressRevision();

    @Override
    void close();
}

package io.cybernetes.controller;

import java.time.Duration;

/**
 * How a reconcile ended, for the queue: done (the key's backoff is forgotten), requeue now
 * with backoff, or look again after a delay (a deadline to check, a pod to become ready).
 */
public record Result(boolean requeue, Duration requeueAfter) {

    public static final Result DONE = new Result(false, Duration.ZERO);
    public static final Result REQUEUE = new Result(true, Duration.ZERO);

    public static Result after(Duration delay) {
        return new Result(false, delay);
    }
}

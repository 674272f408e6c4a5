package io.cybernetes.controller;

/**
 * Drives one object's observed state towards its desired state. Level-based: the request
 * names an object, it does not say what changed, so a reconcile reads the current state
 * (from informers' indexers) and does whatever is still needed; running it twice must be
 * harmless. The controller guarantees that one key is never reconciled by two workers at
 * once. Throwing an exception retries the key with per-key exponential backoff; a
 * {@link TerminalException} is recorded and not retried.
 */
public interface Reconciler {

    Result reconcile(Request request) throws Exception;

    /** An error retrying cannot fix (an invalid spec): recorded in the reconcile status, not retried. */
    class TerminalException extends Exception {
        public TerminalException(String message) {
            super(message);
        }
    }
}

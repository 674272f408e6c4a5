package io.cybernetes.apiserver.internal;

import jakarta.servlet.http.HttpServletRequest;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The long-running request permit a stream to a node holds (a pod's log, exec, attach,
 * port-forward, a node's proxy). A log or proxy stream gives it back when its request
 * ends; a stream upgraded to a WebSocket or SPDY outlives its request, so its handler takes
 * the permit over ({@link #handOff}) and gives it back when the session ends: open exec and
 * port-forward sessions count against the limit for as long as they last.
 */
public final class LongRunningPermit {

    static final String ATTRIBUTE = LongRunningPermit.class.getName();

    private final Semaphore pool;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean handedOff;

    LongRunningPermit(Semaphore pool) {
        this.pool = pool;
    }

    /**
     * Takes over the request's permit, to be given back by running what this returns (once;
     * more runs do nothing). A request that holds no permit (an administrator's, or with no
     * limit) gets something that does nothing.
     */
    public static Runnable handOff(HttpServletRequest request) {
        if (!(request.getAttribute(ATTRIBUTE) instanceof LongRunningPermit permit)) {
            return () -> { };
        }
        permit.handedOff = true;
        return permit::release;
    }

    boolean handedOff() {
        return handedOff;
    }

    void release() {
        if (released.compareAndSet(false, true)) {
            pool.release();
        }
    }
}

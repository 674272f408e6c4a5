package io.cybernetes.apiserver.internal.handlers;

import java.io.IOException;

/**
 * Group versions another server serves behind this one (the aggregation layer): their
 * requests, once authenticated and authorized here, are passed on whole.
 */
public interface GroupProxy {

    boolean serves(String group, String version);

    /** Passes the request on and its answer back; the call's response is written when this returns. */
    void proxy(ServletCall call) throws IOException;
}

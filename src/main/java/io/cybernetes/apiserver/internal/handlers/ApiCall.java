package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.auth.UserInfo;
import org.springframework.http.ResponseEntity;

import java.io.IOException;
import java.io.InputStream;

/**
 * One resource request as the handler sees it, whichever way it came: over HTTP (a
 * servlet request whose user the security filters set) or in-process (authenticated and
 * authorized by the in-process API server). Watches are the one thing transports stream
 * differently.
 */
public interface ApiCall {

    String method();

    /** The path, without the query. */
    String path();

    /** The first value of a query parameter, or null. */
    String parameter(String name);

    /** A request header, or null. */
    String header(String name);

    String contentType();

    /** The body's length when known, else -1. */
    long contentLength();

    /** The body (empty when there is none). */
    InputStream body() throws IOException;

    /** Who asks: authenticated before the call reaches the handler. */
    UserInfo user();

    /** Streams an opened watch to the caller; returns what the handler answers (null: the stream is the answer). */
    ResponseEntity<?> stream(WatchStreamer.Opened watch);
}

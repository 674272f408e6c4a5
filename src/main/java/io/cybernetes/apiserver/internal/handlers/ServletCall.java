package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.auth.UserInfo;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import java.io.IOException;
import java.io.InputStream;

/** A resource request that came over HTTP. */
public final class ServletCall implements ApiCall {

    private final HttpServletRequest request;
    private final HttpServletResponse response;

    public ServletCall(HttpServletRequest request, HttpServletResponse response) {
        this.request = request;
        this.response = response;
    }

    public HttpServletRequest servletRequest() {
        return request;
    }

    public HttpServletResponse servletResponse() {
        return response;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String path() {
        return request.getRequestURI();
    }

    @Override
    public String parameter(String name) {
        return request.getParameter(name);
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public String contentType() {
        return request.getContentType();
    }

    @Override
    public long contentLength() {
        return request.getContentLengthLong();
    }

    @Override
    public InputStream body() throws IOException {
        return request.getInputStream();
    }

    @Override
    public UserInfo user() {
        return (UserInfo) request.getAttribute(UserInfo.REQUEST_ATTRIBUTE);
    }

    /**
     * Streams with the servlet request in async mode, so an open watch holds no request
     * thread, and no thread of its own while it waits: it writes in turns when there is
     * something to send. A turn writes as a servlet writes, blocking while the client is
     * slow to take the bytes (only then does a watch hold a thread). A request to upgrade
     * to a WebSocket is streamed as one ({@link WebSocketWatch}). Returns null: the
     * response is ours.
     */
    @Override
    public ResponseEntity<?> stream(WatchStreamer.Opened opened) {
        if (request.getAttribute(WatchStreamer.INITIALIZATION) instanceof Runnable initialized) {
            request.removeAttribute(WatchStreamer.INITIALIZATION);
            opened.whenInitialized(initialized);
        }
        if (WebSocketWatch.isUpgrade(request)) {
            WebSocketWatch.upgrade(request, response, opened);
            return null;
        }
        AsyncContext async;
        try {
            async = request.startAsync();
        } catch (IllegalStateException notAsync) {
            opened.close(); // its seats and its place in the store go back
            throw notAsync;
        }
        async.setTimeout(0);
        // When the client goes away, the container ends the request: end the watch with it.
        async.addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                opened.close();
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                opened.close();
            }

            @Override
            public void onError(AsyncEvent event) {
                opened.close();
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
        response.setStatus(200);
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.setHeader(HttpHeaders.CACHE_CONTROL, "no-cache, private");
        try {
            response.flushBuffer(); // the headers, so the client knows its watch is open
            opened.start(new Sink(response.getOutputStream(), async));
        } catch (IOException | IllegalStateException e) {
            opened.close();
            completeQuietly(async);
        }
        return null;
    }

    /**
     * Gives back what API Priority and Fairness holds for a watch that is not streamed here (one relayed to
     * an extension API server): it is initialized once the relay is under way, as Kubernetes counts it.
     */
    void watchRelayed() {
        if (request.getAttribute(WatchStreamer.INITIALIZATION) instanceof Runnable initialized) {
            request.removeAttribute(WatchStreamer.INITIALIZATION);
            initialized.run();
        }
    }

    /** The response's output, as a watch writes to it. */
    private record Sink(ServletOutputStream out, AsyncContext async) implements WatchStreamer.Sink {

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void write(byte[] bytes) throws IOException {
            out.write(bytes);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void end() {
            completeQuietly(async);
        }
    }

    public static void completeQuietly(AsyncContext async) {
        try {
            async.complete();
        } catch (IllegalStateException e) {
            // already completed by the container (client disconnect)
        }
    }
}

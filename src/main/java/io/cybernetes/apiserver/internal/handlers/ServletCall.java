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

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.locks.ReentrantLock;

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
        Sink sink = new Sink(async);
        // When the client goes away, the container ends the request: end the watch with it.
        async.addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                sink.completed();
                opened.close();
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                sink.completed();
                opened.close();
            }

            @Override
            public void onError(AsyncEvent event) {
                sink.completed();
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
            sink.out = response.getOutputStream();
            opened.start(sink);
        } catch (IOException | IllegalStateException e) {
            opened.close();
            sink.end();
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

    /**
     * The response's output, as a watch writes to it from its turns. Once the request is complete (the
     * watch ended it, or the container did when the client went away) nothing more is written: the
     * container recycles a completed response for the next request, so a write that came late would go
     * to another client's response. Writes and the completion take one lock, so a turn writing when the
     * container completes the request finishes its write first and the next one is refused.
     */
    static final class Sink implements WatchStreamer.Sink {
        private final AsyncContext async;
        private final ReentrantLock lock = new ReentrantLock();
        /** Set once the headers are sent, before the first turn (which starting it publishes). */
        ServletOutputStream out;
        /** Guarded by {@link #lock}. */
        private boolean complete;

        Sink(AsyncContext async) {
            this.async = async;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void write(byte[] bytes) throws IOException {
            whileOpen(o -> o.write(bytes));
        }

        @Override
        public void flush() throws IOException {
            whileOpen(ServletOutputStream::flush);
        }

        private interface Output {
            void use(ServletOutputStream out) throws IOException;
        }

        /** Uses the output under the lock, unless the request is complete by then. */
        private void whileOpen(Output action) throws IOException {
            lock.lock();
            try {
                if (complete) {
                    throw new EOFException("the watch's response is complete");
                }
                action.use(out);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void end() {
            if (markComplete()) {
                completeQuietly(async);
            }
        }

        /** The container completed the request (a write under way finishes first): nothing more is written. */
        void completed() {
            markComplete();
        }

        /** Marks the request complete once a write under way is done; true the first time. */
        private boolean markComplete() {
            lock.lock();
            try {
                boolean first = !complete;
                complete = true;
                return first;
            } finally {
                lock.unlock();
            }
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

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads request bodies without holding a thread, so that slow senders cannot starve the
 * server. It runs after authentication and authorization (a refused request is answered
 * before a byte of its body is read) and before the in-flight limit: the container
 * reads the body in non-blocking mode, no thread waits between its packets, and only
 * once the whole body is in memory is the request dispatched again, now holding a
 * thread, to be served from that buffer. A body that arrived whole with the headers (the
 * usual small one) is taken at once and served on the first dispatch. A body larger than the limit is refused with
 * 413 as soon as that is known; one that takes longer than the request timeout to arrive
 * is answered 504, as kube-apiserver's timeout does.
 */
public final class RequestBodyFilter extends OncePerRequestFilter {

    /** Where the body read so far is kept for the dispatch that serves the request, and for audit. */
    static final String BODY_ATTRIBUTE = RequestBodyFilter.class.getName() + ".body";
    private static final String READING_ATTRIBUTE = RequestBodyFilter.class.getName() + ".reading";

    private static final Logger log = LoggerFactory.getLogger(RequestBodyFilter.class);

    private final long maxRequestBytes;
    private final Duration timeout;

    RequestBodyFilter(long maxRequestBytes, Duration timeout) {
        this.maxRequestBytes = maxRequestBytes;
        this.timeout = timeout;
    }

    /** The body of a request this filter read, or null when it had none or was not read here. */
    public static byte[] bodyOf(HttpServletRequest request) {
        return request.getAttribute(BODY_ATTRIBUTE) instanceof byte[] body ? body : null;
    }

    /** Whether the request's body is being read now, the request to be served once it is in. */
    public static boolean isReading(HttpServletRequest request) {
        return request.isAsyncStarted() && request.getAttribute(READING_ATTRIBUTE) != null;
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        byte[] read = bodyOf(request);
        if (request.getDispatcherType() == DispatcherType.ASYNC) {
            chain.doFilter(read == null ? request : new BufferedBody(request, read), response);
            return;
        }
        long length = request.getContentLengthLong();
        boolean chunked = "chunked".equalsIgnoreCase(request.getHeader("Transfer-Encoding"));
        if (length <= 0 && !chunked) {
            chain.doFilter(request, response);
            return;
        }
        if (length > maxRequestBytes) {
            refuse(response, ApiException.entityTooLarge(maxRequestBytes));
            return;
        }
        ByteArrayOutputStream arrived = new ByteArrayOutputStream((int) Math.min(Math.max(length, 1024), 65536));
        if (!chunked && takeWhatHasArrived(request.getInputStream(), arrived, length)) {
            // the whole body came with the headers, as a small one does: served on this dispatch
            byte[] body = arrived.toByteArray();
            request.setAttribute(BODY_ATTRIBUTE, body);
            chain.doFilter(new BufferedBody(request, body), response);
            return;
        }
        AsyncContext async = request.startAsync();
        async.setTimeout(timeout.toMillis());
        request.setAttribute(READING_ATTRIBUTE, Boolean.TRUE);
        AtomicBoolean finished = new AtomicBoolean();
        async.addListener(new AsyncListener() {
            @Override
            public void onTimeout(AsyncEvent event) throws IOException {
                if (finished.compareAndSet(false, true)) {
                    log.info("{} {} over {}: {} bytes of the request body arrived within {} ({}); answered 504",
                            request.getMethod(), request.getRequestURI(), request.getProtocol(), arrived.size(),
                            timeout, chunked ? "chunked" : length + " announced");
                    refuse(response, ApiException.timeout(
                            "Timeout: request did not complete within the allotted timeout", 0));
                    async.complete();
                }
            }

            @Override
            public void onError(AsyncEvent event) {
                finished.set(true);
            }

            @Override
            public void onComplete(AsyncEvent event) {
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
        ServletInputStream in = request.getInputStream();
        in.setReadListener(new Collector(request, response, async, in, finished, arrived));
    }

    /**
     * Reads as much of the body as the container holds already, never waiting for the
     * network; true when that was all of it ({@code length} bytes).
     */
    private static boolean takeWhatHasArrived(ServletInputStream in, ByteArrayOutputStream into, long length)
            throws IOException {
        byte[] buf = new byte[(int) Math.min(length, 8192)];
        while (into.size() < length && in.available() > 0) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, length - into.size()));
            if (n < 0) {
                break;
            }
            into.write(buf, 0, n);
        }
        return into.size() == length;
    }

    /** A refusal sent before the body was read: the connection is not kept, so the body need not be either. */
    private static void refuse(HttpServletResponse response, ApiException e) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.setStatus(e.code());
        response.setHeader("Connection", "close");
        response.setContentType("application/json");
        response.getOutputStream().write(e.toBytes());
    }

    /** Takes what has arrived whenever the container says more is there; dispatches when all is in. */
    private final class Collector implements ReadListener {

        private final HttpServletRequest request;
        private final HttpServletResponse response;
        private final AsyncContext async;
        private final ServletInputStream in;
        private final AtomicBoolean finished;
        private final ByteArrayOutputStream body;
        private final byte[] buf = new byte[8192];

        Collector(HttpServletRequest request, HttpServletResponse response, AsyncContext async, ServletInputStream in,
                  AtomicBoolean finished, ByteArrayOutputStream body) {
            this.request = request;
            this.response = response;
            this.async = async;
            this.in = in;
            this.finished = finished;
            this.body = body;
        }

        @Override
        public void onDataAvailable() throws IOException {
            while (in.isReady()) {
                int n = in.read(buf);
                if (n < 0) {
                    return;
                }
                body.write(buf, 0, n);
                if (body.size() > maxRequestBytes) {
                    if (finished.compareAndSet(false, true)) {
                        refuse(response, ApiException.entityTooLarge(maxRequestBytes));
                        async.complete();
                    }
                    return;
                }
            }
        }

        @Override
        public void onAllDataRead() {
            if (finished.compareAndSet(false, true)) {
                request.setAttribute(BODY_ATTRIBUTE, body.toByteArray());
                async.dispatch();
            }
        }

        @Override
        public void onError(Throwable t) {
            // the client went away or the read failed: nobody is left to answer
            if (finished.compareAndSet(false, true)) {
                try {
                    async.complete();
                } catch (IllegalStateException alreadyEnded) {
                    // the container ended the request itself
                }
            }
        }
    }

    /** The request as the handlers see it: its body served from memory. */
    private static final class BufferedBody extends HttpServletRequestWrapper {

        private final byte[] body;

        BufferedBody(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new IllegalStateException("the body has been read already");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public java.io.BufferedReader getReader() {
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }
    }
}

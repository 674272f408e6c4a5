package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.LocalApi;
import io.cybernetes.auth.UserInfo;
import org.springframework.http.ResponseEntity;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** A resource request from a component in this process, already authenticated. */
public final class LocalCall implements ApiCall {

    private final LocalApi.Request request;
    private final UserInfo user;
    private final Map<String, String> query;
    private final LocalApi.WatchSink sink;
    private volatile WatchStreamer.Opened opened;

    /** @param query the request's query, parsed ({@link #parseQuery}) */
    public LocalCall(LocalApi.Request request, Map<String, String> query, UserInfo user, LocalApi.WatchSink sink) {
        this.request = request;
        this.user = user;
        this.query = query;
        this.sink = sink;
    }

    public static Map<String, String> parseQuery(String query) {
        Map<String, String> params = new HashMap<>();
        if (query == null || query.isEmpty()) {
            return params;
        }
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.putIfAbsent(name, value);
        }
        return params;
    }

    @Override
    public String method() {
        return request.method();
    }

    @Override
    public String path() {
        return request.path();
    }

    @Override
    public String parameter(String name) {
        return query.get(name);
    }

    @Override
    public String header(String name) {
        if ("accept".equalsIgnoreCase(name)) {
            return request.accept();
        }
        return "user-agent".equalsIgnoreCase(name) ? request.userAgent() : null;
    }

    @Override
    public String contentType() {
        return request.contentType();
    }

    @Override
    public long contentLength() {
        return request.body() == null ? 0 : request.body().length;
    }

    @Override
    public InputStream body() {
        return new ByteArrayInputStream(request.body() == null ? new byte[0] : request.body());
    }

    @Override
    public UserInfo user() {
        return user;
    }

    /** The watch this call opened, once the handler has opened it. */
    public WatchStreamer.Opened opened() {
        return opened;
    }

    @Override
    public ResponseEntity<?> stream(WatchStreamer.Opened watch) {
        if (sink == null) {
            watch.close();
            throw new IllegalStateException("a watch must be opened through LocalApi.watch");
        }
        this.opened = watch;
        watch.start(new LineSink(sink));
        return null;
    }

    /**
     * Hands each newline-terminated line written to it to the in-process reader, which
     * queues it: it always takes more.
     */
    private static final class LineSink implements WatchStreamer.Sink {

        private final LocalApi.WatchSink sink;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(1024);

        LineSink(LocalApi.WatchSink sink) {
            this.sink = sink;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void write(byte[] b) {
            int start = 0;
            for (int i = 0; i < b.length; i++) {
                if (b[i] == '\n') {
                    line.write(b, start, i - start);
                    emit();
                    start = i + 1;
                }
            }
            line.write(b, start, b.length - start);
        }

        @Override
        public void flush() {
        }

        @Override
        public void end() {
            sink.closed();
        }

        private void emit() {
            if (line.size() > 0) {
                sink.event(line.toByteArray());
                line.reset();
            }
        }
    }
}

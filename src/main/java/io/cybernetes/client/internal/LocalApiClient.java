package io.cybernetes.client.internal;

import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ListerWatcher;
import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * {@link io.cybernetes.client.ApiClient} into this process's API server through
 * {@link LocalApi}: the same authentication (by the token), authorization, admission and
 * store as over HTTP, without the network. Watch events arrive on the server's streaming
 * thread and are queued for the reader.
 */
public final class LocalApiClient extends RestApiClient {

    private final LocalApi api;
    private final String token;
    private final String userAgent;

    public LocalApiClient(LocalApi api, String token, String userAgent) {
        super(api.registry());
        this.api = api;
        this.token = token;
        this.userAgent = userAgent;
    }

    @Override
    protected byte[] send(String method, String path, String query, String accept, String contentType, byte[] body) {
        return api.exchange(new LocalApi.Request(method, path, query, accept, contentType, body, token, userAgent)).body();
    }

    @Override
    protected <T extends HasMetadata> ListerWatcher.WatchStream<T> openWatch(String path, String query, String accept,
                                                                             Class<T> kind) {
        StreamedWatch<T> stream = new StreamedWatch<>(kind);
        stream.watch = api.watch(new LocalApi.Request("GET", path, query, accept, null, null, token, userAgent), stream);
        return stream;
    }

    private static final class StreamedWatch<T> extends QueuedWatch<T> implements LocalApi.WatchSink {

        private volatile LocalApi.Watch watch;

        StreamedWatch(Class<T> kind) {
            super(kind);
        }

        @Override
        public void event(byte[] jsonLine) {
            line(jsonLine);
        }

        @Override
        public void closed() {
            ended();
        }

        @Override
        public void close() {
            super.close();
            LocalApi.Watch w = watch;
            if (w != null) {
                w.close();
            }
        }
    }
}

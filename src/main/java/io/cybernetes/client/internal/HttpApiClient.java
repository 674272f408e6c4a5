package io.cybernetes.client.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.ListerWatcher;
import io.fabric8.kubernetes.api.model.HasMetadata;

import javax.net.ssl.SSLContext;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@link io.cybernetes.client.ApiClient} over HTTP(S) with a bearer token, for agents
 * outside the process (and for tests that want the whole network path): JSON bodies,
 * watches read line by line from the chunked response on a thread of their own.
 */
public final class HttpApiClient extends RestApiClient {

    private final URI base;
    private final String token;
    private final HttpClient http;

    public HttpApiClient(URI base, SSLContext ssl, String token) {
        // a remote server's built-in kinds are where Kubernetes serves them, as client-go's scheme knows them
        super(io.cybernetes.api.ResourceRegistry.builtIn());
        this.base = base;
        this.token = token;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .version(HttpClient.Version.HTTP_1_1);
        if (ssl != null) {
            b.sslContext(ssl);
        }
        this.http = b.build();
    }

    @Override
    protected <T extends HasMetadata> ListerWatcher.WatchStream<T> openWatch(String path, String query, String accept,
                                                                             Class<T> kind) {
        HttpResponse<InputStream> resp;
        try {
            resp = http.send(request("GET", path, query, accept, null, null).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw ApiException.unavailable("the API server could not be reached: " + e.getMessage(), 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
        if (resp.statusCode() != 200) {
            try (InputStream in = resp.body()) {
                throw error(resp.statusCode(), in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new LineWatch<>(resp.body(), kind);
    }

    /** Reads the watch's lines on a daemon thread. */
    private static final class LineWatch<T> extends QueuedWatch<T> {

        private final InputStream body;

        LineWatch(InputStream body, Class<T> kind) {
            super(kind);
            this.body = body;
            Thread reader = new Thread(this::read, "watch-reader");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    if (!l.isBlank()) {
                        line(l.getBytes(StandardCharsets.UTF_8));
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the connection ended; the reflector resumes from the last revision it saw
            }
            ended();
        }

        @Override
        public void close() {
            super.close();
            try {
                body.close();
            } catch (IOException e) {
                // closing a stream the server may already have ended
            }
        }
    }

    private HttpRequest.Builder request(String method, String path, String query, String accept, String contentType,
                                        byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(query == null ? path : path + "?" + query))
                .timeout(Duration.ofMinutes(30))
                .header("Accept", accept == null ? "application/json" : accept)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return b;
    }

    @Override
    protected byte[] send(String method, String path, String query, String accept, String contentType, byte[] body) {
        try {
            HttpResponse<byte[]> resp = http.send(request(method, path, query, accept, contentType, body)
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
            if (resp.statusCode() >= 300) {
                throw error(resp.statusCode(), resp.body());
            }
            return resp.body();
        } catch (IOException e) {
            throw ApiException.unavailable("the API server could not be reached: " + e.getMessage(), 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }
}

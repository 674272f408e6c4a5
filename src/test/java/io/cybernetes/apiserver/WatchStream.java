package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A watch over HTTP whose newline-delimited events are read on a thread of their own. */
final class WatchStream implements AutoCloseable {

    private static final JsonNode END = Json.object().put("type", "END");

    private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
    private final InputStream body;
    final int status;

    WatchStream(HttpClient http, String url, String token, String accept) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token);
        if (accept != null) {
            b.header("Accept", accept);
        }
        HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        this.status = r.statusCode();
        this.body = r.body();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (!line.isBlank()) {
                        events.add(Json.MAPPER.readTree(line));
                    }
                }
            } catch (IOException e) {
                // closed by the test
            } finally {
                events.add(END);
            }
        }, "test-watch-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** The next event, or null if none within the timeout; an {@code END} event when the stream closed. */
    JsonNode next(long millis) throws InterruptedException {
        return events.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** The next n events that are not bookmarks. */
    List<JsonNode> take(int n) throws InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 10_000;
        while (out.size() < n && System.currentTimeMillis() < deadline) {
            JsonNode e = next(200);
            if (e != null && !"BOOKMARK".equals(e.path("type").asString())) {
                out.add(e);
            }
        }
        return out;
    }

    static boolean ended(JsonNode e) {
        return e == END;
    }

    @Override
    public void close() throws IOException {
        body.close();
    }
}

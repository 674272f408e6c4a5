package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Watches over HTTP: initial state, resumption, selectors, bookmarks, timeouts and tables. */
class WatchApiTest extends ApiTestSupport {

    String ns;
    String base;

    @BeforeEach
    void namespace() {
        ns = "w-" + UUID.randomUUID().toString().substring(0, 8);
        createNamespace(ns);
        base = "/api/v1/namespaces/" + ns + "/configmaps";
    }

    WatchStream watch(String query) throws Exception {
        return new WatchStream(HTTP, url(base + "?watch=true" + query), token(), "application/json");
    }

    private static long watchThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("watch-")).count();
    }

    @Test
    void hundredsOfOpenWatchesHoldNoThreadEachAndAllGetEveryEvent() throws Exception {
        String rv = post(base, "{\"metadata\":{\"name\":\"seed\"}}").text("metadata.resourceVersion");
        long before = watchThreads();
        List<java.net.Socket> sockets = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 300; i++) {
                sockets.add(rawWatch(rv, 20_000));
            }
            post(base, "{\"metadata\":{\"name\":\"seen-by-all\"}}");
            for (int i = 0; i < sockets.size(); i++) {
                java.io.InputStream in = sockets.get(i).getInputStream();
                StringBuilder got = new StringBuilder();
                while (!got.toString().contains("seen-by-all")) {
                    int c;
                    try {
                        c = in.read();
                    } catch (java.net.SocketTimeoutException e) {
                        throw new AssertionError("watch " + i + " of " + sockets.size() + " got only: " + got, e);
                    }
                    assertThat(c).as("the stream ended before the event").isNotNegative();
                    got.append((char) c);
                }
                assertThat(got.toString()).startsWith("HTTP/1.1 200").contains("\"type\":\"ADDED\"");
            }
            // the turn pool is 64 threads, plus one for timers: however many watches are open
            assertThat(watchThreads() - before).as("watches stream in turns on a bounded pool").isLessThanOrEqualTo(65);
        } finally {
            for (java.net.Socket s : sockets) {
                s.close();
            }
        }
    }

    /**
     * A watch whose client has gone may still be writing when the container completes its request and hands the
     * same response to the next one: each round here opens watches while the server writes to those of the round
     * before, whose clients reset their connections. Every watch must get its event (one in a few thousand got
     * 200 and then an empty body, or nothing, before the watches' writes were fenced off from a completed response).
     */
    @Test
    void watchesOpenedWhileOthersClientsHangUpEachGetTheirEvent() throws Exception {
        int rounds = 15;
        int perRound = 150;
        for (int round = 0; round < rounds; round++) {
            String rv = post(base, "{\"metadata\":{\"name\":\"seed-" + round + "\"}}").text("metadata.resourceVersion");
            List<java.net.Socket> sockets = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < perRound; i++) {
                    sockets.add(rawWatch(rv, 15_000));
                }
                String marker = "marker-" + round;
                post(base, "{\"metadata\":{\"name\":\"" + marker + "\"}}");
                for (int i = 0; i < sockets.size(); i++) {
                    String got = readUntil(sockets.get(i).getInputStream(), marker);
                    assertThat(got).as("round %d, watch %d of %d", round, i, sockets.size()).contains(marker);
                }
            } finally {
                for (java.net.Socket s : sockets) {
                    s.setSoLinger(true, 0); // a reset: the server finds out by writing
                    s.close();
                }
            }
            // the server writes these deletions to the connections just reset, while the next round opens
            assertThat(delete(base + "/seed-" + round).code()).isEqualTo(200);
            assertThat(delete(base + "/marker-" + round).code()).isEqualTo(200);
        }
    }

    /**
     * A watch from {@code rv} asked for on a connection of its own over plain HTTP/1.1, its answer left to read; with
     * a timeout, so that the server ends it soon after a test: it cannot tell a client hung up on a quiet watch.
     */
    private java.net.Socket rawWatch(String rv, int readTimeoutMillis) throws java.io.IOException {
        java.net.Socket s = new java.net.Socket("127.0.0.1", endpoints.httpPort());
        s.setSoTimeout(readTimeoutMillis);
        s.getOutputStream().write(("GET " + base + "?watch=true&timeoutSeconds=90&resourceVersion=" + rv
                + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token() + "\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return s;
    }

    /** What the stream holds up to the marker, or all it held when it ended or went quiet for the socket's timeout. */
    private static String readUntil(java.io.InputStream in, String marker) throws java.io.IOException {
        StringBuilder got = new StringBuilder();
        byte[] buf = new byte[4096];
        while (got.indexOf(marker) < 0) {
            int n;
            try {
                n = in.read(buf);
            } catch (java.net.SocketTimeoutException quiet) {
                return got.toString();
            }
            if (n < 0) {
                return got.toString();
            }
            got.append(new String(buf, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        return got.toString();
    }

    @Test
    void aWatcherThatGoesAwayEndsItsWatchQuietly() throws Exception {
        String rv = post(base, "{\"metadata\":{\"name\":\"before\"}}").text("metadata.resourceVersion");
        for (int i = 0; i < 20; i++) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", endpoints.httpPort())) {
                s.getOutputStream().write(("GET " + base + "?watch=true&resourceVersion=" + rv + " HTTP/1.1\r\n"
                        + "Host: x\r\nAuthorization: Bearer " + token() + "\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                assertThat(new String(s.getInputStream().readNBytes(17), java.nio.charset.StandardCharsets.US_ASCII))
                        .isEqualTo("HTTP/1.1 200 OK\r\n");
                s.setSoLinger(true, 0); // the client is gone at once: a reset, not a goodbye
            }
            post(base, "{\"metadata\":{\"name\":\"after-" + i + "\"}}");
        }
        // the server found out by writing to the reset connections; none of that may be logged as an error
        Thread.sleep(500);
        assertThat(get(base).json().path("items").size()).isEqualTo(21);
    }

    @Test
    void aWatchListSendsTheStateThenABookmarkThatEndsItThenChanges() throws Exception {
        post(base, "{\"metadata\":{\"name\":\"one\"}}");
        post(base, "{\"metadata\":{\"name\":\"two\"}}");
        try (WatchStream w = watch("&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")) {
            List<JsonNode> first = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                first.add(w.next(10_000)); // bookmarks included: take() leaves them out
            }
            assertThat(first).extracting(e -> e.path("type").asString()).containsExactly("ADDED", "ADDED", "BOOKMARK");
            JsonNode end = first.get(2).path("object");
            assertThat(end.at("/metadata/annotations/k8s.io~1initial-events-end").asString()).isEqualTo("true");
            long rv = Long.parseLong(end.at("/metadata/resourceVersion").asString());
            assertThat(rv).isGreaterThanOrEqualTo(Long.parseLong(first.get(1).at("/object/metadata/resourceVersion")
                    .asString()));
            post(base, "{\"metadata\":{\"name\":\"three\"}}");
            assertThat(w.take(1).get(0).at("/object/metadata/name").asString()).isEqualTo("three");
        }
        try (WatchStream w = watch("&sendInitialEvents=false&resourceVersionMatch=NotOlderThan")) {
            post(base, "{\"metadata\":{\"name\":\"four\"}}");
            JsonNode e = w.take(1).get(0);
            assertThat(e.path("type").asString()).isEqualTo("ADDED");
            assertThat(e.at("/object/metadata/name").asString()).as("no initial events").isEqualTo("four");
        }
        Response withoutMatch = get(base + "?watch=true&sendInitialEvents=true");
        assertThat(withoutMatch.code()).isEqualTo(422);
        assertThat(withoutMatch.text("message")).isEqualTo("ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch:"
                + " Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
        assertThat(get(base + "?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1").text("message"))
                .endsWith("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided");
        assertThat(get(base + "?sendInitialEvents=true").text("message")).endsWith("sendInitialEvents: Forbidden:"
                + " sendInitialEvents is forbidden for list");
    }

    @Test
    void booleanParametersAreReadAsKubeApiserverReadsThem() throws Exception {
        post(base, "{\"metadata\":{\"name\":\"flag\"}}");
        // the Python client sends watch=True: a watch, not a list
        try (WatchStream w = new WatchStream(HTTP, url(base + "?watch=True&resourceVersion=0"), token(),
                "application/json")) {
            assertThat(w.take(1).get(0).path("type").asString()).isEqualTo("ADDED");
        }
        for (String no : List.of("false", "False", "FALSE", "0")) {
            assertThat(get(base + "?watch=" + no).json().path("kind").asString()).as(no).isEqualTo("ConfigMapList");
        }
    }

    @Test
    void resourceVersionZeroStartsWithTheCurrentStateThenStreamsChanges() throws Exception {
        post(base, "{\"metadata\":{\"name\":\"a\"}}");
        post(base, "{\"metadata\":{\"name\":\"b\"}}");
        try (WatchStream w = watch("&resourceVersion=0")) {
            List<JsonNode> initial = w.take(2);
            assertThat(initial).extracting(e -> e.path("type").asString()).containsExactly("ADDED", "ADDED");
            patch(base + "/a", "application/merge-patch+json", "{\"data\":{\"x\":\"1\"}}");
            delete(base + "/b");
            List<JsonNode> changes = w.take(2);
            assertThat(changes).extracting(e -> e.path("type").asString()).containsExactly("MODIFIED", "DELETED");
            assertThat(changes.get(0).at("/object/data/x").asString()).isEqualTo("1");
            assertThat(changes.get(1).at("/object/metadata/name").asString()).isEqualTo("b");
        }
    }

    @Test
    void aWatchFromAResourceVersionDeliversExactlyTheLaterEventsInOrder() throws Exception {
        String rv = post(base, "{\"metadata\":{\"name\":\"r\"}}").text("metadata.resourceVersion");
        for (int i = 0; i < 5; i++) {
            patch(base + "/r", "application/merge-patch+json", "{\"data\":{\"i\":\"" + i + "\"}}");
        }
        try (WatchStream w = watch("&resourceVersion=" + rv)) {
            List<JsonNode> events = w.take(5);
            assertThat(events).extracting(e -> e.at("/object/data/i").asString()).containsExactly("0", "1", "2", "3", "4");
            long last = Long.parseLong(rv);
            for (JsonNode e : events) {
                long r = Long.parseLong(e.at("/object/metadata/resourceVersion").asString());
                assertThat(r).isGreaterThan(last);
                last = r;
            }
        }
    }

    @Test
    void selectorsTurnObjectsMovingInAndOutIntoAddedAndDeleted() throws Exception {
        String rv = post(base, "{\"metadata\":{\"name\":\"s\",\"labels\":{\"team\":\"a\"}}}").text("metadata.resourceVersion");
        try (WatchStream w = watch("&resourceVersion=" + rv + "&labelSelector=team%3Db")) {
            patch(base + "/s", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"team\":\"b\"}}}");
            patch(base + "/s", "application/merge-patch+json", "{\"data\":{\"k\":\"v\"}}");
            patch(base + "/s", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"team\":\"c\"}}}");
            post(base, "{\"metadata\":{\"name\":\"other\",\"labels\":{\"team\":\"a\"}}}");
            assertThat(w.take(3)).extracting(e -> e.path("type").asString()).containsExactly("ADDED", "MODIFIED", "DELETED");
            JsonNode extra = w.next(1_000);
            assertThat(extra == null || "BOOKMARK".equals(extra.path("type").asString())).isTrue();
        }
        try (WatchStream w = watch("&resourceVersion=0&fieldSelector=metadata.name%3Dother")) {
            assertThat(w.take(1)).extracting(e -> e.at("/object/metadata/name").asString()).containsExactly("other");
        }
    }

    @Test
    void bookmarksOnlyWhenAskedAndTheStreamEndsAtItsTimeout() throws Exception {
        String rv = post(base, "{\"metadata\":{\"name\":\"bm\"}}").text("metadata.resourceVersion");
        try (WatchStream w = watch("&resourceVersion=" + rv + "&allowWatchBookmarks=true&timeoutSeconds=3")) {
            JsonNode bookmark = null;
            JsonNode e;
            while ((e = w.next(5_000)) != null && !WatchStream.ended(e)) {
                if ("BOOKMARK".equals(e.path("type").asString())) {
                    bookmark = e;
                }
            }
            assertThat(bookmark).isNotNull();
            assertThat(Long.parseLong(bookmark.at("/object/metadata/resourceVersion").asString()))
                    .isGreaterThanOrEqualTo(Long.parseLong(rv));
            assertThat(bookmark.at("/object/kind").asString()).isEqualTo("ConfigMap");
            assertThat(e).as("the stream closed at its timeout").isNotNull();
        }
        try (WatchStream w = watch("&resourceVersion=" + rv + "&timeoutSeconds=2")) {
            JsonNode e = w.next(5_000);
            assertThat(WatchStream.ended(e)).as("no bookmark unless asked for, then the end").isTrue();
        }
    }

    @Test
    void tableWatchEventsCarryOneRow() throws Exception {
        try (WatchStream w = new WatchStream(HTTP, url(base + "?watch=true&resourceVersion=0"), token(),
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")) {
            post(base, "{\"metadata\":{\"name\":\"t\"},\"data\":{\"a\":\"1\",\"b\":\"2\"}}");
            JsonNode e = w.take(1).get(0);
            assertThat(e.at("/object/kind").asString()).isEqualTo("Table");
            assertThat(e.at("/object/rows")).hasSize(1);
            assertThat(e.at("/object/rows/0/cells/0").asString()).isEqualTo("t");
            assertThat(e.at("/object/rows/0/cells/1").asInt()).isEqualTo(2);
        }
    }

    @Test
    void aWatchOverWebSocketSendsEachEventAsOneTextMessageAndEndsWhenTheClientCloses() throws Exception {
        // the controllers' informers watch configmaps too
        long baseline = openWatches();
        String rv = post(base, "{\"metadata\":{\"name\":\"before\"}}").text("metadata.resourceVersion");
        java.util.concurrent.BlockingQueue<String> messages = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.CompletableFuture<Integer> closed = new java.util.concurrent.CompletableFuture<>();
        java.net.http.WebSocket ws = HTTP.newWebSocketBuilder().header("Authorization", "Bearer " + token())
                .buildAsync(java.net.URI.create(url(base + "?watch=true&resourceVersion=" + rv).replace("http:", "ws:")),
                        new java.net.http.WebSocket.Listener() {
                            final StringBuilder text = new StringBuilder();

                            @Override
                            public java.util.concurrent.CompletionStage<?> onText(java.net.http.WebSocket w,
                                                                                  CharSequence data, boolean last) {
                                text.append(data);
                                if (last) {
                                    messages.add(text.toString());
                                    text.setLength(0);
                                }
                                w.request(1);
                                return null;
                            }

                            @Override
                            public java.util.concurrent.CompletionStage<?> onClose(java.net.http.WebSocket w,
                                                                                   int code, String reason) {
                                closed.complete(code);
                                return null;
                            }
                        }).get(10, java.util.concurrent.TimeUnit.SECONDS);
        post(base, "{\"metadata\":{\"name\":\"one\"}}");
        post(base, "{\"metadata\":{\"name\":\"two\"}}");
        List<JsonNode> events = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String m = messages.poll(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(m).as("event " + i).isNotNull();
            events.add(tools.jackson.databind.json.JsonMapper.builder().build().readTree(m));
        }
        assertThat(events).extracting(e -> e.path("type").asString() + " " + e.path("object").path("metadata")
                .path("name").asString()).containsExactly("ADDED one", "ADDED two");
        long others = baseline;
        assertThat(openWatches()).as("the WebSocket's watch is open").isGreaterThan(others);
        ws.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "").get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(closed.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1000);
        // the client's close ended the watch on the server too
        eventually(() -> assertThat(openWatches()).isEqualTo(others));
    }

    /** The watches of configmaps open on the server, as /metrics counts them. */
    private long openWatches() {
        String metrics = get("/metrics").body();
        return metrics.lines().filter(l -> l.startsWith("apiserver_longrunning_requests{")
                        && l.contains("resource=\"configmaps\"") && l.contains("verb=\"WATCH\""))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void aRefusedWebSocketHandshakeIsAnsweredAndLeavesNoWatch() throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", endpoints.httpPort())) {
            s.setSoTimeout(10_000);
            // no Sec-WebSocket-Key: the container refuses the upgrade
            s.getOutputStream().write(("GET " + base + "?watch=true HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + token() + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String status = new String(s.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
            assertThat(status).isEqualTo("HTTP/1.1 400");
        }
    }

    @Test
    void aWatchOverWebSocketEndsWithANormalCloseAtItsTimeout() throws Exception {
        java.util.concurrent.CompletableFuture<Integer> closed = new java.util.concurrent.CompletableFuture<>();
        HTTP.newWebSocketBuilder().header("Authorization", "Bearer " + token())
                .buildAsync(java.net.URI.create(url(base + "?watch=1&timeoutSeconds=1&resourceVersion=0")
                        .replace("http:", "ws:")), new java.net.http.WebSocket.Listener() {
                    @Override
                    public java.util.concurrent.CompletionStage<?> onClose(java.net.http.WebSocket w, int code,
                                                                           String reason) {
                        closed.complete(code);
                        return null;
                    }
                }).get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(closed.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1000);
    }

    @Test
    void aWebSocketWatchWithoutCredentialsIsRefusedBeforeTheUpgrade() {
        Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> HTTP.newWebSocketBuilder()
                .buildAsync(java.net.URI.create(url(base + "?watch=1").replace("http:", "ws:")),
                        new java.net.http.WebSocket.Listener() { }).get(10, java.util.concurrent.TimeUnit.SECONDS));
        assertThat(refused.getCause()).isInstanceOfSatisfying(java.net.http.WebSocketHandshakeException.class,
                e -> assertThat(e.getResponse().statusCode()).isEqualTo(401));
    }
}

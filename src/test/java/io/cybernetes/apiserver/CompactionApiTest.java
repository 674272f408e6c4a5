package io.cybernetes.apiserver;

import io.cybernetes.store.internal.SqlStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a tiny watch cache and compaction that keeps almost nothing, old revisions are
 * gone: a list at one or a continue token from one is 410 Expired, a watch from one
 * gets an ERROR event with the 410 Status.
 */
@TestPropertySource(properties = {
        "spring.datasource.url=jdbc:h2:mem:compaction;DB_CLOSE_DELAY=-1",
        "cybernetes.auth.data-dir=./target/test-data/compaction",
        "cybernetes.store.watch-cache-events=5",
        "cybernetes.store.compaction-window=0s",
        "cybernetes.store.compaction-min-revisions=1",
        "cybernetes.store.compaction-interval=1h"})
class CompactionApiTest extends ApiTestSupport {

    @Autowired
    SqlStore store;

    @Test
    void oldRevisionsAreGoneAfterCompaction() throws Exception {
        createNamespace("compaction");
        String base = "/api/v1/namespaces/compaction/configmaps";
        for (int i = 0; i < 3; i++) {
            post(base, "{\"metadata\":{\"name\":\"c" + i + "\"}}");
        }
        Response page = get(base + "?limit=1");
        String token = page.text("metadata.continue");
        String oldRv = page.text("metadata.resourceVersion");
        for (int i = 0; i < 20; i++) {
            patch(base + "/c0", "application/merge-patch+json", "{\"data\":{\"i\":\"" + i + "\"}}");
        }
        assertThat(store.compact()).isGreaterThan(Long.parseLong(oldRv));

        Response expiredPage = get(base + "?limit=1&continue=" + token);
        assertThat(expiredPage.code()).isEqualTo(410);
        assertThat(expiredPage.text("reason")).isEqualTo("Expired");
        Response exact = get(base + "?resourceVersion=" + oldRv + "&resourceVersionMatch=Exact");
        assertThat(exact.code()).isEqualTo(410);
        try (WatchStream w = new WatchStream(HTTP, url(base + "?watch=true&resourceVersion=" + oldRv), token(),
                "application/json")) {
            assertThat(w.status).isEqualTo(200);
            JsonNode e = w.next(5_000);
            assertThat(e.path("type").asString()).isEqualTo("ERROR");
            assertThat(e.at("/object/code").asInt()).isEqualTo(410);
            assertThat(e.at("/object/reason").asString()).isEqualTo("Expired");
            assertThat(e.at("/object/kind").asString()).isEqualTo("Status");
            assertThat(WatchStream.ended(w.next(5_000))).isTrue();
        }
        // The current state is still all there.
        Response current = get(base);
        assertThat(current.json().get("items")).as(current.code() + " " + current.body()).hasSize(3);
        // The history of c0 says that compaction took its beginning.
        Response history = get("/apis/status.cybernetes.io/v1/objecthistories?apiVersion=v1&resource=configmaps"
                + "&namespace=compaction&name=c0");
        assertThat(history.code()).isEqualTo(200);
        assertThat(history.json().path("complete").asBoolean()).isFalse();
        assertThat(history.json().path("compactedRevision").asLong()).isGreaterThan(Long.parseLong(oldRv));
        assertThat(history.json().path("items").get(0).path("type").asString()).isEqualTo("MODIFIED");
    }
}

package io.cybernetes.store.internal;

import io.cybernetes.api.Json;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.ListResult;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.StoreProperties;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.ValueTransformer;
import io.cybernetes.store.Watch;
import io.cybernetes.store.WatchEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.node.ObjectNode;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every database behind the store must keep. Subclasses bind it to H2 and
 * to PostgreSQL; each test works under its own key prefix, so they share one database.
 */
abstract class StoreContractTest {

    @Autowired
    DataSource dataSource;

    @Autowired
    SqlStore store;

    @Autowired
    RevisionLogRepository logRepository;

    String prefix;

    @BeforeEach
    void prefix() {
        prefix = "test/" + UUID.randomUUID().toString().substring(0, 8) + "/";
    }

    @AfterEach
    void noWatcherLeaks() throws InterruptedException {
        for (int i = 0; i < 50 && store.watcherCount() > 0; i++) {
            Thread.sleep(20);
        }
    }

    static ObjectNode obj(String name, String data) {
        ObjectNode o = Json.object();
        o.putObject("metadata").put("name", name).put("uid", "uid-" + name);
        o.put("data", data);
        return o;
    }

    @Test
    void createStampsTheRevisionAndRefusesAnExistingKey() {
        StoredObject a = store.create(prefix + "a", obj("a", "1"));
        assertThat(a.modRevision()).isEqualTo(a.createRevision());
        assertThat(Json.text(a.value(), "metadata.resourceVersion")).isEqualTo(Long.toString(a.modRevision()));
        assertThat(store.get(prefix + "a")).get().extracting(StoredObject::modRevision).isEqualTo(a.modRevision());
        assertThatThrownBy(() -> store.create(prefix + "a", obj("a", "2")))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isExists()).isTrue());
    }

    @Test
    void anUpdateNamingAStaleRevisionConflictsAndOverwritesNothing() {
        StoredObject a = store.create(prefix + "a", obj("a", "1"));
        StoredObject b = store.update(prefix + "a", obj("a", "2"), a.modRevision(), null);
        assertThat(b.modRevision()).isGreaterThan(a.modRevision());
        assertThat(b.createRevision()).isEqualTo(a.createRevision());
        assertThatThrownBy(() -> store.update(prefix + "a", obj("a", "3"), a.modRevision(), null))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isConflict()).isTrue());
        assertThat(store.get(prefix + "a").orElseThrow().value().get("data").asString()).isEqualTo("2");
        StoredObject c = store.update(prefix + "a", obj("a", "4"), 0, null);
        assertThat(c.value().get("data").asString()).isEqualTo("4");
    }

    @Test
    void deletePreconditionsOnUidAndRevisionAreChecked() {
        StoredObject a = store.create(prefix + "a", obj("a", "1"));
        assertThatThrownBy(() -> store.delete(prefix + "a", 0, "someone-else"))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isConflict()).isTrue());
        assertThatThrownBy(() -> store.delete(prefix + "a", a.modRevision() + 1000, null))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isConflict()).isTrue());
        StoredObject gone = store.delete(prefix + "a", a.modRevision(), "uid-a");
        assertThat(gone.value().get("data").asString()).isEqualTo("1");
        assertThat(store.get(prefix + "a")).isEmpty();
        assertThatThrownBy(() -> store.delete(prefix + "a", 0, null))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void revisionsAreGlobalStrictlyIncreasingAndListsReadOneRevision() {
        long before = store.currentRevision();
        List<Long> revisions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            revisions.add(store.create(prefix + "k" + i, obj("k" + i, "v")).modRevision());
        }
        assertThat(revisions).isSorted().doesNotHaveDuplicates();
        assertThat(revisions.get(0)).isGreaterThan(before);
        ListResult all = store.list(new ListRequest(prefix, ListRequest.Match.LATEST, 0, null, null, 0));
        assertThat(all.items()).hasSize(20);
        assertThat(all.revision()).isGreaterThanOrEqualTo(revisions.get(19));
        ListResult page = store.list(new ListRequest(prefix, ListRequest.Match.EXACT, revisions.get(9), null, null, 5));
        assertThat(page.items()).hasSize(5);
        assertThat(page.lastKey()).isNotNull();
        // A later page of the same snapshot still sees the state at that revision.
        store.delete(prefix + "k3", 0, null);
        ListResult rest = store.list(new ListRequest(prefix, ListRequest.Match.EXACT, revisions.get(9), null,
                page.lastKey(), 0));
        assertThat(page.items().size() + rest.items().size()).isEqualTo(10);
    }

    @Test
    void failedBatchFailsEveryWriteInItAndStoresNothing() {
        long before = store.currentRevision();
        String tooLong = prefix + "x".repeat(600);
        List<WriteOp> batch = List.of(
                WriteOp.of(WriteOp.Kind.CREATE, prefix + "good-1", obj("good-1", "v"), 0, null),
                WriteOp.of(WriteOp.Kind.CREATE, tooLong, obj("bad", "v"), 0, null),
                WriteOp.of(WriteOp.Kind.CREATE, prefix + "good-2", obj("good-2", "v"), 0, null));
        store.committer().submitTogether(batch);
        for (WriteOp op : batch) {
            assertThatThrownBy(() -> SqlStore.await(op)).isInstanceOfSatisfying(StorageException.class,
                    e -> assertThat(e.getMessage()).contains("rolled back", "nothing of it was stored"));
        }
        assertThat(store.get(prefix + "good-1")).isEmpty();
        assertThat(store.get(prefix + "good-2")).isEmpty();
        // The next batch commits normally, and no revision was burnt.
        StoredObject after = store.create(prefix + "good-3", obj("good-3", "v"));
        assertThat(store.get(prefix + "good-3")).isPresent();
        assertThat(new JdbcTemplate(dataSource).queryForObject(
                "SELECT COUNT(*) FROM kv_log WHERE revision > ? AND revision < ?", Long.class, before, after.modRevision()))
                .isEqualTo(after.modRevision() - before - 1);
    }

    @Test
    void aRejectedWriteInABatchDoesNotAffectItsNeighbours() {
        store.create(prefix + "taken", obj("taken", "v"));
        List<WriteOp> batch = List.of(
                WriteOp.of(WriteOp.Kind.CREATE, prefix + "n1", obj("n1", "v"), 0, null),
                WriteOp.of(WriteOp.Kind.CREATE, prefix + "taken", obj("taken", "w"), 0, null),
                WriteOp.of(WriteOp.Kind.UPDATE, prefix + "n1", obj("n1", "w"), 0, null),
                WriteOp.of(WriteOp.Kind.DELETE, prefix + "n1", null, 0, null),
                WriteOp.of(WriteOp.Kind.CREATE, prefix + "n1", obj("n1", "again"), 0, null));
        store.committer().submitTogether(batch);
        assertThat(SqlStore.await(batch.get(0)).value().get("data").asString()).isEqualTo("v");
        assertThatThrownBy(() -> SqlStore.await(batch.get(1)))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isExists()).isTrue());
        long r2 = SqlStore.await(batch.get(2)).modRevision();
        long r3 = SqlStore.await(batch.get(3)).modRevision();
        StoredObject last = SqlStore.await(batch.get(4));
        assertThat(r3).isEqualTo(r2 + 1);
        assertThat(last.modRevision()).isEqualTo(r3 + 1);
        assertThat(store.get(prefix + "n1").orElseThrow().value().get("data").asString()).isEqualTo("again");
        assertThat(store.history(prefix + "n1")).extracting(WatchEvent::revision)
                .containsSubsequence(r2, r3, last.modRevision());
        assertThat(store.history(prefix + "n1").get(0).type()).isEqualTo(WatchEvent.Type.ADDED);
    }

    @Test
    void watchesDeliverEveryEventOnceInOrderAndResume() throws Exception {
        long start = store.currentRevision();
        try (Watch w = store.watch(prefix, start)) {
            StoredObject a = store.create(prefix + "a", obj("a", "1"));
            store.update(prefix + "a", obj("a", "2"), a.modRevision(), null);
            store.delete(prefix + "a", 0, null);
            List<WatchEvent> seen = take(w, 3);
            assertThat(seen).extracting(WatchEvent::type)
                    .containsExactly(WatchEvent.Type.ADDED, WatchEvent.Type.MODIFIED, WatchEvent.Type.DELETED);
            assertThat(seen.get(1).prevObject().get("data").asString()).isEqualTo("1");
            assertThat(seen.get(2).object().get("data").asString()).isEqualTo("2");
            // Resuming after the first event replays the rest.
            try (Watch again = store.watch(prefix, seen.get(0).revision())) {
                assertThat(take(again, 2)).extracting(WatchEvent::revision)
                        .containsExactly(seen.get(1).revision(), seen.get(2).revision());
            }
        }
    }

    @Test
    void eightWritersAndAWatcherThatKeepsReconnectingSeeEveryRevisionOnce() throws Exception {
        int writers = 8;
        int updates = 500;
        List<String> keys = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            keys.add(prefix + "w" + w);
            store.create(keys.get(w), obj("w" + w, "0"));
        }
        long start = store.currentRevision();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<List<Long>>> acked = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            String key = keys.get(w);
            acked.add(pool.submit(() -> {
                List<Long> revs = new ArrayList<>();
                for (int i = 1; i <= updates; i++) {
                    revs.add(store.update(key, obj(key, Integer.toString(i)), 0, null).modRevision());
                }
                return revs;
            }));
        }
        List<Long> seen = new ArrayList<>();
        long last = start;
        int reconnects = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (seen.size() < writers * updates && System.nanoTime() < deadline) {
            try (Watch w = store.watch(prefix, last)) {
                for (int n = 0; n < 100; n++) {
                    WatchEvent e = w.next(5_000);
                    if (e == null) {
                        break;
                    }
                    assertThat(e.revision()).isGreaterThan(last);
                    seen.add(e.revision());
                    last = e.revision();
                }
            }
            reconnects++;
        }
        pool.shutdown();
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> f : acked) {
            all.addAll(f.get(60, TimeUnit.SECONDS));
        }
        Collections.sort(all);
        assertThat(reconnects).isGreaterThanOrEqualTo(writers * updates / 100);
        assertThat(seen).isSorted().doesNotHaveDuplicates().containsExactlyElementsOf(all);
    }

    @Test
    void compactionDropsSupersededRevisionsAndExpiresOldWatches() throws Exception {
        StoredObject a = store.create(prefix + "c", obj("c", "0"));
        long first = a.modRevision();
        for (int i = 1; i <= 5; i++) {
            store.update(prefix + "c", obj("c", Integer.toString(i)), 0, null);
        }
        SqlStore compacting = new SqlStore(dataSource, new StoreProperties(16, Duration.ZERO, 2, Duration.ofHours(1),
                4, 100, Duration.ofMillis(50)), logRepository);
        try {
            long compacted = compacting.compact();
            assertThat(compacted).isGreaterThan(first);
            assertThat(store.compactedRevision()).isEqualTo(compacted);
            assertThat(store.history(prefix + "c")).extracting(WatchEvent::revision)
                    .allMatch(r -> r > compacted || r == store.get(prefix + "c").orElseThrow().modRevision());
            // The small cache of the second store no longer reaches back; the log does not either: 410.
            assertThatThrownBy(() -> compacting.watch(prefix, first))
                    .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isExpired()).isTrue());
            assertThatThrownBy(() -> compacting.list(new ListRequest(prefix, ListRequest.Match.EXACT, first, null,
                    null, 0))).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isExpired()).isTrue());
        } finally {
            compacting.close();
        }
    }

    @Test
    void compactionInStepsRemovesEverySupersededRevisionAndKeepsEveryCurrentOne() throws Exception {
        // more revisions than one compaction transaction takes, spread over many keys
        List<StoredObject> current = new java.util.ArrayList<>();
        for (int k = 0; k < 50; k++) {
            StoredObject o = store.create(prefix + "step-" + k, obj("step-" + k, "0"));
            for (int i = 1; i <= 100; i++) {
                o = store.update(o.key(), obj("step-" + k, Integer.toString(i)), o.modRevision(), null);
            }
            current.add(o);
        }
        long deleted = store.delete(prefix + "step-0", 0, null).modRevision();
        for (int i = 0; i < 3; i++) {
            store.create(prefix + "step-after-" + i, obj("step-after-" + i, "0")); // the last revisions are kept
        }
        SqlStore compacting = new SqlStore(dataSource, new StoreProperties(16, Duration.ZERO, 2, Duration.ofHours(1),
                4, 100, Duration.ofMillis(50)), logRepository);
        try {
            long compacted = compacting.compact();
            assertThat(compacted).isGreaterThanOrEqualTo(deleted);
            for (StoredObject o : current.subList(1, current.size())) {
                assertThat(store.history(o.key())).extracting(WatchEvent::revision).containsExactly(o.modRevision());
                assertThat(store.get(o.key()).orElseThrow().value().path("data").asString()).isEqualTo("100");
            }
            assertThat(store.history(prefix + "step-0")).isEmpty();
        } finally {
            compacting.close();
        }
    }

    @Test
    void aWatchOlderThanTheCacheIsReplayedFromTheLog() throws Exception {
        StoredObject a = store.create(prefix + "old", obj("old", "0"));
        for (int i = 1; i <= 10; i++) {
            store.update(prefix + "old", obj("old", Integer.toString(i)), 0, null);
        }
        SqlStore small = new SqlStore(dataSource, new StoreProperties(16, Duration.ofHours(1), 1000,
                Duration.ofHours(1), 2, 100, Duration.ofMillis(50)), logRepository);
        try {
            store.update(prefix + "old", obj("old", "11"), 0, null);
            store.update(prefix + "old", obj("old", "12"), 0, null);
            store.update(prefix + "old", obj("old", "13"), 0, null);
            try (Watch w = small.watch(prefix, a.modRevision())) {
                List<WatchEvent> events = take(w, 13);
                assertThat(events).extracting(e -> e.object().get("data").asString())
                        .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13");
            }
        } finally {
            small.close();
        }
    }

    @Test
    void aSlowWatcherIsEndedAfterItsBufferedEventsAndCanResume() throws Exception {
        SqlStore tiny = new SqlStore(dataSource, new StoreProperties(16, Duration.ofHours(1), 1000, Duration.ofHours(1),
                1000, 3, Duration.ofMillis(50)), logRepository);
        try {
            long start = tiny.currentRevision();
            Watch w = tiny.watch(prefix, start);
            List<Long> written = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                written.add(store.create(prefix + "s" + i, obj("s" + i, "v")).modRevision());
            }
            awaitCache(tiny, written.get(9));
            List<Long> seen = new ArrayList<>();
            WatchEvent e;
            while ((e = w.next(200)) != null) {
                seen.add(e.revision());
            }
            assertThat(w.isEnded()).isTrue();
            assertThat(seen).hasSize(3).containsExactlyElementsOf(written.subList(0, 3));
            w.close();
            try (Watch resumed = tiny.watch(prefix, seen.get(2))) {
                assertThat(take(resumed, 7)).extracting(WatchEvent::revision)
                        .containsExactlyElementsOf(written.subList(3, 10));
            }
        } finally {
            tiny.close();
        }
    }

    @Test
    void anObjectTheDatabaseStoresSlightlyOtherwiseIsNoSignOfLostWrites() throws Exception {
        // a lone surrogate: PostgreSQL's driver writes it as '?', the cache keeps it
        long rev = store.create(prefix + "odd", obj("odd", "\ud800")).modRevision();
        try (Watch w = store.watch(prefix, rev)) {
            Thread.sleep(500); // several polls of the log
            assertThat(w.isEnded()).as("no reload: the entry is the one applied").isFalse();
        }
    }

    @Test
    void aDatabaseThatLostAnAcknowledgedWriteIsNotBelievedItReloadsTheCacheAndEndsWatches() throws Exception {
        SqlStore follower = new SqlStore(dataSource, new StoreProperties(16, Duration.ofHours(1), 1000,
                Duration.ofHours(1), 1000, 100, Duration.ofMillis(50)), logRepository);
        try {
            long lost = store.create(prefix + "lost", obj("lost", "v")).modRevision();
            awaitCache(follower, lost);
            Watch w = follower.watch(prefix, lost);
            // what a failover to a standby that lacked the write does: the log, the object and the counter go back
            JdbcTemplate db = new JdbcTemplate(dataSource);
            db.update("DELETE FROM kv_log WHERE revision = ?", lost);
            db.update("DELETE FROM kv_current WHERE obj_key = ?", prefix + "lost");
            db.update("UPDATE revision_counter SET revision = ? WHERE id = 1", lost - 1);
            long again = store.create(prefix + "other", obj("other", "v")).modRevision();
            assertThat(again).as("the database hands the revision out again").isEqualTo(lost);
            long deadline = System.currentTimeMillis() + 10_000;
            while (!w.isEnded() && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertThat(w.isEnded()).as("watches end, so that their clients list again").isTrue();
            w.close();
            for (SqlStore s : List.of(follower, store)) {
                ListRequest all = new ListRequest(prefix, ListRequest.Match.ANY, 0, null, null, 0);
                while (!s.list(all).items().stream().map(StoredObject::key).toList().equals(List.of(prefix + "other"))
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(s.list(all).items()).as("the cache holds what the database holds")
                        .extracting(StoredObject::key).containsExactly(prefix + "other");
            }
        } finally {
            follower.close();
        }
    }

    /** Seals values under one key prefix ("k8s:enc:test:" and the text reversed); opens them only when it may. */
    static ValueTransformer sealing(String under, boolean opens) {
        return new ValueTransformer() {
            @Override
            public String toStorage(String key, String json) {
                return key.startsWith(under) ? "k8s:enc:test:" + new StringBuilder(json).reverse() : json;
            }

            @Override
            public String fromStorage(String key, String stored) {
                if (!stored.startsWith("k8s:enc:test:")) {
                    return ValueTransformer.IDENTITY.fromStorage(key, stored);
                }
                if (!opens) {
                    throw new StorageException(StorageException.Code.UNREADABLE, key, "unable to transform key \""
                            + key + "\": no matching prefix found");
                }
                return new StringBuilder(stored.substring("k8s:enc:test:".length())).reverse().toString();
            }
        };
    }

    /** A second replica that polls the log once an hour: only its own commits bring its cache up to date. */
    private SqlStore lagging() {
        return new SqlStore(dataSource, new StoreProperties(16, Duration.ofHours(1), 1000, Duration.ofHours(1), 1000,
                100, Duration.ofHours(1)), logRepository, ValueTransformer.IDENTITY);
    }

    @Test
    void aReplicaWhoseCacheLagsTheOthersWritesTakesThePreviousObjectFromTheLog() throws Exception {
        String key = prefix + "shared";
        try (SqlStore lagging = lagging()) {
            StoredObject v1 = store.create(key, obj("shared", "one"));
            assertThat(lagging.getCached(key)).as("not seen by the lagging replica's cache").isEmpty();
            StoredObject v2 = lagging.update(key, obj("shared", "two"), v1.modRevision(), null);
            StoredObject v3 = store.update(key, obj("shared", "three"), v2.modRevision(), null);
            StoredObject deleted = lagging.delete(key, v3.modRevision(), null);
            assertThat(deleted.value().path("data").asString()).as("the object as the other replica last wrote it")
                    .isEqualTo("three");
            assertThat(store.history(key)).extracting(e -> e.type().name()).endsWith("DELETED");
        }
    }

    @Test
    void aCurrentRowWhoseLogValueIsGoneIsDamageNotAnAbsentObject() throws Exception {
        String key = prefix + "damaged";
        try (SqlStore lagging = lagging()) {
            StoredObject v1 = store.create(key, obj("damaged", "one"));
            new JdbcTemplate(dataSource).update("DELETE FROM kv_log WHERE revision = ?", v1.modRevision());
            assertThatThrownBy(() -> lagging.create(key, obj("damaged", "again")))
                    .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isExists()).isTrue());
            assertThatThrownBy(() -> lagging.update(key, obj("damaged", "two"), v1.modRevision(), null))
                    .isInstanceOfSatisfying(StorageException.class,
                            e -> assertThat(e.code()).isEqualTo(StorageException.Code.INTERNAL));
        }
    }

    @Test
    void theDatabaseHoldsTransformedValuesAndAReplicaThatCannotReadThemLeavesThemOutAndAnswersInternal()
            throws Exception {
        StoreProperties props = new StoreProperties(16, Duration.ofHours(1), 1000, Duration.ofHours(1), 1000, 100,
                Duration.ofMillis(50));
        String sealed = prefix + "sealed/";
        ListRequest all = new ListRequest(prefix, ListRequest.Match.ANY, 0, null, null, 0);
        try (SqlStore writer = new SqlStore(dataSource, props, logRepository, sealing(sealed, true))) {
            StoredObject s = writer.create(sealed + "s", obj("s", "the-secret"));
            writer.update(sealed + "s", obj("s", "the-second-secret"), s.modRevision(), null);
            writer.create(prefix + "plain", obj("plain", "open"));
            JdbcTemplate db = new JdbcTemplate(dataSource);
            assertThat(db.queryForList("SELECT obj_value FROM kv_log WHERE obj_key = ?", String.class, sealed + "s"))
                    .hasSize(2).allSatisfy(v -> assertThat(v).startsWith("k8s:enc:test:").doesNotContain("the-secret")
                            .doesNotContain("the-second-secret"));
            assertThat(db.queryForObject("SELECT l.obj_value FROM kv_current c JOIN kv_log l ON l.revision ="
                    + " c.mod_revision WHERE c.obj_key = ?", String.class, sealed + "s")).startsWith("k8s:enc:test:");
            assertThat(db.queryForList("SELECT * FROM kv_current WHERE obj_key = ?", sealed + "s").get(0))
                    .as("the current table holds no second copy of the value").doesNotContainKey("OBJ_VALUE")
                    .doesNotContainKey("obj_value");
            assertThat(writer.get(sealed + "s").orElseThrow().value().path("data").asString())
                    .isEqualTo("the-second-secret");
            assertThat(writer.history(sealed + "s")).extracting(e -> e.object().path("data").asString())
                    .containsExactly("the-secret", "the-second-secret");

            // a second store on the database with the same transformer reads everything back from it
            try (SqlStore reader = new SqlStore(dataSource, props, logRepository, sealing(sealed, true))) {
                assertThat(reader.list(all).items()).extracting(o -> o.value().path("data").asString())
                        .containsExactly("open", "the-second-secret");
            }
            // one without the key: the value is left out of lists, and reading or writing it fails naming it
            try (SqlStore blind = new SqlStore(dataSource, props, logRepository, sealing(sealed, false))) {
                assertThat(blind.list(all).items()).extracting(StoredObject::key).containsExactly(prefix + "plain");
                assertThatThrownBy(() -> blind.get(sealed + "s")).isInstanceOfSatisfying(StorageException.class,
                        e -> assertThat(e.getMessage()).isEqualTo("unable to transform key \"" + sealed + "s\": no"
                                + " matching prefix found"));
                assertThatThrownBy(() -> blind.update(sealed + "s", obj("s", "over"), 0, null))
                        .isInstanceOfSatisfying(StorageException.class,
                                e -> assertThat(e.code()).isEqualTo(StorageException.Code.UNREADABLE));
                assertThatThrownBy(() -> blind.create(sealed + "s", obj("s", "again")))
                        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.isExists()).isTrue());
                // later writes tailed from the log: the one it cannot read is left out, the cache goes on
                writer.create(sealed + "t", obj("t", "another-secret"));
                long after = writer.create(prefix + "u", obj("u", "x")).modRevision();
                awaitCache(blind, after);
                assertThat(blind.list(all).items()).extracting(StoredObject::key)
                        .containsExactly(prefix + "plain", prefix + "u");
                assertThat(writer.get(sealed + "s").orElseThrow().value().path("data").asString())
                        .as("nothing was overwritten").isEqualTo("the-second-secret");
            }
            // a store configured with no transformer at all refuses what is encrypted instead of misreading it
            try (SqlStore plain = new SqlStore(dataSource, props, logRepository)) {
                assertThat(plain.list(all).items()).extracting(StoredObject::key)
                        .containsExactly(prefix + "plain", prefix + "u");
                assertThatThrownBy(() -> plain.get(sealed + "s")).hasMessage("unable to transform key \"" + sealed
                        + "s\": identity transformer tried to read encrypted data");
            }
        }
    }

    static void awaitCache(SqlStore s, long revision) throws InterruptedException {
        for (int i = 0; i < 500 && s.cachedRevision() < revision; i++) {
            Thread.sleep(10);
        }
        assertThat(s.cachedRevision()).isGreaterThanOrEqualTo(revision);
    }

    static List<WatchEvent> take(Watch w, int n) throws InterruptedException {
        List<WatchEvent> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 10_000;
        while (out.size() < n && System.currentTimeMillis() < deadline) {
            WatchEvent e = w.next(500);
            if (e != null) {
                out.add(e);
            }
        }
        assertThat(out).hasSize(n);
        return out;
    }
}

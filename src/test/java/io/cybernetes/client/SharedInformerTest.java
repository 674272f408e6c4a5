package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.ConfigMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SharedInformerTest {

    final FakeListerWatcher server = new FakeListerWatcher();
    final List<String> heard = new CopyOnWriteArrayList<>();
    SharedInformer<ConfigMap> informer;

    ResourceEventHandler<ConfigMap> recorder() {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap obj) {
                heard.add("add " + obj.getMetadata().getName() + "=" + obj.getData().get("v"));
            }

            @Override
            public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
                heard.add("update " + newObj.getMetadata().getName() + "=" + newObj.getData().get("v"));
            }

            @Override
            public void onDelete(ConfigMap lastKnown, boolean finalStateUnknown) {
                heard.add((finalStateUnknown ? "delete (missed) " : "delete ") + lastKnown.getMetadata().getName());
            }
        };
    }

    @AfterEach
    void stop() {
        if (informer != null) {
            informer.stop();
        }
    }

    @Test
    void theFirstListThenEveryWatchedChangeReachTheIndexerAndTheHandlers() throws Exception {
        server.put("a", "1");
        informer = new SharedInformer<>("test", server, Duration.ZERO);
        informer.addEventHandler(recorder());
        informer.start();
        assertThat(informer.waitForSync(Duration.ofSeconds(5))).isTrue();
        assertThat(heard).containsExactly("add a=1");
        await().until(() -> server.watches.get() == 1);
        server.put("b", "1");
        server.put("a", "2");
        server.remove("b");
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 4);
        // the changes of one key come in order; between keys the order depends on when the informer takes them
        assertThat(heard).hasSize(4).startsWith("add a=1").containsSubsequence("add b=1", "delete b")
                .contains("update a=2");
        assertThat(informer.indexer().get("ns/a").orElseThrow().getData().get("v")).isEqualTo("2");
        assertThat(informer.indexer().byIndex(Indexer.NAMESPACE_INDEX, "ns")).hasSize(1);
    }

    @Test
    void aTransformShapesEveryObjectBeforeTheCacheAsTheControllersInformersDropManagedFields() throws Exception {
        server.put(withManagedFields("a"));
        informer = new SharedInformer<>("test", server, Duration.ZERO, SharedInformer::withoutManagedFields);
        informer.addEventHandler(recorder());
        informer.start();
        assertThat(informer.waitForSync(Duration.ofSeconds(5))).isTrue();
        await().until(() -> server.watches.get() == 1);
        server.put(withManagedFields("b"));
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 2);
        assertThat(informer.indexer().list()).hasSize(2)
                .allSatisfy(c -> assertThat(c.getMetadata().getManagedFields()).isNullOrEmpty());
    }

    private static ConfigMap withManagedFields(String name) {
        ConfigMap c = FakeListerWatcher.cm(name, "1");
        c.getMetadata().setManagedFields(List.of(new io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder()
                .withManager("kubectl").withOperation("Update").build()));
        return c;
    }

    @Test
    void anExpiredRevisionRelistsAndADeletionTheWatchMissedComesAsFinalStateUnknown() throws Exception {
        server.put("a", "1");
        server.put("b", "1");
        informer = new SharedInformer<>("test", server, Duration.ZERO);
        informer.addEventHandler(recorder());
        informer.start();
        informer.waitForSync(Duration.ofSeconds(5));
        await().until(() -> server.watches.get() == 1);
        server.removeUnseen("b");
        server.expireWatch();
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.contains("delete (missed) b"));
        assertThat(server.lists.get()).isEqualTo(2);
        assertThat(informer.indexer().keys()).containsExactly("ns/a");
        assertThat(informer.reflector().relists()).isEqualTo(2);
    }

    @Test
    void aWatchTheServerEndsResumesWithoutARelistAndLosesNothing() throws Exception {
        informer = new SharedInformer<>("test", server, Duration.ZERO);
        informer.addEventHandler(recorder());
        informer.start();
        informer.waitForSync(Duration.ofSeconds(5));
        await().until(() -> server.watches.get() == 1);
        server.put("a", "1");
        server.endWatch();
        await().until(() -> server.watches.get() == 2);
        server.put("a", "2");
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 2);
        assertThat(heard).containsExactly("add a=1", "update a=2");
        assertThat(server.lists.get()).isEqualTo(1);
        assertThat(informer.reflector().lastSyncResourceVersion()).isEqualTo("2");
    }

    @Test
    void aResyncHandsEveryKnownObjectToTheHandlersAgain() throws Exception {
        server.put("a", "1");
        informer = new SharedInformer<>("test", server, Duration.ofMillis(200));
        informer.addEventHandler(recorder());
        informer.start();
        informer.waitForSync(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.contains("update a=1"));
    }

    @Test
    void aHandlerAddedLateHearsOfWhatIsAlreadyKnownAndAFailingHandlerHarmsNoOther() throws Exception {
        server.put("a", "1");
        informer = new SharedInformer<>("test", server, Duration.ZERO);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap obj) {
                throw new IllegalStateException("broken handler");
            }

            @Override
            public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
                throw new IllegalStateException("broken handler");
            }
        });
        informer.start();
        informer.waitForSync(Duration.ofSeconds(5));
        informer.addEventHandler(recorder());
        assertThat(heard).containsExactly("add a=1");
        await().until(() -> server.watches.get() == 1);
        server.put("b", "1");
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.contains("add b=1"));
    }
}

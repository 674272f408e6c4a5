package io.cybernetes.controller.garbagecollector;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The garbage collector's decisions, object by object, against a recording client. */
class GarbageCollectorTest {

    final RecordingApiClient client = new RecordingApiClient();
    final GarbageCollector gc = new GarbageCollector(client, ResourceRegistry.builtIn());
    final ResourceEventHandler<ConfigMap> graph = gc.handler(new Controller("gc-test", gc, 1),
            ResourceRegistry.builtIn().byModel(ConfigMap.class).orElseThrow());

    static OwnerReference ref(String name, boolean block) {
        return new OwnerReferenceBuilder().withApiVersion("v1").withKind("ConfigMap").withName(name)
                .withUid("uid-" + name).withBlockOwnerDeletion(block).build();
    }

    static ConfigMapBuilder cm(String name, OwnerReference... owners) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name)
                .withOwnerReferences(owners).endMetadata();
    }

    static ConfigMap deleting(String name, String finalizer) {
        return cm(name).editMetadata().withDeletionTimestamp("2026-11-29T12:00:00Z").withFinalizers(finalizer)
                .endMetadata().build();
    }

    private Result reconcile(String name) {
        return gc.reconcile(new Request("", "uid-" + name));
    }

    @Test
    void aDependentOfALiveOwnerIsLeftAlone() {
        graph.onAdd(cm("owner").build());
        graph.onAdd(cm("dep", ref("owner", false)).build());
        reconcile("dep");
        assertThat(client.actions).isEmpty();
    }

    /** The dependent, in the graph and on the server alike. */
    private void dependent(ConfigMap dep) {
        graph.onAdd(dep);
        client.put(dep);
    }

    @Test
    void aDependentWhoseOnlyOwnerTheServerDoesNotHaveIsDeletedInTheBackground() {
        dependent(cm("dep", ref("ghost", false)).build());
        reconcile("dep");
        assertThat(client.actions).containsExactly("delete ConfigMap dep Background");
    }

    @Test
    void anOwnerMissingFromTheCacheButOnTheServerKeepsItsDependent() {
        client.put(cm("slow").build());
        graph.onAdd(cm("dep", ref("slow", false)).build());
        reconcile("dep");
        assertThat(client.actions).isEmpty();
    }

    @Test
    void anOwnerReplacedUnderTheSameNameCountsAsGone() {
        client.put(cm("reborn").editMetadata().withUid("another-uid").endMetadata().build());
        dependent(cm("dep", ref("reborn", false)).build());
        reconcile("dep");
        assertThat(client.actions).containsExactly("delete ConfigMap dep Background");
    }

    @Test
    void aGoneOwnerAmongLiveOnesIsRemovedFromTheReferences() {
        graph.onAdd(cm("alive").build());
        dependent(cm("dep", ref("alive", false), ref("ghost", false)).build());
        reconcile("dep");
        assertThat(client.actions).containsExactly("patch ConfigMap dep");
    }

    @Test
    void aDependentTheServerShowsAlreadyOrphanedIsLeftAlone() {
        graph.onAdd(cm("dep", ref("ghost", false)).build()); // the graph has not seen the orphaning yet
        client.put(cm("dep").build());
        reconcile("dep");
        assertThat(client.actions).isEmpty();
    }

    @Test
    void foregroundDeletesTheDependentsFirstAndThenLetsTheOwnerGo() {
        graph.onAdd(deleting("owner", GarbageCollector.FOREGROUND));
        graph.onAdd(cm("dep", ref("owner", true)).build());
        Result r = reconcile("owner");
        assertThat(client.actions).containsExactly("delete ConfigMap dep Foreground");
        assertThat(r.requeueAfter()).isEqualTo(Duration.ofMillis(500));
        graph.onDelete(cm("dep", ref("owner", true)).build(), false);
        client.actions.clear();
        reconcile("owner");
        assertThat(client.actions).containsExactly("patch ConfigMap owner");
    }

    @Test
    void aBlockingDependentOfAForegroundDeletionGoesInTheForeground() {
        client.put(deleting("owner", GarbageCollector.FOREGROUND));
        dependent(cm("dep", ref("owner", true)).build());
        reconcile("dep");
        assertThat(client.actions).containsExactly("delete ConfigMap dep Foreground");
    }

    @Test
    void orphaningTakesTheOwnerOutOfEveryDependentThenRemovesTheFinalizer() {
        graph.onAdd(deleting("owner", GarbageCollector.ORPHAN));
        graph.onAdd(cm("a", ref("owner", false)).build());
        graph.onAdd(cm("b", ref("owner", false)).build());
        reconcile("owner");
        assertThat(client.actions).containsExactlyInAnyOrder("patch ConfigMap a", "patch ConfigMap b",
                "patch ConfigMap owner");
        assertThat(client.actions.get(client.actions.size() - 1)).isEqualTo("patch ConfigMap owner");
    }

    @Test
    void aDependentTheGraphSawOnlyAfterItsOwnerWasOrphanedIsLetGoNotDeleted() {
        graph.onAdd(deleting("owner", GarbageCollector.ORPHAN));
        reconcile("owner"); // no dependents known yet: the finalizer goes at once
        graph.onDelete(deleting("owner", GarbageCollector.ORPHAN), false);
        client.actions.clear();
        dependent(cm("late", ref("owner", false)).build());
        reconcile("late");
        assertThat(client.actions).containsExactly("patch ConfigMap late");
    }

    @Test
    void objectsWithoutOwnersOrFinalizersNeedNothing() {
        for (String name : List.of("plain", "other")) {
            graph.onAdd(cm(name).build());
            reconcile(name);
        }
        reconcile("never-seen");
        assertThat(client.actions).isEmpty();
    }
}

package io.cybernetes.client;

import io.cybernetes.apiserver.ApiTestSupport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Events about an object, with the same event counted instead of repeated; and one informer per kind. */
class EventRecorderTest extends ApiTestSupport {

    static final String NS = "events";

    @Test
    void theSameEventAgainIsCountedAndAnotherIsItsOwnObject() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        ConfigMap about = client.create(new ConfigMapBuilder().withNewMetadata().withNamespace(NS).withName("subject")
                .endMetadata().build());
        EventRecorder recorder = new EventRecorder(client, "test-controller");
        recorder.warning(about, "FailedCreate", "quota exceeded");
        recorder.warning(about, "FailedCreate", "quota exceeded");
        recorder.normal(about, "Synced", "all good");
        List<Event> events = client.list(Event.class, NS, null).items();
        assertThat(events).hasSize(2);
        Event failed = events.stream().filter(e -> e.getReason().equals("FailedCreate")).findFirst().orElseThrow();
        assertThat(failed.getCount()).isEqualTo(2);
        assertThat(failed.getType()).isEqualTo("Warning");
        assertThat(failed.getInvolvedObject().getName()).isEqualTo("subject");
        assertThat(failed.getInvolvedObject().getUid()).isEqualTo(about.getMetadata().getUid());
        assertThat(failed.getSource().getComponent()).isEqualTo("test-controller");
        // what kubectl describe looks for: events by involvedObject
        Response byObject = get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name=subject");
        assertThat(byObject.json().path("items").size()).isEqualTo(2);
    }

    @Test
    void theFactoryHandsOutOneInformerPerKind() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        client.create(new ConfigMapBuilder().withNewMetadata().withNamespace(NS).withName("known-" + System.nanoTime())
                .endMetadata().build());
        SharedInformerFactory factory = new SharedInformerFactory(client, Duration.ZERO);
        SharedInformer<ConfigMap> a = factory.informerFor(ConfigMap.class);
        assertThat(factory.informerFor(ConfigMap.class)).isSameAs(a);
        factory.start();
        try {
            assertThat(factory.waitForSync(Duration.ofSeconds(10))).isTrue();
            assertThat(a.indexer().size()).isPositive();
        } finally {
            factory.stop();
        }
    }
}

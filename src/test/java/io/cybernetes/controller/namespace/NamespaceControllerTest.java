package io.cybernetes.controller.namespace;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class NamespaceControllerTest {

    static Namespace ns(boolean terminating, String... finalizers) {
        NamespaceBuilder b = new NamespaceBuilder().withNewMetadata().withName("team").endMetadata().withNewSpec()
                .withFinalizers(finalizers).endSpec();
        if (terminating) {
            b.editMetadata().withDeletionTimestamp("2026-11-29T10:00:00Z").endMetadata();
        }
        return b.build();
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("an empty terminating namespace is finalized", ns(true, "kubernetes"),
                        List.of("finalize Namespace team []")),
                Arguments.of("other finalizers stay for their owners", ns(true, "kubernetes", "example.com/backup"),
                        List.of("finalize Namespace team [example.com/backup]")),
                Arguments.of("an active namespace is left alone", ns(false, "kubernetes"), List.of()),
                Arguments.of("a namespace already finalized by us is left alone", ns(true), List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void terminatingNamespacesAreFinalizedOnceEmpty(String name, Namespace ns, List<String> writes) throws Exception {
        RecordingApiClient client = new RecordingApiClient();
        Indexer<Namespace> namespaces = new Indexer<>();
        namespaces.put(ns);
        new NamespaceController(client, namespaces, ResourceRegistry.builtIn(), new EventRecorder(client, "ns"))
                .reconcile(new Request("", "team"));
        assertThat(client.actions).isEqualTo(writes);
    }
}

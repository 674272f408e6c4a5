package io.cybernetes.controller.serviceaccount;

import io.cybernetes.client.Indexer;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** A {@code default} ServiceAccount for every active namespace that lacks one, and for no other. */
class ServiceAccountsControllerTest {

    @ParameterizedTest(name = "namespace {0}, terminating {1}, has default {2} → creates {3}")
    @CsvSource({"true, false, false, true", "true, false, true, false", "true, true, false, false",
            "false, false, false, false"})
    void createsTheDefaultAccountOnlyWhereItIsMissing(boolean exists, boolean terminating, boolean hasDefault,
                                                     boolean creates) {
        RecordingApiClient client = new RecordingApiClient();
        Indexer<Namespace> namespaces = new Indexer<>();
        Indexer<ServiceAccount> accounts = new Indexer<>();
        if (exists) {
            NamespaceBuilder ns = new NamespaceBuilder().withNewMetadata().withName("team").endMetadata();
            if (terminating) {
                ns.editMetadata().withDeletionTimestamp("2026-11-29T12:00:00Z").endMetadata();
            }
            namespaces.put(ns.build());
        }
        if (hasDefault) {
            accounts.put(new ServiceAccountBuilder().withNewMetadata().withNamespace("team").withName("default")
                    .endMetadata().build());
        }
        new ServiceAccountsController(client, namespaces, accounts).reconcile(new Request("", "team"));
        if (creates) {
            assertThat(client.actions).containsExactly("create ServiceAccount default");
            assertThat(client.created.get(0).getMetadata().getNamespace()).isEqualTo("team");
        } else {
            assertThat(client.actions).isEmpty();
        }
    }
}

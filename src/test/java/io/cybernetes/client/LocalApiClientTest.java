package io.cybernetes.client;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.apiserver.ApiTestSupport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The in-process client takes the same path as an HTTP request: its token is
 * authenticated, its requests authorized, admitted and validated, and watches stream.
 */
class LocalApiClientTest extends ApiTestSupport {

    private static final io.cybernetes.api.ResourceType CONFIG_MAPS = io.cybernetes.api.ResourceRegistry.builtIn()
            .byModel(ConfigMap.class).orElseThrow();

    static final String NS = "local-client";

    @Autowired
    LocalApi api;

    @Autowired
    InProcessCredentials credentials;

    ApiClient admin;

    @BeforeEach
    void client() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        admin = ApiClients.local(api, token());
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace(NS).withName(name).endMetadata()
                .withData(Map.of("k", "v")).build();
    }

    @Test
    void everyVerbWorksAndAWatchSeesTheChanges() throws Exception {
        ListerWatcher.Listed<ConfigMap> before = admin.list(ConfigMap.class, NS, null);
        try (ListerWatcher.WatchStream<ConfigMap> watch = admin.watch(ConfigMap.class, NS, before.resourceVersion())) {
            ConfigMap created = admin.create(configMap("local-verbs"));
            assertThat(created.getMetadata().getUid()).isNotEmpty();
            created.getData().put("k", "v2");
            ConfigMap updated = admin.update(created);
            assertThat(updated.getData()).containsEntry("k", "v2");
            ConfigMap patched = admin.patch(ConfigMap.class, NS, "local-verbs", "{\"data\":{\"k\":\"v3\"}}");
            assertThat(patched.getData()).containsEntry("k", "v3");
            assertThat(admin.get(ConfigMap.class, NS, "local-verbs")).isPresent();
            assertThat(admin.list(ConfigMap.class, NS, null).items()).extracting(c -> c.getMetadata().getName())
                    .contains("local-verbs");
            admin.delete(ConfigMap.class, NS, "local-verbs", null);
            assertThat(admin.get(ConfigMap.class, NS, "local-verbs")).isEmpty();

            List<ListerWatcher.Event.Type> seen = new ArrayList<>();
            while (seen.size() < 4) {
                ListerWatcher.Event<ConfigMap> e = watch.next(10_000);
                assertThat(e).as("events after " + seen).isNotNull();
                if (e.type() != ListerWatcher.Event.Type.BOOKMARK) {
                    seen.add(e.type());
                }
            }
            assertThat(seen).containsExactly(ListerWatcher.Event.Type.ADDED, ListerWatcher.Event.Type.MODIFIED,
                    ListerWatcher.Event.Type.MODIFIED, ListerWatcher.Event.Type.DELETED);
        }
    }

    @Test
    void metadataOnlyListsAndWatchesGivePartialObjectMetadata() throws Exception {
        admin.create(configMap("meta-listed"));
        ListerWatcher.Listed<PartialObjectMetadata> listed = admin.listMetadata(CONFIG_MAPS, NS);
        PartialObjectMetadata item = listed.items().stream().filter(p -> p.getMetadata().getName()
                .equals("meta-listed")).findFirst().orElseThrow();
        assertThat(item.getKind()).isEqualTo("PartialObjectMetadata");
        assertThat(item.getMetadata().getUid()).isNotEmpty();
        try (ListerWatcher.WatchStream<PartialObjectMetadata> watch = admin.watchMetadata(CONFIG_MAPS, NS,
                listed.resourceVersion())) {
            admin.create(configMap("meta-watched"));
            ListerWatcher.Event<PartialObjectMetadata> e;
            do {
                e = watch.next(10_000);
                assertThat(e).isNotNull();
            } while (e.type() == ListerWatcher.Event.Type.BOOKMARK);
            assertThat(e.type()).isEqualTo(ListerWatcher.Event.Type.ADDED);
            assertThat(e.object().getMetadata().getName()).isEqualTo("meta-watched");
            assertThat(e.object().getKind()).isEqualTo("PartialObjectMetadata");
        }
    }

    @Test
    void anUnknownTokenIsUnauthorized() {
        ApiException e = catchThrowableOfType(ApiException.class,
                () -> ApiClients.local(api, "no-such-token").list(ConfigMap.class, NS, null));
        assertThat(e.code()).isEqualTo(401);
    }

    @Test
    void requestsAreAuthorizedAsTheTokensUser() {
        ApiException e = catchThrowableOfType(ApiException.class,
                () -> ApiClients.local(api, "alice-token").create(configMap("from-alice")));
        assertThat(e.code()).isEqualTo(403);
        assertThat(e.getMessage()).contains("User \"alice\" cannot create resource \"configmaps\" in API group \"\""
                + " in the namespace \"" + NS + "\"");
    }

    @Test
    void aComponentActsUnderItsOwnIdentityAndItsRoleOnly() {
        ApiClient manager = ApiClients.local(api, credentials.tokenFor("system:kube-controller-manager", List.of()));
        Pod pod = manager.create(new PodBuilder().withNewMetadata().withNamespace(NS).withName("made-by-manager")
                .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer()
                .endSpec().build());
        // admission ran: the ServiceAccount plugin set the pod's account
        assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("default");
        ApiException e = catchThrowableOfType(ApiException.class, () -> manager.create(configMap("by-manager")));
        assertThat(e.code()).isEqualTo(403);
        assertThat(e.getMessage()).contains("system:kube-controller-manager");
        assertThat(credentials.tokenFor("system:kube-controller-manager", List.of()))
                .isEqualTo(credentials.tokenFor("system:kube-controller-manager", List.of()));
    }

    @Test
    void schemaValidationAndAdmissionApply() {
        Deployment bad = new DeploymentBuilder().withNewMetadata().withNamespace(NS).withName("negative").endMetadata()
                .withNewSpec().withReplicas(-1).withNewSelector().addToMatchLabels("a", "b").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("a", "b").endMetadata().withNewSpec()
                .addNewContainer().withName("c").withImage("nginx").endContainer().endSpec().endTemplate().endSpec()
                .build();
        assertThatThrownBy(() -> admin.create(bad)).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.code()).isEqualTo(422);
            assertThat(e.getMessage()).contains("spec.replicas");
        });
        assertThat(admin.get(Deployment.class, NS, "negative")).isEmpty();
    }
}

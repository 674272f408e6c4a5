package io.cybernetes.scheduler.internal;

import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.Json;
import io.cybernetes.api.LocalApi;
import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.auth.BootstrapPolicy;
import io.cybernetes.auth.UserInfo;
import io.cybernetes.client.ApiClients;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A preemption's victims are named to a reader only where the reader may get them, as
 * the API server's authorizer answers; victims elsewhere are counted, not named.
 */
class PlacementEndpointTest extends ApiTestSupport {

    @Autowired
    LocalApi api;

    @Autowired
    InProcessCredentials credentials;

    private static Pod pod(String namespace, String name) {
        return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata().build();
    }

    @Test
    void aReaderSeesOnlyTheVictimsTheyMayGet() {
        assertThat(createNamespace("placement-a").code()).isIn(201, 409);
        assertThat(createNamespace("placement-b").code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/placement-a/rolebindings",
                "{\"metadata\":{\"name\":\"team-a-view\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
                        + "\"kind\":\"ClusterRole\",\"name\":\"view\"},\"subjects\":[{\"kind\":\"Group\","
                        + "\"name\":\"team-a\",\"apiGroup\":\"rbac.authorization.k8s.io\"}]}").code()).isIn(201, 409);
        Framework.Decision preempting = new Framework.Decision(null, 1, Map.of(), Map.of(), null,
                new Plugin.PostFilterResult(Status.SUCCESS, "node-1",
                        List.of(pod("placement-a", "own"), pod("placement-b", "theirs"))), 0, 0, null);
        PlacementEndpoint endpoint = new PlacementEndpoint(key -> Optional.of(preempting),
                ApiClients.local(api, credentials.tokenFor(BootstrapPolicy.KUBE_SCHEDULER, List.of())));

        UserInfo alice = UserInfo.authenticated("alice", "u-alice", List.of("team-a"));
        eventually(() -> {
            JsonNode seen = Json.MAPPER.readTree(endpoint.placement("placement-a", "urgent", alice).getBody())
                    .path("status").path("preemption");
            assertThat(seen.path("victims").toString()).isEqualTo("[\"placement-a/own\"]");
            assertThat(seen.path("victimsNotShown").asInt()).isEqualTo(1);
        });
        UserInfo admin = UserInfo.authenticated("admin", "", List.of(UserInfo.MASTERS));
        JsonNode all = Json.MAPPER.readTree(endpoint.placement("placement-a", "urgent", admin).getBody())
                .path("status").path("preemption");
        assertThat(all.path("victims").toString()).isEqualTo("[\"placement-a/own\",\"placement-b/theirs\"]");
        assertThat(all.has("victimsNotShown")).isFalse();
    }
}

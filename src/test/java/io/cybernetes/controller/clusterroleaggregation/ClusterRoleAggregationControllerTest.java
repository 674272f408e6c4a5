package io.cybernetes.controller.clusterroleaggregation;

import io.cybernetes.client.Indexer;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The union written into aggregated ClusterRoles: by label, in name order, through roles that aggregate in turn. */
class ClusterRoleAggregationControllerTest {

    final RecordingApiClient client = new RecordingApiClient();
    final Indexer<ClusterRole> roles = new Indexer<>();
    final ClusterRoleAggregationController controller = new ClusterRoleAggregationController(client, roles);

    static PolicyRule rule(String resource) {
        return new PolicyRuleBuilder().withApiGroups("").withResources(resource).withVerbs("get").build();
    }

    static ClusterRole labelled(String name, String label, PolicyRule... rules) {
        return new ClusterRoleBuilder().withNewMetadata().withName(name).addToLabels(label, "true").endMetadata()
                .withRules(rules).build();
    }

    static ClusterRole aggregating(String name, String label, String selects, PolicyRule... stale) {
        ClusterRoleBuilder b = new ClusterRoleBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewAggregationRule().addNewClusterRoleSelector().addToMatchLabels(selects, "true")
                .endClusterRoleSelector().endAggregationRule().withRules(stale);
        if (label != null) {
            b.editMetadata().addToLabels(label, "true").endMetadata();
        }
        return b.build();
    }

    private List<PolicyRule> written(String name) {
        return client.updates.stream().map(ClusterRole.class::cast).filter(r -> r.getMetadata().getName().equals(name))
                .reduce((a, b) -> b).orElseThrow().getRules();
    }

    @Test
    void theUnionOfTheSelectedRolesIsWrittenInNameOrder() {
        roles.put(aggregating("view", "to-edit", "to-view"));
        roles.put(labelled("z-pods", "to-view", rule("pods")));
        roles.put(labelled("a-configmaps", "to-view", rule("configmaps"), rule("pods")));
        roles.put(labelled("unrelated", "other", rule("secrets")));
        controller.reconcile(new Request("", "view"));
        assertThat(written("view")).containsExactly(rule("configmaps"), rule("pods"));
    }

    @Test
    void anAggregatedRoleTakesWhatItsAggregatedRolesSelectNotWhatWasLastWrittenIntoThem() {
        roles.put(aggregating("edit", null, "to-edit", rule("stale")));
        roles.put(aggregating("view", "to-edit", "to-view", rule("also-stale")));
        roles.put(labelled("viewer", "to-view", rule("pods")));
        roles.put(labelled("editor", "to-edit", rule("deployments")));
        controller.reconcile(new Request("", "edit"));
        assertThat(written("edit")).containsExactly(rule("deployments"), rule("pods"));
    }

    @Test
    void nothingIsWrittenWhenTheRulesAreAlreadyTheUnionOrTheRoleDoesNotAggregate() {
        roles.put(aggregating("view", null, "to-view", rule("pods")));
        roles.put(labelled("viewer", "to-view", rule("pods")));
        controller.reconcile(new Request("", "view"));
        controller.reconcile(new Request("", "viewer"));
        controller.reconcile(new Request("", "gone"));
        assertThat(client.actions).isEmpty();
    }
}

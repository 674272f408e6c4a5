package io.cybernetes.scheduler.nodeaffinity;

import io.cybernetes.api.NodeSelectors;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

class NodeAffinityTest {

    static final Map<String, String> LABELS = Map.of("zone", "a", "disk", "ssd", "cores", "8");

    static NodeSelectorTerm term(String key, String operator, String... values) {
        return new NodeSelectorTermBuilder().addToMatchExpressions(new NodeSelectorRequirementBuilder().withKey(key)
                .withOperator(operator).withValues(values).build()).build();
    }

    @ParameterizedTest(name = "{0} {1} {2} → {3}")
    @CsvSource({
            "zone,  In,           a,   true",
            "zone,  In,           b,   false",
            "zone,  NotIn,        b,   true",
            "zone,  NotIn,        a,   false",
            "gpu,   NotIn,        yes, true",
            "disk,  Exists,       '',  true",
            "gpu,   Exists,       '',  false",
            "gpu,   DoesNotExist, '',  true",
            "cores, Gt,           4,   true",
            "cores, Lt,           4,   false",
            "zone,  Gt,           4,   false",
    })
    void operators(String key, String operator, String value, boolean matches) {
        NodeSelectorTerm t = value.isEmpty() ? term(key, operator) : term(key, operator, value);
        assertThat(NodeSelectors.matches(t, "n1", LABELS)).isEqualTo(matches);
    }

    @Test
    void termsAreOredAndAnEmptyTermMatchesNothing() {
        assertThat(NodeSelectors.matches(new NodeSelectorTerm(), "n1", LABELS)).isFalse();
        Pod pod = pod("p", null, null).editSpec().withNewAffinity().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withNodeSelectorTerms(term("zone", "In", "b"), term("disk", "In", "ssd"))
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity().endSpec().build();
        var labelled = NodeInfo.of(node("n1", "4", "8Gi", 110).editMetadata().withLabels(LABELS).endMetadata().build(),
                List.of());
        assertThat(new NodeAffinity().filter(new CycleState(), pod, labelled).isSuccess()).isTrue();
        assertThat(new NodeAffinity().filter(new CycleState(), pod, NodeInfo.of(node("bare"), List.of())).reasons())
                .containsExactly(NodeAffinity.REASON);
    }

    @Test
    void nodeSelectorAndMatchFields() {
        Pod selecting = pod("p", null, null).editSpec().withNodeSelector(Map.of("zone", "a")).endSpec().build();
        var labelled = NodeInfo.of(node("n1", "4", "8Gi", 110).editMetadata().withLabels(LABELS).endMetadata().build(),
                List.of());
        assertThat(new NodeAffinity().filter(new CycleState(), selecting, labelled).isSuccess()).isTrue();
        assertThat(new NodeAffinity().filter(new CycleState(), selecting, NodeInfo.of(node("bare"), List.of()))
                .isSuccess()).isFalse();
        NodeSelectorTerm byName = new NodeSelectorTermBuilder().addToMatchFields(new NodeSelectorRequirementBuilder()
                .withKey("metadata.name").withOperator("In").withValues("n1").build()).build();
        assertThat(NodeSelectors.matches(byName, "n1", Map.of())).isTrue();
        assertThat(NodeSelectors.matches(byName, "n2", Map.of())).isFalse();
    }

    @Test
    void preferredTermsWeighTheScore() {
        Pod pod = pod("p", null, null).editSpec().withNewAffinity().withNewNodeAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(80)
                .withPreference(term("zone", "In", "a")).endPreferredDuringSchedulingIgnoredDuringExecution()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(20)
                .withPreference(term("disk", "In", "ssd")).endPreferredDuringSchedulingIgnoredDuringExecution()
                .endNodeAffinity().endAffinity().endSpec().build();
        NodeAffinity plugin = new NodeAffinity();
        Map<String, Long> scores = new HashMap<>();
        scores.put("both", plugin.score(new CycleState(), pod, NodeInfo.of(node("both", "4", "8Gi", 110)
                .editMetadata().withLabels(LABELS).endMetadata().build(), List.of())));
        scores.put("disk", plugin.score(new CycleState(), pod, NodeInfo.of(node("disk", "4", "8Gi", 110)
                .editMetadata().withLabels(Map.of("disk", "ssd")).endMetadata().build(), List.of())));
        scores.put("none", plugin.score(new CycleState(), pod, NodeInfo.of(node("none"), List.of())));
        io.cybernetes.scheduler.Fixtures.normalize(plugin, new CycleState(), pod, scores);
        assertThat(scores).containsEntry("both", 100L).containsEntry("disk", 20L).containsEntry("none", 0L);
    }
}

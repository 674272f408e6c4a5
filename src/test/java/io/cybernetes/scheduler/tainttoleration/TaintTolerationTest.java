package io.cybernetes.scheduler.tainttoleration;

import io.cybernetes.api.Tolerations;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Status;
import io.cybernetes.scheduler.nodeunschedulable.NodeUnschedulable;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

class TaintTolerationTest {

    static Taint taint(String key, String value, String effect) {
        return new TaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
    }

    @ParameterizedTest(name = "toleration {0} {1} {2} {3} vs taint dedicated=gpu:NoSchedule → {4}")
    @CsvSource({
            "dedicated, Equal,  gpu, NoSchedule, true",
            "dedicated, Equal,  cpu, NoSchedule, false",
            "dedicated, Exists, '',  NoSchedule, true",
            "dedicated, Exists, '',  NoExecute,  false",
            "dedicated, Exists, '',  '',         true",
            "'',        Exists, '',  '',         true",
            "other,     Exists, '',  '',         false",
            "dedicated, '',     gpu, NoSchedule, true",
    })
    void tolerationRules(String key, String operator, String value, String effect, boolean tolerated) {
        Toleration t = new TolerationBuilder().withKey(key.isEmpty() ? null : key)
                .withOperator(operator.isEmpty() ? null : operator).withValue(value.isEmpty() ? null : value)
                .withEffect(effect.isEmpty() ? null : effect).build();
        assertThat(Tolerations.tolerates(t, taint("dedicated", "gpu", "NoSchedule"))).isEqualTo(tolerated);
    }

    @Test
    void untoleratedHardTaintsFilterTheNodeOut() {
        var tainted = NodeInfo.of(node("gpu-node", "4", "8Gi", 110).editSpec()
                .withTaints(taint("dedicated", "gpu", "NoSchedule")).endSpec().build(), List.of());
        Status s = new TaintToleration().filter(new CycleState(), pod("p"), tainted);
        assertThat(s.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        assertThat(s.reasons()).containsExactly("node(s) had untolerated taint {dedicated: gpu}");
        Pod tolerant = pod("t", null, null).editSpec().addNewToleration().withKey("dedicated").withValue("gpu")
                .withEffect("NoSchedule").endToleration().endSpec().build();
        assertThat(new TaintToleration().filter(new CycleState(), tolerant, tainted).isSuccess()).isTrue();
        var soft = NodeInfo.of(node("soft", "4", "8Gi", 110).editSpec()
                .withTaints(taint("spot", "", "PreferNoSchedule")).endSpec().build(), List.of());
        assertThat(new TaintToleration().filter(new CycleState(), pod("p"), soft).isSuccess()).isTrue();
    }

    @Test
    void fewerPreferNoScheduleTaintsScoreHigher() {
        TaintToleration plugin = new TaintToleration();
        Map<String, Long> scores = new HashMap<>();
        scores.put("clean", plugin.score(new CycleState(), pod("p"), NodeInfo.of(node("clean"), List.of())));
        scores.put("one", plugin.score(new CycleState(), pod("p"), NodeInfo.of(node("one", "4", "8Gi", 110).editSpec()
                .withTaints(taint("a", "", "PreferNoSchedule")).endSpec().build(), List.of())));
        scores.put("two", plugin.score(new CycleState(), pod("p"), NodeInfo.of(node("two", "4", "8Gi", 110).editSpec()
                .withTaints(taint("a", "", "PreferNoSchedule"), taint("b", "", "PreferNoSchedule")).endSpec().build(),
                List.of())));
        io.cybernetes.scheduler.Fixtures.normalize(plugin, new CycleState(), pod("p"), scores);
        assertThat(scores).containsEntry("clean", 100L).containsEntry("one", 50L).containsEntry("two", 0L);
    }

    @Test
    void aCordonedNodeTakesOnlyPodsThatTolerateIt() {
        var cordoned = NodeInfo.of(node("c", "4", "8Gi", 110).editSpec().withUnschedulable(true).endSpec().build(),
                List.of());
        Status s = new NodeUnschedulable().filter(new CycleState(), pod("p"), cordoned);
        assertThat(s.reasons()).containsExactly(NodeUnschedulable.REASON);
        Pod tolerant = pod("t", null, null).editSpec().addNewToleration().withKey("node.kubernetes.io/unschedulable")
                .withOperator("Exists").withEffect("NoSchedule").endToleration().endSpec().build();
        assertThat(new NodeUnschedulable().filter(new CycleState(), tolerant, cordoned).isSuccess()).isTrue();
    }
}

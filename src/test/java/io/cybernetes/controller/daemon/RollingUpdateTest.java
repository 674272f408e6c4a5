package io.cybernetes.controller.daemon;

import io.cybernetes.api.Json;
import io.cybernetes.controller.ControllerHistory;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The DaemonSet rolling update's decisions, node by node, and where a daemon may run: each
 * case a row of nodes written as {@code old}, {@code old-unready}, {@code new},
 * {@code new-unready}, {@code old+new}, {@code none}, and what the plan does.
 */
class RollingUpdateTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final String HASH = "new-hash";

    private static DaemonSet ds(String maxUnavailable, String maxSurge) {
        return Json.MAPPER.readValue(("{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"d\","
                + "\"namespace\":\"ns\",\"uid\":\"u\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"d\"}},"
                + "\"updateStrategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":MU,"
                + "\"maxSurge\":MS}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"d\"}},\"spec\":{\"containers\":"
                + "[{\"name\":\"c\",\"image\":\"i\"}]}}}}").replace("MU", maxUnavailable).replace("MS", maxSurge),
                DaemonSet.class);
    }

    private static Pod pod(String node, boolean fresh, boolean ready) {
        return new PodBuilder().withNewMetadata().withName(node + (fresh ? "-new" : "-old")).withNamespace("ns")
                .withCreationTimestamp(fresh ? "2026-12-01T11:00:00Z" : "2026-12-01T10:00:00Z")
                .withLabels(Map.of(ControllerHistory.REVISION_LABEL, fresh ? HASH : "old-hash")).endMetadata()
                .withNewSpec().withNodeName(node).endSpec().withNewStatus().withPhase("Running")
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus()
                .build();
    }

    /** Node states from a row such as {@code "old old-unready new none"}. */
    private static List<DaemonSetController.NodeState> nodes(String row) {
        List<DaemonSetController.NodeState> out = new ArrayList<>();
        String[] cells = row.split(" ");
        for (int i = 0; i < cells.length; i++) {
            String name = "n" + i;
            List<Pod> pods = new ArrayList<>();
            for (String p : cells[i].split("\\+")) {
                if (!p.equals("none")) {
                    pods.add(pod(name, p.startsWith("new"), !p.endsWith("-unready")));
                }
            }
            Node node = new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
            out.add(new DaemonSetController.NodeState(node, new DaemonPods.Placement(true, true), pods));
        }
        return out;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("one at a time: the first available old pod goes", "1", "0", "old old old", "delete n0-old"),
                Arguments.of("none goes while a node lacks an available pod", "1", "0", "new-unready old old", ""),
                Arguments.of("an unavailable old pod is replaced whatever the budget", "1", "0",
                        "new-unready old-unready old", "delete n1-old"),
                Arguments.of("two at a time", "2", "0", "old old old", "delete n0-old delete n1-old"),
                Arguments.of("a percentage of three nodes rounds up", "\"50%\"", "0", "old old old",
                        "delete n0-old delete n1-old"),
                Arguments.of("surge: a new pod beside an old one, one node at a time", "0", "1", "old old old",
                        "create n0"),
                Arguments.of("surge: the old pod goes once the new one is available", "0", "1", "old+new old old",
                        "delete n0-old create n1"),
                Arguments.of("surge: nothing more while a new pod is not yet available", "0", "1",
                        "old+new-unready old old", ""),
                Arguments.of("surge: an unavailable old pod is replaced at once, beyond the surge", "0", "1",
                        "old+new-unready old-unready old", "create n1"),
                Arguments.of("done: nothing to do", "1", "0", "new new new", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theRollingUpdateMovesAsKubernetesMovesIt(String why, String maxUnavailable, String maxSurge, String row,
                                                  String expected) {
        DaemonSetController.Plan plan = RollingUpdate.plan(ds(maxUnavailable, maxSurge), nodes(row), HASH, NOW);
        List<String> done = new ArrayList<>();
        plan.delete().forEach(p -> done.add("delete " + p.getMetadata().getName()));
        plan.create().forEach(n -> done.add("create " + n));
        assertThat(String.join(" ", done)).as(why).isEqualTo(expected);
    }

    static Stream<Arguments> placements() {
        return Stream.of(
                Arguments.of("a node of the selected pool runs it", Map.of("pool", "a"), "", true, true),
                Arguments.of("a node of another pool does not", Map.of("pool", "b"), "", false, false),
                Arguments.of("an untolerated NoSchedule taint keeps a new pod off, not one there", Map.of("pool", "a"),
                        "dedicated=gpu:NoSchedule", false, true),
                Arguments.of("an untolerated NoExecute taint keeps none", Map.of("pool", "a"), "dedicated=gpu:NoExecute",
                        false, false),
                Arguments.of("a cordon is tolerated by every daemon", Map.of("pool", "a"),
                        "node.kubernetes.io/unschedulable=:NoSchedule", true, true),
                Arguments.of("so is a node that is not ready", Map.of("pool", "a"),
                        "node.kubernetes.io/not-ready=:NoExecute", true, true),
                Arguments.of("a PreferNoSchedule taint does not matter", Map.of("pool", "a"), "slow=yes:PreferNoSchedule",
                        true, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("placements")
    void aNodeRunsTheDaemonByItsLabelsAndTaints(String why, Map<String, String> labels, String taint, boolean run,
                                                boolean stay) {
        DaemonSet ds = ds("1", "0");
        ds.getSpec().getTemplate().getSpec().setNodeSelector(Map.of("pool", "a"));
        NodeBuilder node = new NodeBuilder().withNewMetadata().withName("n").withLabels(labels).endMetadata();
        if (!taint.isEmpty()) {
            String[] kv = taint.split(":")[0].split("=", 2);
            node.withNewSpec().withTaints(new TaintBuilder().withKey(kv[0]).withValue(kv[1].isEmpty() ? null : kv[1])
                    .withEffect(taint.split(":")[1]).build()).endSpec();
        }
        DaemonPods.Placement p = DaemonPods.placement(DaemonPods.templatePod(ds, null), node.build());
        assertThat(p).as(why).isEqualTo(new DaemonPods.Placement(run, stay));
    }
}

package io.cybernetes.scheduler.framework;

import io.cybernetes.scheduler.interpodaffinity.InterPodAffinity;
import io.cybernetes.scheduler.noderesources.NodeResourcesFit;
import io.cybernetes.scheduler.podtopologyspread.PodTopologySpread;
import io.cybernetes.scheduler.queuesort.PrioritySort;
import io.cybernetes.scheduler.tainttoleration.TaintToleration;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** Which cluster events the plugins that rejected a pod say may let it fit. */
class QueueingHintsTest {

    /** A filter that says nothing of the events that help it. */
    static final Plugin.Filter SILENT = new Plugin.Filter() {
        @Override
        public String name() {
            return "Silent";
        }

        @Override
        public Status filter(CycleState state, Pod pod, NodeInfo node) {
            return Status.unschedulable("never");
        }
    };

    final Framework framework = new Framework(new Profile().add(new PrioritySort(), 0)
            .add(new NodeResourcesFit(NodeResourcesFit.Strategy.LEAST_ALLOCATED), 1).add(new TaintToleration(), 1)
            .add(new InterPodAffinity(), 1).add(new PodTopologySpread(), 1).add(SILENT, 0), 0);

    private boolean mayHelp(Pod pod, String plugin, ClusterEvent event, Object before, Object after) {
        return framework.mayHelp(pod, Set.of(plugin), event, before, after);
    }

    @Test
    void aNodeHelpsAPodRejectedForResourcesOnlyWhenItIsBigEnoughOrGrew() {
        Pod big = pod("big", "9", null).build();
        Node small = node("small", "4", "8Gi", 110).build();
        Node large = node("large", "16", "64Gi", 110).build();
        assertThat(mayHelp(big, NodeResourcesFit.NAME, ClusterEvent.NODE_ADD, null, small)).isFalse();
        assertThat(mayHelp(big, NodeResourcesFit.NAME, ClusterEvent.NODE_ADD, null, large)).isTrue();
        assertThat(mayHelp(big, NodeResourcesFit.NAME, ClusterEvent.NODE_UPDATE, small, large)).isTrue();
        Node relabelled = new NodeBuilder(large).editMetadata().addToLabels("x", "y").endMetadata().build();
        assertThat(mayHelp(big, NodeResourcesFit.NAME, ClusterEvent.NODE_UPDATE, large, relabelled))
                .as("it had as much before").isFalse();
        assertThat(mayHelp(big, NodeResourcesFit.NAME, ClusterEvent.ASSIGNED_POD_DELETE,
                pod("gone", "1", null).editSpec().withNodeName("large").endSpec().build(), null)).isTrue();
        assertThat(mayHelp(big, NodeResourcesFit.NAME, ClusterEvent.ASSIGNED_POD_ADD, null,
                pod("came", "1", null).build())).as("not an event that helps it").isFalse();
    }

    @Test
    void aTaintTakenAwayHelpsAPodThatDidNotTolerateIt() {
        Pod pod = pod("p");
        Node tainted = node("n", "4", "8Gi", 110).editSpec().addNewTaint().withKey("dedicated").withValue("gpu")
                .withEffect("NoSchedule").endTaint().endSpec().build();
        Node untainted = node("n", "4", "8Gi", 110).build();
        Node relabelled = new NodeBuilder(tainted).editMetadata().addToLabels("x", "y").endMetadata().build();
        assertThat(mayHelp(pod, TaintToleration.NAME, ClusterEvent.NODE_UPDATE, tainted, untainted)).isTrue();
        assertThat(mayHelp(pod, TaintToleration.NAME, ClusterEvent.NODE_UPDATE, tainted, relabelled)).isFalse();
        assertThat(mayHelp(pod, TaintToleration.NAME, ClusterEvent.NODE_ADD, null, tainted)).isFalse();
    }

    @Test
    void aPodPlacedHelpsOnlyWhenTheAffinityTermsSelectIt() {
        Pod app = pod("app", null, null).editSpec().withNewAffinity().withNewPodAffinity()
                .addNewRequiredDuringSchedulingIgnoredDuringExecution().withNewLabelSelector()
                .addToMatchLabels("app", "db").endLabelSelector().withTopologyKey("zone")
                .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAffinity().endAffinity().endSpec().build();
        Pod db = pod("db", null, null).editMetadata().addToLabels("app", "db").endMetadata().build();
        Pod web = pod("web", null, null).editMetadata().addToLabels("app", "web").endMetadata().build();
        assertThat(mayHelp(app, InterPodAffinity.NAME, ClusterEvent.ASSIGNED_POD_ADD, null, db)).isTrue();
        assertThat(mayHelp(app, InterPodAffinity.NAME, ClusterEvent.ASSIGNED_POD_ADD, null, web)).isFalse();
        assertThat(mayHelp(app, InterPodAffinity.NAME, ClusterEvent.ASSIGNED_POD_UPDATE, web, db)).isTrue();
    }

    @Test
    void aNodeHelpsASpreadPodOnlyWithEveryTopologyKey() {
        Pod pod = pod("p", null, null).editMetadata().addToLabels("app", "web").endMetadata().editSpec()
                .addNewTopologySpreadConstraint().withMaxSkew(1).withTopologyKey("zone")
                .withWhenUnsatisfiable("DoNotSchedule").withNewLabelSelector().addToMatchLabels("app", "web")
                .endLabelSelector().endTopologySpreadConstraint().endSpec().build();
        Node bare = node("n", "4", "8Gi", 110).build();
        Node zoned = node("n", "4", "8Gi", 110).editMetadata().addToLabels("zone", "a").endMetadata().build();
        assertThat(mayHelp(pod, PodTopologySpread.NAME, ClusterEvent.NODE_ADD, null, bare)).isFalse();
        assertThat(mayHelp(pod, PodTopologySpread.NAME, ClusterEvent.NODE_ADD, null, zoned)).isTrue();
        assertThat(mayHelp(pod, PodTopologySpread.NAME, ClusterEvent.NODE_DELETE, zoned, null)).isTrue();
        assertThat(mayHelp(pod, PodTopologySpread.NAME, ClusterEvent.ASSIGNED_POD_DELETE,
                pod("other", null, null).editMetadata().addToLabels("app", "db").endMetadata().build(), null))
                .as("a pod the constraint does not select").isFalse();
    }

    @Test
    void aPodRejectedByNoPluginOrByOneThatSaysNothingComesBackOnAnyChange() {
        Pod pod = pod("p");
        assertThat(framework.mayHelp(pod, Set.of(), ClusterEvent.NODE_ADD, null, node("n"))).isTrue();
        assertThat(mayHelp(pod, "Silent", ClusterEvent.ASSIGNED_POD_ADD, null, pod("q"))).isTrue();
        assertThat(framework.mayHelp(pod("big", "9", null).build(), Set.of(NodeResourcesFit.NAME, "Silent"),
                ClusterEvent.NODE_ADD, null, node("small", "4", "8Gi", 110).build()))
                .as("one of the plugins may be helped").isTrue();
    }

    @Test
    void anEventNoPluginRegisteredInterestsNobody() {
        Framework nodeOnly = new Framework(new Profile().add(new PrioritySort(), 0)
                .add(new NodeResourcesFit(NodeResourcesFit.Strategy.LEAST_ALLOCATED), 1).add(new TaintToleration(), 1), 0);
        assertThat(nodeOnly.anyInterestIn(ClusterEvent.NODE_ADD)).isTrue();
        assertThat(nodeOnly.anyInterestIn(ClusterEvent.ASSIGNED_POD_DELETE)).isTrue();
        assertThat(nodeOnly.anyInterestIn(ClusterEvent.ASSIGNED_POD_ADD)).as("neither plugin registered it").isFalse();
        assertThat(framework.anyInterestIn(ClusterEvent.PV_CHANGE)).as("a filter that registers nothing wants all")
                .isTrue();
    }
}

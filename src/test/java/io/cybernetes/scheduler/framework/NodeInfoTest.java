package io.cybernetes.scheduler.framework;

import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** A node's pods and what they request, as pods come and go (and as preemption's dry run takes them off and back). */
class NodeInfoTest {

    @Test
    void requestsAreCountedAsPodsComeAndGo() {
        Pod a = pod("a", "500m", "1Gi").build();
        Pod b = pod("b", "250m", null).build();
        NodeInfo info = NodeInfo.of(node("n"), List.of(a)).withPod(b);
        assertThat(info.requested().get("cpu")).isEqualTo(750);
        assertThat(info.requested().get("memory")).isEqualTo(1L << 30);

        NodeInfo withoutA = info.withoutPod(pod("a").toBuilder().build()); // another object, the same name
        assertThat(withoutA.pods()).containsExactly(b);
        assertThat(withoutA.requested().get("cpu")).isEqualTo(250);
        assertThat(withoutA.requested().get("memory")).isZero();
        assertThat(info.withoutPod(pod("c"))).isSameAs(info);
    }

    @Test
    void aPodTakenOffAndPutBackCountsWhatItCountedBefore() {
        Pod a = pod("a", "500m", "1Gi").build();
        Pod b = pod("b", "250m", null).build();
        NodeInfo info = NodeInfo.of(node("n"), List.of(a, b));
        Resources countedForA = info.requestsOf(a);
        assertThat(countedForA).isEqualTo(Resources.requestedBy(a));

        // what the node counted is what comes off and goes back, even were the pod's spec read differently now
        a.getSpec().getContainers().get(0).getResources().getRequests().put("cpu",
                new io.fabric8.kubernetes.api.model.Quantity("2"));
        NodeInfo back = info.withoutPod(a).withPod(a, info.requestsOf(a));
        assertThat(back.requested()).isEqualTo(info.requested());
        assertThat(back.nonZeroRequested()).isEqualTo(info.nonZeroRequested());
        assertThat(back.pods()).containsExactlyInAnyOrder(a, b);
        assertThat(info.requestsOf(pod("elsewhere", "100m", null).build()).get("cpu")).isEqualTo(100);
    }
}

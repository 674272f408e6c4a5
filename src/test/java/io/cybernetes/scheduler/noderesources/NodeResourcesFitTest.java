package io.cybernetes.scheduler.noderesources;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

class NodeResourcesFitTest {

    final NodeResourcesFit fit = new NodeResourcesFit(NodeResourcesFit.Strategy.LEAST_ALLOCATED);

    private Status filter(Pod pod, NodeInfo node) {
        CycleState state = new CycleState();
        fit.preFilter(state, pod, List.of(node));
        return fit.filter(state, pod, node);
    }

    @ParameterizedTest(name = "node 4 cpu/8Gi with {0} cpu + {1} used; pod {2} cpu + {3} → {4}")
    @CsvSource(delimiter = '|', value = {
            "0    | 0   | 1    | 1Gi  | ",
            "3    | 0   | 1    | 1Gi  | ",
            "3500m| 0   | 1    | 1Gi  | Insufficient cpu",
            "0    | 8Gi | 100m | 1    | Insufficient memory",
            "3    | 7Gi | 2    | 2Gi  | Insufficient cpu,Insufficient memory",
            "0    | 0   |      |      | ",
    })
    void cpuAndMemoryMustFit(String usedCpu, String usedMemory, String cpu, String memory, String reasons) {
        List<Pod> running = new ArrayList<>();
        running.add(pod("running", usedCpu.equals("0") ? null : usedCpu, usedMemory.equals("0") ? null : usedMemory)
                .build());
        NodeInfo node = NodeInfo.of(node("n1"), running);
        Status s = filter(pod("new", cpu, memory).build(), node);
        if (reasons == null) {
            assertThat(s.isSuccess()).as(s.toString()).isTrue();
        } else {
            assertThat(s.code()).isEqualTo(Status.Code.UNSCHEDULABLE);
            assertThat(s.reasons()).containsExactly(reasons.split(","));
        }
    }

    @Test
    void aFullNodeTakesNoMorePods() {
        NodeInfo node = NodeInfo.of(node("n1", "4", "8Gi", 1).build(), List.of(pod("running")));
        assertThat(filter(pod("new"), node).reasons()).containsExactly("Too many pods");
    }

    @Test
    void extendedResourcesCountLikeCpuAndMemory() {
        var gpuNode = node("gpu", "4", "8Gi", 110).editStatus().addToAllocatable("nvidia.com/gpu", new Quantity("1"))
                .endStatus().build();
        Pod wantsTwo = pod("ml", null, null).editSpec().editFirstContainer().editResources()
                .addToRequests("nvidia.com/gpu", new Quantity("2")).endResources().endContainer().endSpec().build();
        assertThat(filter(wantsTwo, NodeInfo.of(gpuNode, List.of())).reasons()).containsExactly(
                "Insufficient nvidia.com/gpu");
        assertThat(filter(wantsTwo, NodeInfo.of(node("plain"), List.of())).reasons()).containsExactly(
                "Insufficient nvidia.com/gpu");
    }

    @Test
    void leastAllocatedPrefersTheEmptierNodeAndMostAllocatedTheFuller() {
        NodeInfo empty = NodeInfo.of(node("empty"), List.of());
        NodeInfo busy = NodeInfo.of(node("busy"), List.of(pod("a", "2", "4Gi").build()));
        Pod p = pod("new", "1", "2Gi").build();
        // least: (4-1)/4 and (8-2)/8 → 75; (4-3)/4 and (8-6)/8 → 25
        assertThat(fit.score(new CycleState(), p, empty)).isEqualTo(75);
        assertThat(fit.score(new CycleState(), p, busy)).isEqualTo(25);
        NodeResourcesFit most = new NodeResourcesFit(NodeResourcesFit.Strategy.MOST_ALLOCATED);
        assertThat(most.score(new CycleState(), p, empty)).isEqualTo(25);
        assertThat(most.score(new CycleState(), p, busy)).isEqualTo(75);
    }

    @Test
    void balancedAllocationPrefersCpuAndMemoryUsedAlike() {
        BalancedAllocation balanced = new BalancedAllocation();
        NodeInfo node = NodeInfo.of(node("n1"), List.of());
        assertThat(balanced.score(new CycleState(), pod("even", "2", "4Gi").build(), node)).isEqualTo(100);
        assertThat(balanced.score(new CycleState(), pod("skewed", "4", "1Gi").build(), node))
                .isLessThan(balanced.score(new CycleState(), pod("less", "2", "2Gi").build(), node));
    }
}

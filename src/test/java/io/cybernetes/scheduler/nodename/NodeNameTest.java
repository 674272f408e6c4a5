package io.cybernetes.scheduler.nodename;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Status;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

class NodeNameTest {

    @ParameterizedTest(name = "pod names {0}, node {1} → fits {2}")
    @CsvSource({"'', n1, true", "n1, n1, true", "n2, n1, false"})
    void aPodThatNamesItsNodeFitsOnlyThere(String wanted, String node, boolean fits) {
        var pod = pod("p", null, null).editSpec().withNodeName(wanted.isEmpty() ? null : wanted).endSpec().build();
        Status s = new NodeName().filter(new CycleState(), pod, NodeInfo.of(node(node), List.of()));
        assertThat(s.isSuccess()).isEqualTo(fits);
        if (!fits) {
            assertThat(s.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
            assertThat(s.reasons()).containsExactly(NodeName.REASON);
        }
    }
}

package io.cybernetes.scheduler.nodeports;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

class NodePortsTest {

    static Pod withPort(String name, int port, String protocol, String ip) {
        return pod(name, null, null).editSpec().editFirstContainer().addNewPort().withContainerPort(80)
                .withHostPort(port).withProtocol(protocol).withHostIP(ip.isEmpty() ? null : ip).endPort()
                .endContainer().endSpec().build();
    }

    @ParameterizedTest(name = "taken {0}/{1}/{2}, wanted {3}/{4}/{5} → fits {6}")
    @CsvSource({
            "8080, TCP, '',        8080, TCP, '',        false",
            "8080, TCP, '',        8081, TCP, '',        true",
            "8080, TCP, '',        8080, UDP, '',        true",
            "8080, TCP, 10.0.0.1,  8080, TCP, 10.0.0.2,  true",
            "8080, TCP, 10.0.0.1,  8080, TCP, '',        false",
            "8080, TCP, '',        8080, TCP, 10.0.0.2,  false",
    })
    void hostPortsMustBeFree(int takenPort, String takenProto, String takenIp, int port, String proto, String ip,
                             boolean fits) {
        NodeInfo node = NodeInfo.of(node("n1"), List.of(withPort("running", takenPort, takenProto, takenIp)));
        var s = new NodePorts().filter(new CycleState(), withPort("new", port, proto, ip), node);
        assertThat(s.isSuccess()).isEqualTo(fits);
        if (!fits) {
            assertThat(s.reasons()).containsExactly(NodePorts.REASON);
        }
    }
}

package io.cybernetes.admission.defaulttolerationseconds;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.FakeCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultTolerationSecondsTest {

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("a pod without tolerations gets both, for 300 seconds", "[]", 2, 300),
                Arguments.of("a pod that tolerates not-ready itself keeps its own and gets unreachable",
                        "[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                                + "\"tolerationSeconds\":60}]", 2, 60),
                Arguments.of("a pod that tolerates everything gets nothing more",
                        "[{\"operator\":\"Exists\"}]", 1, -1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void podsTolerateNodeTroubleForAWhile(String name, String tolerations, int count, long firstSeconds) {
        Attributes a = FakeCluster.pod(Attributes.Operation.CREATE, "ns", "{\"metadata\":{\"name\":\"p\"},\"spec\":"
                + "{\"tolerations\":" + tolerations + ",\"containers\":[{\"name\":\"c\"}]}}");
        new DefaultTolerationSeconds(300).admit(a);
        var t = a.object().path("spec").path("tolerations");
        assertThat(t.size()).isEqualTo(count);
        assertThat(t.get(0).path("tolerationSeconds").asLong(-1)).isEqualTo(firstSeconds);
    }
}

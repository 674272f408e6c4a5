package io.cybernetes.admission.limitranger;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.FakeCluster;
import io.cybernetes.api.ApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LimitRangerTest {

    static final FakeCluster CLUSTER = new FakeCluster().add("", "limitranges", """
            {"metadata":{"name":"limits","namespace":"team"},"spec":{"limits":[
              {"type":"Container","default":{"cpu":"500m","memory":"256Mi"},"defaultRequest":{"cpu":"100m"},
               "min":{"cpu":"50m"},"max":{"cpu":"2","memory":"1Gi"},"maxLimitRequestRatio":{"cpu":"10"}},
              {"type":"Pod","max":{"cpu":"3"}}]}}""");

    static Attributes pod(String containers) {
        return FakeCluster.pod(Attributes.Operation.CREATE, "team", "{\"metadata\":{\"name\":\"p\"},\"spec\":"
                + "{\"containers\":" + containers + "}}");
    }

    @Test
    void containersWithoutResourcesGetTheNamespaceDefaults() {
        LimitRanger plugin = new LimitRanger(CLUSTER);
        Attributes a = pod("[{\"name\":\"c\"}]");
        plugin.admit(a);
        assertThat(a.object().path("spec").path("containers").get(0).path("resources").toString())
                .isEqualTo("{\"limits\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"},\"requests\":{\"cpu\":\"100m\","
                        + "\"memory\":\"256Mi\"}}");
        plugin.validate(a);
    }

    @Test
    void whatAContainerSaysIsKept() {
        LimitRanger plugin = new LimitRanger(CLUSTER);
        Attributes a = pod("[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]");
        plugin.admit(a);
        assertThat(a.object().path("spec").path("containers").get(0).path("resources").path("limits").path("cpu")
                .asString()).isEqualTo("1");
    }

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("a request below the minimum",
                        "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"10m\"},\"limits\":{\"cpu\":\"50m\"}}}]",
                        "minimum cpu usage per Container is 50m, but request is 10m"),
                Arguments.of("a limit above the maximum",
                        "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"4\"}}}]",
                        "maximum cpu usage per Container is 2, but limit is 4"),
                Arguments.of("a limit too far above the request",
                        "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"2\"}}}]",
                        "cpu max limit to request ratio per Container is 10, but provided ratio is 20.000000"),
                Arguments.of("a pod whose containers together pass the pod maximum",
                        "[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"2\"}}},"
                                + "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"2\"}}}]",
                        "maximum cpu usage per Pod is 3, but limit is 4"));
    }

    @ParameterizedTest(name = "{0} is refused")
    @MethodSource("violations")
    void podsOutsideTheRangesAreRefused(String name, String containers, String message) {
        LimitRanger plugin = new LimitRanger(CLUSTER);
        Attributes a = pod(containers);
        plugin.admit(a);
        assertThatThrownBy(() -> plugin.validate(a)).isInstanceOf(ApiException.class)
                .hasMessageStartingWith("pods \"p\" is forbidden: ").hasMessageContaining(message);
    }
}

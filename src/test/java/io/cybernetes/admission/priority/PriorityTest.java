package io.cybernetes.admission.priority;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.FakeCluster;
import io.cybernetes.api.ApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A pod's priority from its class, the global default, or 0; unknown classes and contradicting values refused. */
class PriorityTest {

    static FakeCluster cluster(boolean globalDefault) {
        return new FakeCluster()
                .add("scheduling.k8s.io", "priorityclasses", "{\"metadata\":{\"name\":\"high\"},\"value\":1000,"
                        + "\"preemptionPolicy\":\"Never\"}")
                .add("scheduling.k8s.io", "priorityclasses", "{\"metadata\":{\"name\":\"normal\"},\"value\":10,"
                        + "\"globalDefault\":" + globalDefault + "}");
    }

    static Attributes pod(String spec) {
        return FakeCluster.pod(Attributes.Operation.CREATE, "ns", "{\"metadata\":{\"name\":\"p\"},\"spec\":{" + spec
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
    }

    @ParameterizedTest(name = "{0} with a global default {1} → priority {2}, class {3}")
    @CsvSource({
            "'\"priorityClassName\":\"high\",', false, 1000, high",
            "'', true, 10, normal",
            "'', false, 0, ''",
            "'\"priorityClassName\":\"high\",\"priority\":1000,', false, 1000, high",
    })
    void priorityFromTheClass(String spec, boolean globalDefault, int priority, String className) {
        Attributes a = pod(spec);
        new Priority(cluster(globalDefault)).admit(a);
        assertThat(a.object().path("spec").path("priority").asInt()).isEqualTo(priority);
        assertThat(a.object().path("spec").path("priorityClassName").asString("")).isEqualTo(className);
    }

    @Test
    void theClassesPreemptionPolicyComesAlong() {
        Attributes a = pod("\"priorityClassName\":\"high\",");
        new Priority(cluster(false)).admit(a);
        assertThat(a.object().path("spec").path("preemptionPolicy").asString()).isEqualTo("Never");
    }

    @Test
    void anUnknownClassOrAContradictingValueIsRefused() {
        ApiException missing = catchThrowableOfType(ApiException.class, () -> new Priority(cluster(false))
                .admit(pod("\"priorityClassName\":\"nope\",")));
        assertThat(missing.code()).isEqualTo(403);
        assertThat(missing.getMessage()).contains("no PriorityClass with name nope was found");
        ApiException contradicting = catchThrowableOfType(ApiException.class, () -> new Priority(cluster(false))
                .admit(pod("\"priorityClassName\":\"high\",\"priority\":5,")));
        assertThat(contradicting.code()).isEqualTo(403);
        assertThat(contradicting.getMessage()).contains("priority admission controller computed 1000");
        ApiException policy = catchThrowableOfType(ApiException.class, () -> new Priority(cluster(false))
                .admit(pod("\"priorityClassName\":\"high\",\"preemptionPolicy\":\"PreemptLowerPriority\",")));
        assertThat(policy.code()).isEqualTo(403);
        assertThat(policy.getMessage()).contains("the string value of PreemptionPolicy (PreemptLowerPriority) must"
                + " not be provided in pod spec; priority admission controller computed Never");
    }

    @Test
    void withoutAClassPodsPreemptLowerPriority() {
        Attributes a = pod("");
        new Priority(cluster(false)).admit(a);
        assertThat(a.object().path("spec").path("preemptionPolicy").asString()).isEqualTo("PreemptLowerPriority");
        Attributes same = pod("\"priorityClassName\":\"high\",\"preemptionPolicy\":\"Never\",");
        new Priority(cluster(false)).admit(same);
        assertThat(same.object().path("spec").path("preemptionPolicy").asString()).isEqualTo("Never");
    }
}

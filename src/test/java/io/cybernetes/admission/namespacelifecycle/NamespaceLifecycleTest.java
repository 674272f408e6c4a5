package io.cybernetes.admission.namespacelifecycle;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.FakeCluster;
import io.cybernetes.api.ApiException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NamespaceLifecycleTest {

    static final FakeCluster CLUSTER = new FakeCluster()
            .add("", "namespaces", "{\"metadata\":{\"name\":\"live\"}}")
            .add("", "namespaces", "{\"metadata\":{\"name\":\"dying\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"}}");

    static Attributes write(Attributes.Operation op, String resource, String ns, String name) {
        return new Attributes(op, "", "v1", "X", resource, "", ns, name, null, null,
                new Attributes.User("u", "", List.of(), Map.of()), false);
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("a create in a live namespace passes", write(Attributes.Operation.CREATE, "pods", "live", "p"), 0, null),
                Arguments.of("a create in a missing namespace is not found",
                        write(Attributes.Operation.CREATE, "pods", "gone", "p"), 404, "namespaces \"gone\" not found"),
                Arguments.of("a create in a terminating namespace is forbidden",
                        write(Attributes.Operation.CREATE, "configmaps", "dying", "c"), 403,
                        "unable to create new content in namespace dying because it is being terminated"),
                Arguments.of("an update in a terminating namespace passes (finalizers must be removable)",
                        write(Attributes.Operation.UPDATE, "pods", "dying", "p"), 0, null),
                Arguments.of("kube-system cannot be deleted",
                        write(Attributes.Operation.DELETE, "namespaces", "", "kube-system"), 403,
                        "namespaces \"kube-system\" is forbidden: this namespace may not be deleted"),
                Arguments.of("another namespace can be deleted",
                        write(Attributes.Operation.DELETE, "namespaces", "", "live"), 0, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void namespacesGateWhatIsCreatedInThem(String name, Attributes a, int code, String message) {
        NamespaceLifecycle plugin = new NamespaceLifecycle(CLUSTER);
        if (code == 0) {
            assertThatCode(() -> plugin.validate(a)).doesNotThrowAnyException();
        } else {
            assertThatThrownBy(() -> plugin.validate(a)).isInstanceOf(ApiException.class).hasMessageContaining(message)
                    .matches(e -> ((ApiException) e).code() == code);
        }
    }
}

package io.cybernetes.admission.podsecurity;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.FakeCluster;
import io.cybernetes.api.ApiException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodSecurityTest {

    static final FakeCluster CLUSTER = new FakeCluster()
            .add("", "namespaces", "{\"metadata\":{\"name\":\"open\"}}")
            .add("", "namespaces", "{\"metadata\":{\"name\":\"base\",\"labels\":{\"" + PodSecurity.ENFORCE_LABEL
                    + "\":\"baseline\"}}}")
            .add("", "namespaces", "{\"metadata\":{\"name\":\"strict\",\"labels\":{\"" + PodSecurity.ENFORCE_LABEL
                    + "\":\"restricted\"}}}");

    static final String PLAIN = "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}";
    static final String PRIVILEGED = "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"securityContext\":"
            + "{\"privileged\":true}}]}";
    static final String HOST_NETWORK = "{\"hostNetwork\":true,\"hostPID\":true,\"containers\":[{\"name\":\"c\"}]}";
    static final String HOST_IPC = "{\"hostIPC\":true,\"containers\":[{\"name\":\"c\"}]}";
    static final String HOST_PATH = "{\"volumes\":[{\"name\":\"root\",\"hostPath\":{\"path\":\"/\"}}],"
            + "\"containers\":[{\"name\":\"c\"}]}";
    static final String NET_ADMIN = "{\"containers\":[{\"name\":\"c\",\"securityContext\":{\"capabilities\":"
            + "{\"add\":[\"NET_ADMIN\"]}}}]}";
    static final String HARDENED = "{\"securityContext\":{\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":"
            + "\"RuntimeDefault\"}},\"containers\":[{\"name\":\"c\",\"securityContext\":{\"allowPrivilegeEscalation\":"
            + "false,\"capabilities\":{\"drop\":[\"ALL\"]}}}]}";

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("a namespace without a label allows a privileged pod", "open", PRIVILEGED, null),
                Arguments.of("baseline allows a plain pod", "base", PLAIN, null),
                Arguments.of("baseline refuses a privileged container", "base", PRIVILEGED,
                        "privileged (container \"c\" must not set securityContext.privileged=true)"),
                Arguments.of("baseline refuses host network and PID", "base", HOST_NETWORK,
                        "host namespaces (hostNetwork=true, hostPID=true)"),
                Arguments.of("baseline refuses host IPC", "base", HOST_IPC, "host namespaces (hostIPC=true)"),
                Arguments.of("baseline refuses hostPath volumes", "base", HOST_PATH, "hostPath volumes (volume \"root\")"),
                Arguments.of("baseline refuses capabilities beyond the default set", "base", NET_ADMIN,
                        "non-default capabilities (container \"c\" must not include \"NET_ADMIN\""),
                Arguments.of("restricted refuses a plain pod, naming each missing setting", "strict", PLAIN,
                        "allowPrivilegeEscalation != false"),
                Arguments.of("restricted allows a hardened pod", "strict", HARDENED, null),
                Arguments.of("restricted still refuses what baseline refuses", "strict", HOST_PATH,
                        "hostPath volumes (volume \"root\")"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void podsAreJudgedByTheirNamespacesLevel(String name, String ns, String spec, String violation) {
        PodSecurity plugin = new PodSecurity(CLUSTER);
        Attributes a = FakeCluster.pod(Attributes.Operation.CREATE, ns, "{\"metadata\":{\"name\":\"p\"},\"spec\":"
                + spec + "}");
        assertThat(plugin.handles(a)).isTrue();
        if (violation == null) {
            plugin.validate(a);
        } else {
            assertThatThrownBy(() -> plugin.validate(a)).isInstanceOf(ApiException.class)
                    .hasMessageStartingWith("pods \"p\" is forbidden: violates PodSecurity \"")
                    .hasMessageContaining(violation)
                    .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(403));
        }
    }
}

package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every write is checked against its kind's schema after mutating admission: each bad
 * field is one 422 cause, worded as Kubernetes words it, and nothing is stored.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaValidationApiTest extends ApiTestSupport {

    static final String NS = "schema";

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    static String deployment(String spec) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":" + spec + "}";
    }

    static final String TEMPLATE = "\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":{\"labels\":"
            + "{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}";

    static String pod(String spec) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":" + spec + "}";
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("a negative replica count", "/apis/apps/v1/namespaces/" + NS + "/deployments",
                        deployment("{\"replicas\":-1," + TEMPLATE + "}"),
                        "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
                Arguments.of("a deployment without a template", "/apis/apps/v1/namespaces/" + NS + "/deployments",
                        deployment("{\"selector\":{\"matchLabels\":{\"a\":\"b\"}}}"), "spec.template: Required value"),
                Arguments.of("an unknown strategy", "/apis/apps/v1/namespaces/" + NS + "/deployments",
                        deployment("{\"strategy\":{\"type\":\"BlueGreen\"}," + TEMPLATE + "}"),
                        "spec.strategy.type: Unsupported value: \"BlueGreen\": supported values: \"Recreate\","
                                + " \"RollingUpdate\""),
                Arguments.of("a restart policy that does not exist", "/api/v1/namespaces/" + NS + "/pods",
                        pod("{\"restartPolicy\":\"Sometimes\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}"),
                        "spec.restartPolicy: Unsupported value: \"Sometimes\""),
                Arguments.of("a port out of range", "/api/v1/namespaces/" + NS + "/pods",
                        pod("{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":70000}]}]}"),
                        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be less than or equal to 65535"),
                Arguments.of("a quantity that is not one", "/api/v1/namespaces/" + NS + "/pods",
                        pod("{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{\"limits\":{\"cpu\":"
                                + "\"lots\"}}}]}"),
                        "spec.containers[0].resources.limits[cpu]: Invalid value: \"lots\": quantities must match"),
                Arguments.of("a container name that is not a DNS label", "/api/v1/namespaces/" + NS + "/pods",
                        pod("{\"containers\":[{\"name\":\"Web_1\",\"image\":\"nginx\"}]}"),
                        "spec.containers[0].name: Invalid value: \"Web_1\": a lowercase RFC 1123 label"),
                Arguments.of("a pod without containers", "/api/v1/namespaces/" + NS + "/pods", pod("{\"containers\":[]}"),
                        "spec.containers: Required value"),
                Arguments.of("a toleration with an unknown effect", "/api/v1/namespaces/" + NS + "/pods",
                        pod("{\"tolerations\":[{\"key\":\"k\",\"effect\":\"Sometimes\"}],\"containers\":[{\"name\":\"c\","
                                + "\"image\":\"nginx\"}]}"),
                        "spec.tolerations[0].effect: Unsupported value: \"Sometimes\""),
                Arguments.of("a lease held for no time", "/apis/coordination.k8s.io/v1/namespaces/" + NS + "/leases",
                        "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"l\"},"
                                + "\"spec\":{\"leaseDurationSeconds\":0}}",
                        "spec.leaseDurationSeconds: Invalid value: 0: must be greater than or equal to 1"));
    }

    @ParameterizedTest(name = "{0} is invalid")
    @MethodSource("rows")
    void invalidFieldsAreNamedOneCauseEach(String name, String path, String body, String cause) {
        Response r = post(path, body);
        assertThat(r.code()).as(r.body()).isEqualTo(422);
        assertThat(r.text("reason")).isEqualTo("Invalid");
        boolean found = false;
        for (var c : r.json().path("details").path("causes")) {
            found |= (c.path("field").asString() + ": " + c.path("message").asString()).startsWith(cause);
        }
        assertThat(found).as(r.body()).isTrue();
        assertThat(r.json().path("details").path("causes").size()).as(r.body()).isEqualTo(1);
    }

    @org.junit.jupiter.api.Test
    void severalBadFieldsAreSeveralCauses() {
        Response r = post("/apis/apps/v1/namespaces/" + NS + "/deployments", deployment("{\"replicas\":-3,"
                + "\"minReadySeconds\":-1,\"strategy\":{\"type\":\"Sideways\"}," + TEMPLATE + "}"));
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.json().path("details").path("causes").size()).isEqualTo(3);
        assertThat(r.text("message")).startsWith("Deployment.apps \"d\" is invalid: [");
        assertThat(get("/apis/apps/v1/namespaces/" + NS + "/deployments/d").code()).isEqualTo(404);
    }
}

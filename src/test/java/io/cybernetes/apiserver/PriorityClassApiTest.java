package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** PriorityClass is served (scheduling.k8s.io/v1), validated, and gives pods their priority at admission. */
class PriorityClassApiTest extends ApiTestSupport {

    static final String PC = "/apis/scheduling.k8s.io/v1/priorityclasses";

    @Test
    void aPodGetsThePriorityOfItsClass() {
        assertThat(post(PC, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
                + "{\"name\":\"team-critical\"},\"value\":100000,\"description\":\"the team's own\"}").code())
                .isIn(201, 409);
        assertThat(get(PC + "/team-critical").text("preemptionPolicy")).isEqualTo("PreemptLowerPriority");
        assertThat(createNamespace("priorities").code()).isIn(201, 409);
        Response pod = post("/api/v1/namespaces/priorities/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                + "\"metadata\":{\"name\":\"important\"},\"spec\":{\"priorityClassName\":\"team-critical\","
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertThat(pod.code()).as(pod.body()).isEqualTo(201);
        assertThat(pod.text("spec.priority")).isEqualTo("100000");
        Response unknown = post("/api/v1/namespaces/priorities/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                + "\"metadata\":{\"name\":\"lost\"},\"spec\":{\"priorityClassName\":\"no-such-class\","
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertThat(unknown.code()).isEqualTo(403);
        assertThat(unknown.text("message")).contains("no PriorityClass with name no-such-class was found");
    }

    @Test
    void aClassNeedsAValueThatNeverChanges() {
        Response noValue = post(PC, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
                + "\"metadata\":{\"name\":\"valueless\"}}");
        assertThat(noValue.code()).isEqualTo(422);
        assertThat(noValue.body()).contains("value");
        assertThat(post(PC, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
                + "{\"name\":\"fixed\"},\"value\":5}").code()).isIn(201, 409);
        Response changed = patch(PC + "/fixed", "application/merge-patch+json", "{\"value\":6}");
        assertThat(changed.code()).isEqualTo(422);
        assertThat(changed.body()).contains("field is immutable");
    }
}

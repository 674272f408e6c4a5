package io.cybernetes.controller.job;

import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pod failure policy as Kubernetes reads it: the first matching rule decides, by the
 * containers' exit codes (In and NotIn, zero never matching, optionally one container) or by
 * the pod's conditions (status True unless the pattern says otherwise); no match counts.
 */
class FailurePolicyTest {

    private static final String RULES = """
            [{"action":"FailJob","onExitCodes":{"containerName":"main","operator":"In","values":[42]}},
             {"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]},
             {"action":"FailIndex","onExitCodes":{"operator":"In","values":[5,6]}},
             {"action":"Count","onPodConditions":[{"type":"ConfigIssue","status":"False"}]},
             {"action":"Ignore","onExitCodes":{"operator":"NotIn","values":[1,2,3,5,6,42]}}]""";

    private static Job job() {
        return Json.MAPPER.readValue("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},"
                + "\"spec\":{\"podFailurePolicy\":{\"rules\":" + RULES + "}}}", Job.class);
    }

    /** A failed pod whose containers exited with the codes given ({@code name:code;...}) and with one condition. */
    private static Pod pod(String exits, String condition) {
        StringBuilder statuses = new StringBuilder();
        for (String e : exits.split(";")) {
            String[] p = e.split(":");
            statuses.append(statuses.isEmpty() ? "" : ",").append("{\"name\":\"").append(p[0])
                    .append("\",\"state\":{\"terminated\":{\"exitCode\":").append(p[1]).append("}}}");
        }
        String conditions = condition.isEmpty() ? "" : ",\"conditions\":[{\"type\":\"" + condition.split("=")[0]
                + "\",\"status\":\"" + condition.split("=")[1] + "\"}]";
        return Json.MAPPER.readValue("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                + "\"namespace\":\"ns\"},\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[" + statuses + "]"
                + conditions + "}}", Pod.class);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "the named container's code fails the Job         | main:42          |                        | FailJob",
        "another container's same code is not that rule   | side:42          |                        | Count",
        "a disruption is ignored, whatever the code       | main:1           | DisruptionTarget=True  | Ignore",
        "a condition that is not True does not match      | main:1           | DisruptionTarget=False | Count",
        "one of the codes fails only the index            | main:0;side:6    |                        | FailIndex",
        "a pattern can ask for status False               | main:1           | ConfigIssue=False      | Count",
        "NotIn matches a code outside the list            | main:9           |                        | Ignore",
        "NotIn does not match zero                        | main:0;side:3    |                        | Count"})
    void theFirstMatchingRuleDecides(String why, String exits, String condition, String action) {
        assertThat(FailurePolicy.judge(job(), pod(exits, condition == null ? "" : condition)).action())
                .as(why).isEqualTo(action);
    }
}

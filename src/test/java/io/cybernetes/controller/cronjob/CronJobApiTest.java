package io.cybernetes.controller.cronjob;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * CronJobs on the simulated cluster: a Job started on the schedule (named after the
 * scheduled minute, owned, with its scheduled time), the status following it to success,
 * nothing while suspended, Jobs made from one by kubectl and the history limits applied to
 * them, and the schedules, time zones and templates refused as Kubernetes refuses them.
 */
class CronJobApiTest extends SimulatedClusterSupport {

    static final String NS = "cronjobs";
    static final String CRON = "/apis/batch/v1/namespaces/" + NS + "/cronjobs";

    @TempDir
    Path dir;

    @BeforeEach
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private static String cronJob(String name, String schedule, String extraSpec, String restartPolicy) {
        return ("{\"apiVersion\":\"batch/v1\",\"kind\":\"CronJob\",\"metadata\":{\"name\":\"NAME\"},\"spec\":{"
                + "\"schedule\":\"SCHEDULE\"EXTRA,\"jobTemplate\":{\"spec\":{\"template\":{\"metadata\":{\"annotations\":"
                + "{\"cybernetes.io/run-seconds\":\"0.3\"}},\"spec\":{\"restartPolicy\":\"POLICY\",\"containers\":"
                + "[{\"name\":\"tick\",\"image\":\"busybox\"}]}}}}}}")
                .replace("NAME", name).replace("SCHEDULE", schedule).replace("EXTRA", extraSpec)
                .replace("POLICY", restartPolicy);
    }

    private List<JsonNode> jobsOf(String cronJob) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode j : get("/apis/batch/v1/namespaces/" + NS + "/jobs").json().path("items")) {
            if (cronJob.equals(j.path("metadata").path("ownerReferences").path(0).path("name").asString())) {
                out.add(j);
            }
        }
        return out;
    }

    @Test
    void aJobIsStartedOnTheScheduleAndFollowedToItsEnd() {
        Response r = post(CRON, cronJob("ticker", "@every 1s", ",\"concurrencyPolicy\":\"Forbid\"", "Never"));
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        assertThat(r.json().path("spec").path("successfulJobsHistoryLimit").asInt()).isEqualTo(3);
        assertThat(r.json().path("spec").path("failedJobsHistoryLimit").asInt()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<JsonNode> jobs = jobsOf("ticker");
            assertThat(jobs).isNotEmpty();
            JsonNode job = jobs.get(0);
            assertThat(job.path("metadata").path("name").asString()).matches("ticker-\\d+");
            assertThat(job.path("metadata").path("annotations")
                    .path("batch.kubernetes.io/cronjob-scheduled-timestamp").asString()).endsWith("Z");
            assertThat(job.path("metadata").path("ownerReferences").path(0).path("controller").asBoolean()).isTrue();
        });
        await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
            JsonNode status = get(CRON + "/ticker").json().path("status");
            assertThat(status.hasNonNull("lastScheduleTime")).isTrue();
            assertThat(status.hasNonNull("lastSuccessfulTime")).as(status.toString()).isTrue();
        });
        JsonNode view = get("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/cronjobreconciles/ticker").json();
        assertThat(view.path("status").path("desired").path("schedule").asString()).isEqualTo("@every 1s");
        assertThat(view.path("status").path("observed").hasNonNull("lastScheduleTime")).isTrue();
        assertThat(view.path("status").path("lastReconcile").path("controller").asString()).isEqualTo("cronjob");
        assertThat(patch(CRON + "/ticker", "application/merge-patch+json", "{\"spec\":{\"suspend\":true}}").code())
                .isEqualTo(200);
        assertThat(delete(CRON + "/ticker").code()).isEqualTo(200);
    }

    @Test
    void aSuspendedCronJobStartsNothingAndItsHistoryIsKeptToTheLimit() {
        Response r = post(CRON, cronJob("manual", "* * * * *", ",\"suspend\":true,\"successfulJobsHistoryLimit\":1",
                "Never"));
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        Kubectl kubectl = new Kubectl(endpoints.adminKubeconfig(), dir);
        Kubectl.Run first = kubectl.run("-n", NS, "create", "job", "manual-one", "--from=cronjob/manual");
        assertThat(first.exit()).as(first.all()).isZero();
        assertThat(kubectl.run("-n", NS, "wait", "--for=condition=complete", "job/manual-one", "--timeout=60s").exit())
                .isZero();
        Kubectl.Run second = kubectl.run("-n", NS, "create", "job", "manual-two", "--from=cronjob/manual");
        assertThat(second.exit()).as(second.all()).isZero();
        // the older finished Job goes once the newer has finished: one successful Job is kept
        await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> assertThat(jobsOf("manual"))
                .extracting(j -> j.path("metadata").path("name").asString()).containsExactly("manual-two"));
        assertThat(jobsOf("manual").get(0).path("status").path("succeeded").asInt()).isEqualTo(1);
        assertThat(get(CRON + "/manual").json().path("status").has("lastScheduleTime")).isFalse();
        Kubectl.Run got = kubectl.run("-n", NS, "get", "cronjobs");
        assertThat(got.out()).containsPattern("NAME\\s+SCHEDULE\\s+TIMEZONE\\s+SUSPEND\\s+ACTIVE\\s+LAST SCHEDULE\\s+AGE")
                .containsPattern("manual\\s+\\* \\* \\* \\* \\*\\s+<none>\\s+True\\s+0\\s+<none>");
        // kubectl create cronjob (a protobuf body), as the README shows it
        Kubectl.Run created = kubectl.run("-n", NS, "create", "cronjob", "nightly", "--image=busybox",
                "--schedule=0 3 * * *", "--restart=OnFailure", "--", "date");
        assertThat(created.exit()).as(created.all()).isZero();
        assertThat(created.out()).contains("cronjob.batch/nightly created");
        JsonNode nightly = get(CRON + "/nightly").json();
        assertThat(nightly.path("spec").path("schedule").asString()).isEqualTo("0 3 * * *");
        assertThat(nightly.path("spec").path("concurrencyPolicy").asString()).isEqualTo("Allow");
        assertThat(nightly.path("spec").path("jobTemplate").path("spec").path("template").path("spec")
                .path("containers").path(0).path("command").toString()).isEqualTo("[\"date\"]");
    }

    @Test
    void badSchedulesZonesAndTemplatesAreRefusedAndNothingStored() {
        Response schedule = post(CRON, cronJob("bad-schedule", "61 * * * *", "", "Never"));
        assertThat(schedule.code()).isEqualTo(422);
        assertThat(schedule.text("message")).isEqualTo("CronJob.batch \"bad-schedule\" is invalid: spec.schedule:"
                + " Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61");
        Response zone = post(CRON, cronJob("bad-zone", "0 * * * *", ",\"timeZone\":\"Mars/Olympus\"", "Never"));
        assertThat(zone.code()).isEqualTo(422);
        assertThat(zone.text("message")).contains("spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone"
                + " Mars/Olympus");
        Response always = post(CRON, cronJob("bad-policy", "0 * * * *", "", "Always"));
        assertThat(always.code()).isEqualTo(422);
        assertThat(always.text("message")).contains("spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported"
                + " value: \"Always\": supported values: \"OnFailure\", \"Never\"");
        Response longName = post(CRON, cronJob("a-name-that-is-far-too-long-for-the-jobs-it-would-make-x", "0 * * * *",
                "", "Never"));
        assertThat(longName.code()).isEqualTo(422);
        assertThat(longName.text("message")).contains("must be no more than 52 characters");
        for (String name : List.of("bad-schedule", "bad-zone", "bad-policy")) {
            assertThat(get(CRON + "/" + name).code()).isEqualTo(404);
        }
    }
}

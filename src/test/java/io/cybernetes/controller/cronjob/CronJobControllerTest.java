package io.cybernetes.controller.cronjob;

import io.cybernetes.api.Json;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.cybernetes.controller.TestClock;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The CronJob controller's decisions at given times: which time is due, missed, skipped or replaced. */
class CronJobControllerTest {

    private final RecordingApiClient client = new RecordingApiClient();
    private final Indexer<CronJob> cronJobs = new Indexer<>();
    private final Indexer<Job> jobs = new Indexer<>();
    private final TestClock clock = new TestClock();
    private final CronJobController controller = new CronJobController(client, cronJobs, jobs,
            new EventRecorder(client, "cronjob-controller"), clock);

    private CronJob cronJob(String schedule, String extraSpec, String created) {
        CronJob cj = Json.convert(Json.MAPPER.readTree(("{\"apiVersion\":\"batch/v1\",\"kind\":\"CronJob\",\"metadata\":"
                + "{\"name\":\"report\",\"namespace\":\"ns\",\"uid\":\"cj-uid\",\"creationTimestamp\":\"CREATED\"},"
                + "\"spec\":{\"schedule\":\"SCHEDULE\"EXTRA,\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":"
                + "{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}}}")
                .replace("CREATED", created).replace("SCHEDULE", schedule).replace("EXTRA", extraSpec)), CronJob.class);
        cronJobs.put(cj);
        return cj;
    }

    private Result reconcile() throws Exception {
        return controller.reconcile(Request.ofKey("ns/report"));
    }

    private List<String> events() {
        return client.created.stream().filter(o -> o instanceof Event).map(o -> ((Event) o).getReason()).toList();
    }

    private List<Job> jobsCreated() {
        return client.created.stream().filter(o -> o instanceof Job).map(o -> (Job) o).toList();
    }

    @Test
    void theLatestTimeDueStartsAJobNamedAfterItsMinute() throws Exception {
        cronJob("*/5 * * * *", "", "2026-11-29T11:58:00Z");
        clock.now = Instant.parse("2026-11-29T12:07:10Z");
        Result r = reconcile();
        List<Job> made = jobsCreated();
        assertThat(made).hasSize(1);
        long minute = Instant.parse("2026-11-29T12:05:00Z").getEpochSecond() / 60;
        assertThat(made.get(0).getMetadata().getName()).isEqualTo("report-" + minute);
        assertThat(made.get(0).getMetadata().getAnnotations().get(CronJobController.SCHEDULED_TIMESTAMP))
                .isEqualTo("2026-11-29T12:05:00Z");
        assertThat(OwnerReferences.controllerOf(made.get(0)).getName()).isEqualTo("report");
        CronJob written = (CronJob) client.statusWrites.get(client.statusWrites.size() - 1);
        assertThat(written.getStatus().getLastScheduleTime()).isEqualTo("2026-11-29T12:05:00Z");
        assertThat(written.getStatus().getActive()).hasSize(1);
        assertThat(r.requeueAfter()).isBetween(Duration.ofMinutes(2), Duration.ofMinutes(3));
    }

    @Test
    void aTimeLaterThanTheStartingDeadlineIsMissed() throws Exception {
        cronJob("*/5 * * * *", ",\"startingDeadlineSeconds\":60", "2026-11-29T12:04:00Z");
        clock.now = Instant.parse("2026-11-29T12:07:10Z");
        reconcile();
        assertThat(jobsCreated()).isEmpty();
        // with the deadline, only times after now minus 60 s count: 12:05 is not one of them
        assertThat(events()).isEmpty();
        clock.now = Instant.parse("2026-11-29T12:10:30Z");
        reconcile();
        assertThat(jobsCreated()).hasSize(1);
    }

    @Test
    void forbidSkipsATimeWhileAJobRunsAndReplaceDeletesIt() throws Exception {
        CronJob cj = cronJob("*/5 * * * *", ",\"concurrencyPolicy\":\"Forbid\"", "2026-11-29T11:58:00Z");
        Job running = new Job();
        running.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("report-1")
                .withNamespace("ns").withUid("job-uid").withOwnerReferences(OwnerReferences.controlledBy(cj)).build());
        jobs.put(running);
        clock.now = Instant.parse("2026-11-29T12:07:10Z");
        reconcile();
        assertThat(jobsCreated()).isEmpty();
        cj.getSpec().setConcurrencyPolicy("Replace");
        cj.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.CronJobStatus());
        cj.getStatus().setActive(List.of(new ObjectReferenceBuilder().withName("report-1").withUid("job-uid").build()));
        reconcile();
        assertThat(client.actions).contains("delete Job report-1 Background");
        assertThat(jobsCreated()).hasSize(1);
        assertThat(events()).contains("SuccessfulDelete", "SuccessfulCreate");
    }

    @Test
    void tooManyMissedTimesStillStartTheLatestWithAWarning() throws Exception {
        cronJob("* * * * *", "", "2026-11-01T00:00:00Z");
        clock.now = Instant.parse("2026-11-29T12:07:10Z");
        reconcile();
        assertThat(events()).contains("TooManyMissedTimes");
        assertThat(jobsCreated()).extracting(j -> j.getMetadata().getName())
                .containsExactly("report-" + Instant.parse("2026-11-29T12:07:00Z").getEpochSecond() / 60);
    }

    @Test
    void theScheduleIsReadInItsTimeZone() throws Exception {
        cronJob("0 9 * * *", ",\"timeZone\":\"Asia/Tokyo\"", "2026-11-28T23:00:00Z");
        clock.now = Instant.parse("2026-11-29T00:00:30Z");
        reconcile();
        // nine in Tokyo is midnight UTC (read in UTC, nothing would be due before 09:00 UTC); the
        // scheduled time is written in the CronJob's zone, as Kubernetes writes it
        assertThat(jobsCreated()).hasSize(1);
        assertThat(jobsCreated().get(0).getMetadata().getAnnotations().get(CronJobController.SCHEDULED_TIMESTAMP))
                .isEqualTo("2026-11-29T09:00:00+09:00");
    }

    /** A Job of the CronJob that finished ({@code Complete} or {@code Failed}) after starting at {@code start}. */
    private void finished(CronJob cj, String name, String how, String start) {
        Job j = Json.convert(Json.MAPPER.readTree(("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":"
                + "{\"name\":\"NAME\",\"namespace\":\"ns\",\"uid\":\"NAME-uid\"},\"status\":{\"startTime\":\"START\","
                + "\"conditions\":[{\"type\":\"HOW\",\"status\":\"True\"}]}}").replace("NAME", name)
                .replace("START", start).replace("HOW", how)), Job.class);
        j.getMetadata().setOwnerReferences(List.of(OwnerReferences.controlledBy(cj)));
        jobs.put(j);
    }

    @Test
    void finishedJobsBeyondTheHistoryLimitsAreDeletedOldestFirst() throws Exception {
        CronJob cj = cronJob("0 0 1 1 *", ",\"failedJobsHistoryLimit\":1,\"successfulJobsHistoryLimit\":2",
                "2026-11-29T09:00:00Z");
        finished(cj, "failed-old", "Failed", "2026-11-29T10:00:00Z");
        finished(cj, "failed-new", "Failed", "2026-11-29T11:00:00Z");
        finished(cj, "done-1", "Complete", "2026-11-29T10:30:00Z");
        finished(cj, "done-2", "Complete", "2026-11-29T10:40:00Z");
        finished(cj, "done-3", "Complete", "2026-11-29T11:30:00Z");
        clock.now = Instant.parse("2026-11-29T12:07:10Z");
        reconcile();
        assertThat(client.actions.stream().filter(a -> a.startsWith("delete Job")).map(a -> a.split(" ")[2]))
                .containsExactlyInAnyOrder("failed-old", "done-1");
    }

    @Test
    void aSuspendedCronJobStartsNothing() throws Exception {
        cronJob("* * * * *", ",\"suspend\":true", "2026-11-29T11:00:00Z");
        clock.now = Instant.parse("2026-11-29T12:07:10Z");
        assertThat(reconcile()).isEqualTo(Result.DONE);
        assertThat(jobsCreated()).isEmpty();
    }
}

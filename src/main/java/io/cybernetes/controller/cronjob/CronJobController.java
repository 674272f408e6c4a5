package io.cybernetes.controller.cronjob;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.CronSchedule;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Starts each CronJob's Jobs on its schedule, as Kubernetes' CronJob controller: in its
 * time zone, the most recent time due since the last one (at most 100 missed times looked
 * at, with a warning beyond), none later than {@code startingDeadlineSeconds}; the
 * concurrency policy (Allow, Forbid: skipped while one runs, Replace: the running ones
 * deleted first); the Job named after the CronJob and the scheduled minute so that a time
 * is never started twice; {@code active}, {@code lastScheduleTime} and
 * {@code lastSuccessfulTime} in the status; finished Jobs beyond the history limits deleted,
 * oldest first; nothing started while suspended. It looks again at the next time due.
 */
public final class CronJobController implements Reconciler {

    public static final String NAME = "cronjob";
    public static final String SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp";
    static final int MAX_MISSED = 100;

    private final ApiClient client;
    private final Indexer<CronJob> cronJobs;
    private final Indexer<Job> jobs;
    private final EventRecorder events;
    private final Clock clock;
    /** By CronJob: the name of the Job this controller last made, until the cache shows it. */
    private final Map<String, String> made = new java.util.concurrent.ConcurrentHashMap<>();

    public CronJobController(ApiClient client, Indexer<CronJob> cronJobs, Indexer<Job> jobs, EventRecorder events,
                             Clock clock) {
        this.client = client;
        this.cronJobs = cronJobs;
        this.jobs = jobs;
        this.events = events;
        this.clock = clock;
    }

    @Override
    public Result reconcile(Request request) {
        String key = request.key();
        CronJob cj = cronJobs.get(key).orElse(null);
        if (cj == null) {
            made.remove(key);
            return Result.DONE;
        }
        List<Job> owned = owned(cj);
        String last = made.get(key);
        if (last != null) {
            if (owned.stream().noneMatch(j -> j.getMetadata().getName().equals(last))) {
                return Result.after(Duration.ofMillis(100)); // the Job just made is not in the cache yet
            }
            made.remove(key, last);
        }
        CronJobStatus status = cj.getStatus() == null ? new CronJobStatus()
                : Json.convert(Json.toTree(cj.getStatus()), CronJobStatus.class);
        List<ObjectReference> active = new ArrayList<>();
        for (Job j : owned) {
            String ended = finished(j);
            if (ended == null) {
                active.add(reference(j));
                continue;
            }
            boolean wasActive = Objects.requireNonNullElse(status.getActive(), List.<ObjectReference>of()).stream()
                    .anyMatch(r -> j.getMetadata().getUid().equals(r.getUid()));
            if (wasActive) {
                events.normal(cj, "SawCompletedJob", "Saw completed job: " + j.getMetadata().getName()
                        + ", condition: " + ended);
            }
            if ("Complete".equals(ended) && j.getStatus().getCompletionTime() != null && (status.getLastSuccessfulTime()
                    == null || Instant.parse(j.getStatus().getCompletionTime())
                    .isAfter(Instant.parse(status.getLastSuccessfulTime())))) {
                status.setLastSuccessfulTime(j.getStatus().getCompletionTime());
            }
        }
        active.sort(Comparator.comparing(ObjectReference::getName));
        status.setActive(active.isEmpty() ? null : active);
        if (cj.getMetadata().getDeletionTimestamp() != null) {
            writeStatus(cj, status);
            return Result.DONE;
        }
        cleanUpHistory(cj, owned);
        ZoneId zone;
        CronSchedule schedule;
        try {
            zone = CronSchedule.zone(cj.getSpec().getTimeZone());
            schedule = CronSchedule.parse(cj.getSpec().getSchedule());
        } catch (CronSchedule.Invalid e) {
            events.warning(cj, "UnparseableSchedule", "unparseable schedule: " + cj.getSpec().getSchedule() + " : "
                    + e.getMessage());
            writeStatus(cj, status);
            return Result.DONE;
        }
        ZonedDateTime now = clock.instant().atZone(zone);
        if (Boolean.TRUE.equals(cj.getSpec().getSuspend())) {
            writeStatus(cj, status);
            return Result.DONE;
        }
        ZonedDateTime due = mostRecent(cj, schedule, now);
        ZonedDateTime next = schedule.next(now);
        Result again = next == null ? Result.DONE
                : Result.after(Duration.between(now, next).plusMillis(100));
        if (due == null) {
            writeStatus(cj, status);
            return again;
        }
        Long deadline = cj.getSpec().getStartingDeadlineSeconds();
        if (deadline != null && due.plusSeconds(deadline).isBefore(now)) {
            events.warning(cj, "MissSchedule", "Missed scheduled time to start a job: " + rfc3339(due));
            writeStatus(cj, status);
            return again;
        }
        String jobName = cj.getMetadata().getName() + "-" + due.toEpochSecond() / 60;
        if (owned.stream().anyMatch(j -> j.getMetadata().getName().equals(jobName))) {
            writeStatus(cj, status);
            return again;
        }
        String policy = Objects.requireNonNullElse(cj.getSpec().getConcurrencyPolicy(), "Allow");
        if ("Forbid".equals(policy) && !active.isEmpty()) {
            writeStatus(cj, status);
            return again; // this time is skipped, as Kubernetes skips it
        }
        if ("Replace".equals(policy)) {
            for (ObjectReference r : active) {
                deleteJob(cj, r.getName());
            }
            active.clear();
        }
        Job job = newJob(cj, jobName, due);
        try {
            job = client.create(job);
            events.normal(cj, "SuccessfulCreate", "Created job " + jobName);
            made.put(key, jobName);
        } catch (ApiException e) {
            if (e.code() != 409) {
                events.warning(cj, "FailedCreate", "Error creating job: " + e.getMessage());
                throw e;
            }
            job = client.get(Job.class, cj.getMetadata().getNamespace(), jobName).orElse(null);
        }
        if (job != null) {
            active.add(reference(job));
        }
        status.setActive(active.isEmpty() ? null : active);
        status.setLastScheduleTime(rfc3339(due.withZoneSameInstant(ZoneId.of("UTC"))));
        writeStatus(cj, status);
        return again;
    }

    /**
     * The latest time due at or before now since the last one scheduled (or since the CronJob
     * was made, or the starting deadline, whichever is later); null when none is due.
     */
    private ZonedDateTime mostRecent(CronJob cj, CronSchedule schedule, ZonedDateTime now) {
        Instant since = cj.getStatus() != null && cj.getStatus().getLastScheduleTime() != null
                ? Instant.parse(cj.getStatus().getLastScheduleTime())
                : Instant.parse(cj.getMetadata().getCreationTimestamp());
        Long deadline = cj.getSpec().getStartingDeadlineSeconds();
        if (deadline != null) {
            Instant earliest = now.toInstant().minusSeconds(deadline);
            if (earliest.isAfter(since)) {
                since = earliest;
            }
        }
        ZonedDateTime t = schedule.next(since.atZone(now.getZone()));
        ZonedDateTime due = null;
        for (int missed = 0; t != null && !t.isAfter(now); missed++) {
            if (missed == MAX_MISSED) {
                // too many to look at one by one: the latest is still started, as Kubernetes does
                events.warning(cj, "TooManyMissedTimes", "too many missed start times. Set or decrease"
                        + " .spec.startingDeadlineSeconds or check clock skew");
                return latest(schedule, now);
            }
            due = t;
            t = schedule.next(t);
        }
        return due;
    }

    /** The latest time due at or before now, looked for in ever wider windows back from now. */
    static ZonedDateTime latest(CronSchedule schedule, ZonedDateTime now) {
        for (Duration window : List.of(Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofDays(1),
                Duration.ofDays(32), Duration.ofDays(367), Duration.ofDays(5 * 366))) {
            ZonedDateTime t = schedule.next(now.minus(window));
            if (t == null || t.isAfter(now)) {
                continue;
            }
            ZonedDateTime due = t;
            for (ZonedDateTime n = schedule.next(t); n != null && !n.isAfter(now); n = schedule.next(n)) {
                due = n;
            }
            return due;
        }
        return null;
    }

    private Job newJob(CronJob cj, String name, ZonedDateTime scheduled) {
        var template = cj.getSpec().getJobTemplate();
        Job job = new Job();
        ObjectMeta meta = new ObjectMeta();
        meta.setName(name);
        meta.setNamespace(cj.getMetadata().getNamespace());
        Map<String, String> labels = template.getMetadata() == null ? null : template.getMetadata().getLabels();
        Map<String, String> annotations = new HashMap<>(template.getMetadata() == null ? Map.of()
                : Objects.requireNonNullElse(template.getMetadata().getAnnotations(), Map.of()));
        annotations.put(SCHEDULED_TIMESTAMP, rfc3339(scheduled));
        meta.setLabels(labels == null ? null : new HashMap<>(labels));
        meta.setAnnotations(annotations);
        meta.setOwnerReferences(new ArrayList<>(List.of(OwnerReferences.controlledBy(cj))));
        job.setMetadata(meta);
        job.setSpec(Json.convert(Json.toTree(template.getSpec()), io.fabric8.kubernetes.api.model.batch.v1.JobSpec.class));
        return job;
    }

    /** Deletes the oldest finished Jobs beyond the history limits. */
    private void cleanUpHistory(CronJob cj, List<Job> owned) {
        for (String kind : List.of("Complete", "Failed")) {
            Integer limit = "Complete".equals(kind) ? cj.getSpec().getSuccessfulJobsHistoryLimit()
                    : cj.getSpec().getFailedJobsHistoryLimit();
            if (limit == null) {
                continue;
            }
            List<Job> done = new ArrayList<>(owned.stream().filter(j -> kind.equals(finished(j))
                    && j.getMetadata().getDeletionTimestamp() == null).toList());
            // oldest first, as Kubernetes orders them: by start time, then by name
            done.sort(Comparator.comparing(CronJobController::startedAt).thenComparing(j -> j.getMetadata().getName()));
            for (int i = 0; i < done.size() - limit; i++) {
                deleteJob(cj, done.get(i).getMetadata().getName());
            }
        }
    }

    private static String startedAt(Job j) {
        return j.getStatus() != null && j.getStatus().getStartTime() != null ? j.getStatus().getStartTime()
                : Objects.requireNonNullElse(j.getMetadata().getCreationTimestamp(), "");
    }

    private void deleteJob(CronJob cj, String name) {
        try {
            client.delete(Job.class, cj.getMetadata().getNamespace(), name, "Background");
            events.normal(cj, "SuccessfulDelete", "Deleted job " + name);
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
    }

    /** How the Job ended (Complete or Failed), or null while it runs. */
    static String finished(Job j) {
        if (j.getStatus() == null || j.getStatus().getConditions() == null) {
            return null;
        }
        for (JobCondition c : j.getStatus().getConditions()) {
            if (("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus())) {
                return c.getType();
            }
        }
        return null;
    }

    private static ObjectReference reference(Job j) {
        return new ObjectReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                .withNamespace(j.getMetadata().getNamespace()).withName(j.getMetadata().getName())
                .withUid(j.getMetadata().getUid()).withResourceVersion(j.getMetadata().getResourceVersion()).build();
    }

    private static String rfc3339(ZonedDateTime t) {
        return t.truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME).replace("+00:00", "Z");
    }

    private void writeStatus(CronJob cj, CronJobStatus status) {
        if (Json.toTree(status).equals(Json.toTree(cj.getStatus() == null ? new CronJobStatus() : cj.getStatus()))) {
            return;
        }
        CronJob copy = Json.convert(Json.toTree(cj), CronJob.class);
        copy.setStatus(status);
        client.updateStatus(copy);
    }

    private List<Job> owned(CronJob cj) {
        List<Job> out = new ArrayList<>();
        for (Job j : jobs.byIndex(Indexer.NAMESPACE_INDEX, cj.getMetadata().getNamespace())) {
            OwnerReference ref = OwnerReferences.controllerOf(j);
            if (ref != null && cj.getMetadata().getUid().equals(ref.getUid())) {
                out.add(j);
            }
        }
        return out;
    }

    public ResourceEventHandler<CronJob> cronJobHandler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }

    /** A Job of a CronJob's that changes or goes queues its CronJob. */
    public ResourceEventHandler<Job> jobHandler(Controller controller) {
        return controller.enqueueMapped(j -> {
            OwnerReference ref = OwnerReferences.controllerOf(j);
            return ref != null && "CronJob".equals(ref.getKind()) ? j.getMetadata().getNamespace() + "/" + ref.getName()
                    : null;
        });
    }
}

package io.cybernetes.controller.job;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Expectations;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.UncountedTerminatedPods;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs each Job's pods to completion, as Kubernetes' job controller: as many pods at once
 * as {@code parallelism} allows and {@code completions} still needs (for an Indexed Job the
 * lowest indexes neither done nor running), failed pods replaced after an exponential
 * back-off, each finished pod counted exactly once through the job-tracking finalizer (its
 * uid recorded under {@code uncountedTerminatedPods}, then the finalizer removed, then the
 * counts moved on), the pod failure policy (FailJob, FailIndex, Ignore, Count),
 * {@code backoffLimit} and {@code backoffLimitPerIndex} with {@code maxFailedIndexes},
 * {@code activeDeadlineSeconds} and {@code suspend}; the Job ends with SuccessCriteriaMet
 * then Complete, or FailureTarget then Failed once its remaining pods are gone.
 */
public final class JobController implements Reconciler {

    public static final String NAME = "job";
    static final int BURST = 500;

    private final ApiClient client;
    private final Indexer<Job> jobs;
    private final Indexer<Pod> pods;
    private final EventRecorder events;
    private final Clock clock;
    private final Duration backoffBase;
    private final Expectations expectations = new Expectations();
    /** By Job: failures since its last success and when the latest was seen, for the back-off. */
    private final Map<String, Backoff> backoffs = new ConcurrentHashMap<>();
    /** Uids of pods this controller deleted (suspended, finished, too many): not failures of the Job. */
    private final Set<String> deletedByController = ConcurrentHashMap.newKeySet();
    /**
     * Uids of pods whose tracking finalizer this controller removed, until the cache shows it
     * gone: a finished pod still carrying it there was already counted and must not count again.
     */
    private final Set<String> finalizerRemovals = ConcurrentHashMap.newKeySet();
    /**
     * By Job: the resource version of the status this controller last wrote, until the cache
     * has it — a Job read from a cache behind it would count again what that status counted.
     */
    private final Map<String, Long> written = new ConcurrentHashMap<>();

    private record Backoff(int failures, Instant latest) {
    }

    /** Why a Job ends: the condition's reason and message. */
    private record Ending(String reason, String message) {
    }

    public JobController(ApiClient client, Indexer<Job> jobs, Indexer<Pod> pods, EventRecorder events, Clock clock,
                         Duration backoffBase) {
        this.client = client;
        this.jobs = jobs;
        this.pods = pods;
        this.events = events;
        this.clock = clock;
        this.backoffBase = backoffBase;
    }

    @Override
    public Result reconcile(Request request) throws Exception {
        String key = request.key();
        Job job = jobs.get(key).orElse(null);
        if (job == null) {
            expectations.forget(key);
            backoffs.remove(key);
            written.remove(key);
            releaseOrphans(request);
            return Result.DONE;
        }
        Long mine = written.get(key);
        if (mine != null) {
            if (version(job) < mine) {
                return Result.after(Duration.ofMillis(100)); // its update event queues it again as well
            }
            written.remove(key, mine);
        }
        boolean needsSync = expectations.satisfied(key);
        List<Pod> owned = owned(job);
        if (condition(job, "Complete") || condition(job, "Failed")) {
            for (Pod p : owned) {
                if (JobPods.hasFinalizer(p) && !JobPods.active(p)) {
                    removeFinalizer(p);
                }
            }
            return Result.DONE;
        }
        Instant now = clock.instant();
        JobStatus status = job.getStatus() == null ? new JobStatus()
                : Json.convert(Json.toTree(job.getStatus()), JobStatus.class);
        UncountedTerminatedPods uncounted = status.getUncountedTerminatedPods() == null
                ? new UncountedTerminatedPods() : status.getUncountedTerminatedPods();
        Set<String> uncSucceeded = new LinkedHashSet<>(Objects.requireNonNullElse(uncounted.getSucceeded(), List.of()));
        Set<String> uncFailed = new LinkedHashSet<>(Objects.requireNonNullElse(uncounted.getFailed(), List.of()));
        TreeSet<Integer> completed = Indexes.parse(status.getCompletedIndexes());
        TreeSet<Integer> failedIndexes = Indexes.parse(status.getFailedIndexes());
        Ending failJob = null;
        List<Pod> release = new ArrayList<>();
        boolean newlyFinished = false;
        for (Pod p : owned) {
            String uid = p.getMetadata().getUid();
            if (!JobPods.hasFinalizer(p) || uncSucceeded.contains(uid) || uncFailed.contains(uid)
                    || finalizerRemovals.contains(uid)) {
                continue;
            }
            Integer index = JobPods.index(p);
            if (JobPods.succeeded(p)) {
                if (!JobPods.indexed(job) || index != null && !completed.contains(index)) {
                    uncSucceeded.add(uid);
                    if (index != null) {
                        completed.add(index);
                    }
                    backoffs.remove(key);
                } else {
                    release.add(p); // a second success of an index counts for nothing
                }
                newlyFinished = true;
            } else if (JobPods.failed(p, job) && !deletedByController.contains(uid)) {
                FailurePolicy.Verdict v = "Failed".equals(JobPods.phase(p)) ? FailurePolicy.judge(job, p)
                        : FailurePolicy.Verdict.COUNT;
                newlyFinished = true;
                switch (v.action()) {
                    case "Ignore" -> release.add(p);
                    case "FailJob" -> {
                        failJob = new Ending("PodFailurePolicy", v.message());
                        uncFailed.add(uid);
                    }
                    default -> {
                        uncFailed.add(uid);
                        Integer perIndex = job.getSpec().getBackoffLimitPerIndex();
                        if (index != null && perIndex != null && ("FailIndex".equals(v.action())
                                || JobPods.indexFailures(p) + 1 > perIndex)) {
                            failedIndexes.add(index);
                        }
                    }
                }
                if (!"Ignore".equals(v.action())) {
                    backoffs.merge(key, new Backoff(1, now), (a, b) -> new Backoff(a.failures() + 1, now));
                }
            } else if (!JobPods.active(p)) {
                release.add(p); // deleted by this controller, or by someone else where only failures are replaced
            }
        }
        if (newlyFinished && !(uncSucceeded.isEmpty() && uncFailed.isEmpty())) {
            // first the uids, so that no pod whose finalizer goes is forgotten; then the finalizers. What the pods
            // decided goes with them (as kube's job controller writes it): a retry after a failure past this write
            // skips these pods, so an index they completed or failed, or a FailJob verdict, would be lost
            uncounted.setSucceeded(new ArrayList<>(uncSucceeded));
            uncounted.setFailed(new ArrayList<>(uncFailed));
            status.setUncountedTerminatedPods(uncounted);
            recordIndexes(job, status, completed, failedIndexes);
            if (failJob != null) {
                setCondition(status, "FailureTarget", "True", failJob, now);
            }
            job = writeStatus(job, status);
            status = Json.convert(Json.toTree(job.getStatus()), JobStatus.class);
        }
        // a uid is counted once its pod no longer holds the finalizer (removed now, or the pod is gone); one whose
        // removal was refused stays uncounted for a later pass, as in kube's job controller
        Set<String> held = new HashSet<>();
        for (Pod p : owned) {
            String uid = p.getMetadata().getUid();
            if (JobPods.hasFinalizer(p) && (uncSucceeded.contains(uid) || uncFailed.contains(uid))
                    && !removeFinalizer(p)) {
                held.add(uid);
            }
        }
        release.forEach(this::removeFinalizer);
        List<String> heldSucceeded = uncSucceeded.stream().filter(held::contains).toList();
        List<String> heldFailed = uncFailed.stream().filter(held::contains).toList();
        status.setSucceeded(Objects.requireNonNullElse(status.getSucceeded(), 0) + uncSucceeded.size()
                - heldSucceeded.size());
        status.setFailed(Objects.requireNonNullElse(status.getFailed(), 0) + uncFailed.size() - heldFailed.size());
        UncountedTerminatedPods stillUncounted = new UncountedTerminatedPods();
        if (!held.isEmpty()) {
            stillUncounted.setSucceeded(heldSucceeded);
            stillUncounted.setFailed(heldFailed);
        }
        status.setUncountedTerminatedPods(stillUncounted);
        recordIndexes(job, status, completed, failedIndexes);
        if (JobPods.indexed(job)) {
            status.setSucceeded(completed.size());
        }
        Result result = sync(job, key, status, owned, completed, failedIndexes, failJob, needsSync, now);
        return held.isEmpty() ? result : Result.REQUEUE;
    }

    /** An Indexed Job's completed indexes and, with per-index limits, its failed ones, into the status. */
    private static void recordIndexes(Job job, JobStatus status, TreeSet<Integer> completed,
                                      TreeSet<Integer> failedIndexes) {
        if (!JobPods.indexed(job)) {
            return;
        }
        status.setCompletedIndexes(Indexes.format(completed));
        if (job.getSpec().getBackoffLimitPerIndex() != null) {
            status.setFailedIndexes(Objects.requireNonNullElse(Indexes.format(failedIndexes), ""));
        }
    }

    private Result sync(Job job, String key, JobStatus status, List<Pod> owned, TreeSet<Integer> completed,
                        TreeSet<Integer> failedIndexes, Ending failJob, boolean needsSync, Instant now) {
        List<Pod> active = owned.stream().filter(JobPods::active).filter(p -> !deletedByController.contains(
                p.getMetadata().getUid())).toList();
        int restarts = "OnFailure".equals(job.getSpec().getTemplate().getSpec().getRestartPolicy())
                ? active.stream().mapToInt(JobPods::restarts).sum() : 0;
        int succeeded = status.getSucceeded();
        Integer completions = job.getSpec().getCompletions();
        Duration recheck = null;
        Ending failure = existing(status, "FailureTarget");
        if (failure == null) {
            failure = failJob;
        }
        if (failure == null && job.getSpec().getBackoffLimitPerIndex() == null
                && status.getFailed() + restarts > job.getSpec().getBackoffLimit()) {
            failure = new Ending("BackoffLimitExceeded", "Job has reached the specified backoff limit");
        }
        if (failure == null && job.getSpec().getMaxFailedIndexes() != null
                && failedIndexes.size() > job.getSpec().getMaxFailedIndexes()) {
            failure = new Ending("MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed"
                    + " indexes");
        }
        if (failure == null && status.getStartTime() != null && job.getSpec().getActiveDeadlineSeconds() != null
                && !Boolean.TRUE.equals(job.getSpec().getSuspend())) {
            Instant deadline = Instant.parse(status.getStartTime()).plusSeconds(job.getSpec().getActiveDeadlineSeconds());
            if (!now.isBefore(deadline)) {
                failure = new Ending("DeadlineExceeded", "Job was active longer than specified deadline");
            } else {
                recheck = Duration.between(now, deadline).plusMillis(50);
            }
        }
        boolean success = existing(status, "SuccessCriteriaMet") != null;
        if (failure == null && !success) {
            if (JobPods.indexed(job)) {
                Set<Integer> done = new TreeSet<>(completed);
                done.addAll(failedIndexes);
                if (done.size() >= completions) {
                    if (failedIndexes.isEmpty()) {
                        success = true;
                    } else if (active.isEmpty()) {
                        failure = new Ending("FailedIndexes", "Job has failed indexes");
                    }
                }
            } else {
                success = completions != null ? succeeded >= completions : succeeded > 0 && active.isEmpty();
            }
        }
        List<Pod> terminating = owned.stream().filter(JobPods::terminating).toList();
        if (failure != null || success) {
            Ending end = failure != null ? failure
                    : new Ending("CompletionsReached", "Reached expected number of succeeded pods");
            setCondition(status, failure != null ? "FailureTarget" : "SuccessCriteriaMet", "True", end, now);
            deletePods(job, key, active);
            boolean gone = owned.stream().noneMatch(p -> JobPods.active(p) || JobPods.terminating(p));
            if (gone) {
                setCondition(status, failure != null ? "Failed" : "Complete", "True", end, now);
                if (failure == null) {
                    status.setCompletionTime(timestamp(now));
                    events.normal(job, "Completed", "Job completed");
                } else {
                    events.warning(job, end.reason(), end.message());
                }
            }
            active = List.of();
        } else if (Boolean.TRUE.equals(job.getSpec().getSuspend())) {
            if (!"True".equals(conditionStatus(status, "Suspended"))) {
                setCondition(status, "Suspended", "True", new Ending("JobSuspended", "Job suspended"), now);
                events.normal(job, "Suspended", "Job suspended");
            }
            deletePods(job, key, active);
            active = List.of();
        } else {
            if ("True".equals(conditionStatus(status, "Suspended"))) {
                setCondition(status, "Suspended", "False", new Ending("JobResumed", "Job resumed"), now);
                events.normal(job, "Resumed", "Job resumed");
                status.setStartTime(timestamp(now));
            }
            if (status.getStartTime() == null) {
                status.setStartTime(timestamp(now));
                if (job.getSpec().getActiveDeadlineSeconds() != null) {
                    recheck = Duration.ofSeconds(job.getSpec().getActiveDeadlineSeconds()).plusMillis(50);
                }
            }
            if (needsSync) {
                Duration wait = managePods(job, key, active, completed, failedIndexes, succeeded, now);
                if (wait != null && (recheck == null || wait.compareTo(recheck) < 0)) {
                    recheck = wait;
                }
            }
        }
        status.setActive(active.size());
        status.setReady((int) active.stream().filter(JobPods::ready).count());
        status.setTerminating(terminating.size());
        writeStatus(job, status);
        return recheck == null ? Result.DONE : Result.after(recheck);
    }

    /** Creates or deletes pods towards what the Job wants running; returns when to look again (a back-off), or null. */
    private Duration managePods(Job job, String key, List<Pod> active, TreeSet<Integer> completed,
                                TreeSet<Integer> failedIndexes, int succeeded, Instant now) {
        int parallelism = job.getSpec().getParallelism();
        Integer completions = job.getSpec().getCompletions();
        List<Integer> toStart = new ArrayList<>();
        int want;
        if (JobPods.indexed(job)) {
            Set<Integer> running = new TreeSet<>();
            active.stream().map(JobPods::index).filter(Objects::nonNull).forEach(running::add);
            for (int i = 0; i < completions && running.size() + toStart.size() < parallelism; i++) {
                if (!completed.contains(i) && !failedIndexes.contains(i) && !running.contains(i)) {
                    toStart.add(i);
                }
            }
            want = active.size() + toStart.size();
        } else if (completions != null) {
            want = Math.min(parallelism, Math.max(0, completions - succeeded));
        } else {
            want = succeeded > 0 ? active.size() : parallelism;
        }
        if (want < active.size()) {
            List<Pod> extra = new ArrayList<>(active);
            extra.sort(Comparator.comparing(JobPods::ready).thenComparing((Pod p) -> Objects.requireNonNullElse(
                    p.getMetadata().getCreationTimestamp(), ""), Comparator.reverseOrder()));
            deletePods(job, key, extra.subList(0, active.size() - want));
            return null;
        }
        int create = Math.min(want - active.size(), BURST);
        if (create <= 0) {
            return null;
        }
        Backoff b = backoffs.get(key);
        if (b != null) {
            Instant ready = b.latest().plus(FailurePolicy.backoff(backoffBase, b.failures()));
            if (now.isBefore(ready)) {
                return Duration.between(now, ready).plusMillis(20);
            }
        }
        Map<Integer, Integer> indexFailures = indexFailures(job);
        expectations.expect(key, create, 0);
        for (int i = 0; i < create; i++) {
            Integer index = JobPods.indexed(job) ? toStart.get(i) : null;
            try {
                Pod pod = client.create(JobPods.newPod(job, index, index == null ? 0 : indexFailures.getOrDefault(index,
                        0)));
                events.normal(job, "SuccessfulCreate", "Created pod: " + pod.getMetadata().getName());
            } catch (ApiException e) {
                for (int j = i; j < create; j++) {
                    expectations.creationObserved(key);
                }
                events.warning(job, "FailedCreate", "Error creating: " + e.getMessage());
                throw e;
            }
        }
        return null;
    }

    /** The failures so far of each index, from its latest pod's count and whether that pod failed. */
    private Map<Integer, Integer> indexFailures(Job job) {
        Map<Integer, Integer> out = new HashMap<>();
        for (Pod p : owned(job)) {
            Integer index = JobPods.index(p);
            if (index != null) {
                int n = JobPods.indexFailures(p) + (JobPods.failed(p, job) ? 1 : 0);
                out.merge(index, n, Math::max);
            }
        }
        return out;
    }

    private void deletePods(Job job, String key, List<Pod> victims) {
        List<Pod> left = victims.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
        if (left.isEmpty()) {
            return;
        }
        expectations.expect(key, 0, left.size());
        for (Pod p : left) {
            deletedByController.add(p.getMetadata().getUid());
            try {
                client.delete(Pod.class, p.getMetadata().getNamespace(), p.getMetadata().getName(), null);
                events.normal(job, "SuccessfulDelete", "Deleted pod: " + p.getMetadata().getName());
            } catch (ApiException e) {
                expectations.deletionObserved(key);
                if (e.code() != 404) {
                    throw e;
                }
            }
        }
    }

    private Job writeStatus(Job job, JobStatus status) {
        if (Json.toTree(status).equals(Json.toTree(job.getStatus() == null ? new JobStatus() : job.getStatus()))) {
            return job;
        }
        Job copy = Json.convert(Json.toTree(job), Job.class);
        copy.setStatus(status);
        Job updated = client.updateStatus(copy);
        written.put(Keys.of(updated), version(updated));
        return updated;
    }

    private static long version(Job job) {
        try {
            return Long.parseLong(job.getMetadata().getResourceVersion());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Removes the tracking finalizer; true once the pod no longer holds it (removed, or the pod is gone), false
     * when the removal was refused with a conflict (tried again on a later pass).
     */
    private boolean removeFinalizer(Pod p) {
        List<String> left = new ArrayList<>(Objects.requireNonNullElse(p.getMetadata().getFinalizers(), List.of()));
        if (!left.remove(JobPods.TRACKING_FINALIZER)) {
            return true;
        }
        String uid = p.getMetadata().getUid();
        finalizerRemovals.add(uid);
        try {
            client.patch(Pod.class, p.getMetadata().getNamespace(), p.getMetadata().getName(),
                    "{\"metadata\":{\"uid\":\"" + uid + "\",\"finalizers\":"
                            + Json.write(Json.MAPPER.valueToTree(left)) + "}}");
        } catch (ApiException e) {
            finalizerRemovals.remove(uid);
            if (e.code() == 409) {
                return false;
            }
            if (e.code() != 404) {
                throw e;
            }
        }
        deletedByController.remove(p.getMetadata().getUid());
        return true;
    }

    /** Pods left with the tracking finalizer by a Job that is gone: let go, as nobody else will. */
    private void releaseOrphans(Request request) {
        for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, request.namespace())) {
            OwnerReference ref = OwnerReferences.controllerOf(p);
            if (ref != null && "Job".equals(ref.getKind()) && request.name().equals(ref.getName())
                    && JobPods.hasFinalizer(p)) {
                removeFinalizer(p);
            }
        }
    }

    private List<Pod> owned(Job job) {
        List<Pod> out = new ArrayList<>();
        for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, job.getMetadata().getNamespace())) {
            OwnerReference ref = OwnerReferences.controllerOf(p);
            if (ref != null && job.getMetadata().getUid().equals(ref.getUid())) {
                out.add(p);
            }
        }
        return out;
    }

    static boolean condition(Job job, String type) {
        return job.getStatus() != null && "True".equals(conditionStatus(job.getStatus(), type));
    }

    private static String conditionStatus(JobStatus status, String type) {
        for (JobCondition c : Objects.requireNonNullElse(status.getConditions(), List.<JobCondition>of())) {
            if (type.equals(c.getType())) {
                return c.getStatus();
            }
        }
        return null;
    }

    private static Ending existing(JobStatus status, String type) {
        for (JobCondition c : Objects.requireNonNullElse(status.getConditions(), List.<JobCondition>of())) {
            if (type.equals(c.getType()) && "True".equals(c.getStatus())) {
                return new Ending(c.getReason(), c.getMessage());
            }
        }
        return null;
    }

    private static void setCondition(JobStatus status, String type, String value, Ending why, Instant now) {
        List<JobCondition> conditions = new ArrayList<>(Objects.requireNonNullElse(status.getConditions(), List.of()));
        for (JobCondition c : conditions) {
            if (type.equals(c.getType())) {
                if (!value.equals(c.getStatus())) {
                    c.setStatus(value);
                    c.setReason(why.reason());
                    c.setMessage(why.message());
                    c.setLastProbeTime(timestamp(now));
                    c.setLastTransitionTime(timestamp(now));
                }
                status.setConditions(conditions);
                return;
            }
        }
        JobCondition c = new JobCondition();
        c.setType(type);
        c.setStatus(value);
        c.setReason(why.reason());
        c.setMessage(why.message());
        c.setLastProbeTime(timestamp(now));
        c.setLastTransitionTime(timestamp(now));
        conditions.add(c);
        status.setConditions(conditions);
    }

    private static String timestamp(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    public ResourceEventHandler<Job> jobHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Job obj) {
                controller.enqueue(Keys.of(obj));
            }

            @Override
            public void onUpdate(Job oldObj, Job newObj) {
                controller.enqueue(Keys.of(newObj));
            }

            @Override
            public void onDelete(Job lastKnown, boolean finalStateUnknown) {
                expectations.forget(Keys.of(lastKnown));
                controller.enqueue(Keys.of(lastKnown));
            }
        };
    }

    public ResourceEventHandler<Pod> podHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                String owner = ownerKey(pod);
                if (owner != null) {
                    expectations.creationObserved(owner);
                    controller.enqueue(owner);
                }
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                if (!JobPods.hasFinalizer(newPod)) {
                    finalizerRemovals.remove(newPod.getMetadata().getUid());
                }
                String owner = ownerKey(newPod);
                if (owner != null) {
                    if (oldPod.getMetadata().getDeletionTimestamp() == null
                            && newPod.getMetadata().getDeletionTimestamp() != null) {
                        expectations.deletionObserved(owner);
                    }
                    controller.enqueue(owner);
                }
            }

            @Override
            public void onDelete(Pod lastKnown, boolean finalStateUnknown) {
                String owner = ownerKey(lastKnown);
                if (owner != null) {
                    if (lastKnown.getMetadata().getDeletionTimestamp() == null) {
                        expectations.deletionObserved(owner);
                    }
                    deletedByController.remove(lastKnown.getMetadata().getUid());
                    finalizerRemovals.remove(lastKnown.getMetadata().getUid());
                    controller.enqueue(owner);
                }
            }
        };
    }

    private static String ownerKey(Pod p) {
        OwnerReference ref = OwnerReferences.controllerOf(p);
        return ref == null || !"Job".equals(ref.getKind()) ? null : p.getMetadata().getNamespace() + "/" + ref.getName();
    }
}

package io.cybernetes.controller.ttlafterfinished;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Deletes finished Jobs once their {@code ttlSecondsAfterFinished} has passed, as
 * Kubernetes' TTL-after-finished controller: counted from the time the Job's Complete or
 * Failed condition was set, deleted in the foreground (its pods first), the TTL read again
 * from the server just before so that a Job whose TTL was just raised is spared.
 */
public final class TtlAfterFinishedController implements Reconciler {

    public static final String NAME = "ttl-after-finished";

    private final ApiClient client;
    private final Indexer<Job> jobs;
    private final Clock clock;

    public TtlAfterFinishedController(ApiClient client, Indexer<Job> jobs, Clock clock) {
        this.client = client;
        this.jobs = jobs;
        this.clock = clock;
    }

    @Override
    public Result reconcile(Request request) {
        Job job = jobs.get(request.key()).orElse(null);
        Duration left = job == null ? null : timeLeft(job, clock.instant());
        if (left == null) {
            return Result.DONE;
        }
        if (left.compareTo(Duration.ZERO) > 0) {
            return Result.after(left);
        }
        Job fresh = client.get(Job.class, request.namespace(), request.name()).orElse(null);
        left = fresh == null ? null : timeLeft(fresh, clock.instant());
        if (left == null) {
            return Result.DONE;
        }
        if (left.compareTo(Duration.ZERO) > 0) {
            return Result.after(left);
        }
        try {
            client.delete(Job.class, request.namespace(), request.name(), "Foreground");
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
        return Result.DONE;
    }

    /** How long until the finished Job is due for deletion (zero or less: now); null when it is not due at all. */
    static Duration timeLeft(Job job, Instant now) {
        Integer ttl = job.getSpec() == null ? null : job.getSpec().getTtlSecondsAfterFinished();
        if (ttl == null || job.getMetadata().getDeletionTimestamp() != null || job.getStatus() == null) {
            return null;
        }
        for (JobCondition c : Objects.requireNonNullElse(job.getStatus().getConditions(), List.<JobCondition>of())) {
            if (("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus())) {
                Instant finished = c.getLastTransitionTime() == null ? now : Instant.parse(c.getLastTransitionTime());
                return Duration.between(now, finished.plusSeconds(ttl));
            }
        }
        return null;
    }

    public io.cybernetes.client.ResourceEventHandler<Job> handler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }
}

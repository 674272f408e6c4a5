package io.cybernetes.scheduler;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Keys;
import io.cybernetes.scheduler.framework.Framework;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One scheduling loop: take the next pod from the queue, run the framework over the
 * cache's snapshot, and either assume the pod on the chosen node and bind it through
 * {@code pods/binding} on the binder (so the next pod's cycle overlaps the binding), or
 * report it unschedulable — condition {@code PodScheduled=False} (reason Unschedulable)
 * with the "0/N nodes are available" message, and a FailedScheduling event — and park
 * it until the cluster changes. The last decision per pod is kept to explain it.
 */
public final class Scheduler {

    private final ApiClient client;
    private final Framework framework;
    private final SchedulingQueue queue;
    private final SchedulerCache cache;
    private final EventRecorder events;
    private final Executor binder;
    private final Clock clock;
    private final Map<String, Framework.Decision> lastDecisions = new ConcurrentHashMap<>();

    public Scheduler(ApiClient client, Framework framework, SchedulingQueue queue, SchedulerCache cache,
                     EventRecorder events, Executor binder, Clock clock) {
        this.client = client;
        this.framework = framework;
        this.queue = queue;
        this.cache = cache;
        this.events = events;
        this.binder = binder;
        this.clock = clock;
    }

    /** Schedules the next pod, waiting up to the timeout for one; false when none came. */
    public boolean scheduleOne(long timeoutMillis) throws InterruptedException {
        SchedulingQueue.QueuedPod q = queue.pop(timeoutMillis);
        if (q == null) {
            return false;
        }
        Pod pod = q.pod();
        Framework.Decision d = framework.schedule(pod, cache.snapshot());
        lastDecisions.put(q.key(), d);
        if (!d.scheduled()) {
            queue.unschedulable(q);
            events.warning(pod, "FailedScheduling", d.message());
            markUnschedulable(pod, d.message());
            return true;
        }
        cache.assume(pod, d.node());
        binder.execute(() -> bind(q, d.node()));
        return true;
    }

    private void bind(SchedulingQueue.QueuedPod q, String node) {
        Pod pod = q.pod();
        try {
            client.bind(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), node);
            cache.finishBinding(pod);
            queue.done(q);
            events.normal(pod, "Scheduled", "Successfully assigned " + Keys.of(pod) + " to " + node);
        } catch (ApiException e) {
            cache.forget(pod);
            if (e.code() == 404) {
                queue.done(q); // the pod is gone
                return;
            }
            queue.retry(q);
            events.warning(pod, "FailedScheduling", "Binding rejected: " + e.getMessage());
        }
    }

    /** Writes {@code PodScheduled=False} with the reason, unless the pod already says so. */
    private void markUnschedulable(Pod pod, String message) {
        List<PodCondition> conditions = new ArrayList<>(pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? List.of() : pod.getStatus().getConditions());
        boolean same = conditions.stream().anyMatch(c -> "PodScheduled".equals(c.getType())
                && "False".equals(c.getStatus()) && message.equals(c.getMessage()));
        if (same) {
            return;
        }
        conditions.removeIf(c -> "PodScheduled".equals(c.getType()));
        conditions.add(new PodConditionBuilder().withType("PodScheduled").withStatus("False").withReason("Unschedulable")
                .withMessage(message).withLastTransitionTime(clock.instant().truncatedTo(ChronoUnit.SECONDS).toString())
                .build());
        Pod copy = Json.convert(Json.toTree(pod), Pod.class);
        if (copy.getStatus() == null) {
            copy.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
        }
        copy.getStatus().setConditions(conditions);
        try {
            client.updateStatus(copy);
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                throw e;
            }
        }
    }

    /** The last decision about the pod (namespace/name), to explain where it went or why nowhere. */
    public Optional<Framework.Decision> lastDecision(String podKey) {
        return Optional.ofNullable(lastDecisions.get(podKey));
    }

    /** The pod is gone: its decision is no longer asked for. */
    public void forgetDecision(String podKey) {
        lastDecisions.remove(podKey);
    }
}

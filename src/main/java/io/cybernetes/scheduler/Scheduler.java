package io.cybernetes.scheduler;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.PrometheusText;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Conflicts;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Keys;
import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Priorities;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * One scheduling loop: take the next pod from the queue, run the framework over the
 * cache's snapshot, and either assume the pod on the chosen node and bind it through
 * {@code pods/binding} on the binder (so the next pod's cycle overlaps the binding), or
 * report it unschedulable — condition {@code PodScheduled=False} (reason Unschedulable)
 * with the "0/N nodes are available" message, and a FailedScheduling event — and park
 * it until a change the plugins that rejected it say may help. When preemption found
 * room, the pod's {@code status.nominatedNodeName} names the node and pods of lower
 * priority nominated there lose that nomination; the victims are evicted beside the loop
 * (each marked {@code DisruptionTarget} and told by a Preempted event), and their
 * deletions bring the pod back to be placed there. Events are written beside the loop
 * too. The last decision per pod is kept to explain it.
 */
public final class Scheduler {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Scheduler.class);

    private static final String SCHEDULER_NAME = SchedulerManager.SCHEDULER_NAME;
    static final int QUEUED_REPORTS = 1000;
    static final int KEPT_PLACEMENTS = 1000;
    static final int KEPT_NODES_PER_PLACEMENT = 100;

    /**
     * What the scheduler has done: attempts, pods bound, attempts that found no node, bindings
     * refused, preemptions; time spent in scheduling cycles and in bindings; bindings under
     * way now and at most at once (binding keeps up when that stays small).
     */
    public record Stats(long attempts, long bound, long unschedulable, long bindFailures, long preemptions,
                        long cycleNanos, long bindNanos, int bindsInFlight, int maxBindsInFlight) {
    }

    private final ApiClient client;
    private final Framework framework;
    private final SchedulingQueue queue;
    private final SchedulerCache cache;
    private final EventRecorder events;
    private final Executor binder;
    private final Clock clock;
    /**
     * Writes the Scheduled events behind the bindings, as client-go's broadcaster does: at
     * most {@value #QUEUED_REPORTS} wait, more are dropped, so that reporting never holds up
     * binding.
     */
    private final ThreadPoolExecutor reports = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUED_REPORTS), r -> {
                Thread t = new Thread(r, "scheduler-events");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());
    /** Why pods wait: the whole last attempt of every pod that is unschedulable now. */
    private final Map<String, Framework.Decision> waiting = new ConcurrentHashMap<>();
    /** Where pods went: the last {@value #KEPT_PLACEMENTS} placements, each trimmed to its best nodes. */
    private final Map<String, Framework.Decision> placed = Collections.synchronizedMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Framework.Decision> eldest) {
            return size() > KEPT_PLACEMENTS;
        }
    });
    /** The pods whose preemption's evictions are under way: they do not preempt again meanwhile. */
    private final java.util.Set<String> preempting = ConcurrentHashMap.newKeySet();
    private final AtomicLong attempts = new AtomicLong();
    private final AtomicLong bound = new AtomicLong();
    private final AtomicLong unschedulable = new AtomicLong();
    private final AtomicLong bindFailures = new AtomicLong();
    private final AtomicLong preemptions = new AtomicLong();
    private final AtomicLong cycleNanos = new AtomicLong();
    private final PrometheusText.Counters attemptResults = new PrometheusText.Counters("result", "profile");
    /** kube-scheduler's buckets: exponential from 1 ms by two, fifteen of them. */
    private final PrometheusText.Histograms attemptDurations = new PrometheusText.Histograms(
            java.util.stream.IntStream.range(0, 15).mapToDouble(i -> 0.001 * Math.pow(2, i)).toArray(),
            "result", "profile");
    private final AtomicLong bindNanos = new AtomicLong();
    private final AtomicInteger bindsInFlight = new AtomicInteger();
    private final AtomicInteger maxBindsInFlight = new AtomicInteger();

    public Scheduler(ApiClient client, Framework framework, SchedulingQueue queue, SchedulerCache cache,
                     EventRecorder events, Executor binder, Clock clock) {
        this.client = client;
        this.framework = framework;
        this.queue = queue;
        this.cache = cache;
        this.events = events;
        this.binder = binder;
        this.clock = clock;
        framework.preemptionsRunning(pod -> preempting.contains(Keys.of(pod)));
    }

    public Stats stats() {
        return new Stats(attempts.get(), bound.get(), unschedulable.get(), bindFailures.get(), preemptions.get(),
                cycleNanos.get(), bindNanos.get(), bindsInFlight.get(), maxBindsInFlight.get());
    }

    /** Schedules the next pod, waiting up to the timeout for one; false when none came. */
    public boolean scheduleOne(long timeoutMillis) throws InterruptedException {
        SchedulingQueue.QueuedPod q = queue.pop(timeoutMillis);
        if (q == null) {
            return false;
        }
        boolean[] settled = {false};
        try {
            attempt(q, settled);
        } catch (RuntimeException e) {
            if (!settled[0]) {
                queue.retry(q); // a cycle that failed half way: the pod backs off and is tried again, not lost
            }
            throw e;
        }
        return true;
    }

    /** One scheduling cycle for the pod; {@code settled} becomes true once the queue has been told what became of it. */
    private void attempt(SchedulingQueue.QueuedPod q, boolean[] settled) {
        Pod pod = q.pod();
        long started = System.nanoTime();
        attempts.incrementAndGet();
        Framework.Decision d = framework.schedule(pod, cache.snapshot());
        if (d.scheduled()) {
            waiting.remove(q.key());
            placed.put(q.key(), d.trimmed(KEPT_NODES_PER_PLACEMENT));
        } else {
            waiting.put(q.key(), d);
        }
        if (!d.scheduled()) {
            String nominated = d.postFilter() == null ? null : d.postFilter().nominatedNode();
            unschedulable.incrementAndGet();
            if (nominated != null) {
                cache.nominate(pod, nominated);
            }
            queue.unschedulable(q, d.rejectedBy());
            settled[0] = true;
            if (d.preempting()) {
                preemptions.incrementAndGet();
                preempt(q.key(), pod, d.postFilter());
            }
            String why = d.message();
            reports.execute(() -> events.warning(pod, "FailedScheduling", why));
            markUnschedulable(pod, d.message(), nominated);
            attempted(started, "unschedulable");
            return;
        }
        CycleState state = d.state() != null ? d.state() : new CycleState();
        Status reserved = framework.reserve(state, pod, d.node());
        if (!reserved.isSuccess()) {
            queue.retry(q);
            settled[0] = true;
            events.warning(pod, "FailedScheduling", "Reserving node " + d.node() + " failed (" + reserved.plugin()
                    + "): " + String.join(", ", reserved.reasons()));
            attempted(started, "error");
            return;
        }
        cache.assume(pod, d.node());
        maxBindsInFlight.accumulateAndGet(bindsInFlight.incrementAndGet(), Math::max);
        attempted(started, "scheduled");
        try {
            binder.execute(() -> bind(q, d.node(), state));
        } catch (RuntimeException e) {
            // no binder took it (the pool is stopping): the assumption and the reservation are undone
            bindsInFlight.decrementAndGet();
            cache.forget(pod);
            framework.unreserve(state, pod, d.node());
            throw e;
        }
        settled[0] = true;
    }

    /**
     * Starts the preemption the PostFilter found: the node's nomination taken from lesser pods
     * at once, the victims' evictions — API calls — beside the loop (Kubernetes' async
     * preemption), which goes on with the next pod; the preemptor waits, nominated, for the
     * deletions to bring it back, and preempts no more until they are done.
     */
    private void preempt(String key, Pod pod, Plugin.PostFilterResult found) {
        List<Pod> lesser = takeNomination(pod, found.nominatedNode());
        preempting.add(key);
        try {
            binder.execute(() -> {
                try {
                    evict(pod, found, lesser);
                } finally {
                    preempting.remove(key);
                }
            });
        } catch (RuntimeException e) {
            preempting.remove(key);
            throw e;
        }
    }

    /** One attempt done, with its result as kube-scheduler's metrics name it. */
    private void attempted(long startedNanos, String result) {
        long took = System.nanoTime() - startedNanos;
        cycleNanos.addAndGet(took);
        attemptDurations.observe(took / 1e9, result, SchedulerManager.SCHEDULER_NAME);
        attemptResults.inc(result, SchedulerManager.SCHEDULER_NAME);
    }

    /** kube-scheduler's metrics: attempts by result and how long each took. */
    public void collect(PrometheusText out) {
        attemptResults.writeTo(out, "scheduler_schedule_attempts_total", "[STABLE] Number of attempts to schedule"
                + " pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an"
                + " internal scheduler problem.");
        attemptDurations.writeTo(out, "scheduler_scheduling_attempt_duration_seconds", "[STABLE] Scheduling attempt"
                + " latency in seconds (scheduling algorithm + binding)");
    }

    private void bind(SchedulingQueue.QueuedPod q, String node, CycleState state) {
        long started = System.nanoTime();
        try {
            bindNow(q, node, state);
        } finally {
            bindsInFlight.decrementAndGet();
            bindNanos.addAndGet(System.nanoTime() - started);
        }
    }

    /**
     * Binds through the profile's Bind plugin, or else through {@code pods/binding}. On
     * failure the assumed pod is forgotten, the reservation undone and the pod tried again
     * after its backoff (unless it is gone).
     */
    private void bindNow(SchedulingQueue.QueuedPod q, String node, CycleState state) {
        Pod pod = q.pod();
        int code = 0;
        String failure = null;
        try {
            Optional<Status> byPlugin = framework.bind(state, pod, node);
            if (byPlugin.isEmpty()) {
                client.bind(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), node);
            } else if (!byPlugin.get().isSuccess()) {
                failure = byPlugin.get().plugin() + ": " + String.join(", ", byPlugin.get().reasons());
            }
        } catch (ApiException e) {
            code = e.code();
            failure = e.getMessage();
        } catch (RuntimeException e) {
            failure = e.toString(); // a Bind plugin or the client failing otherwise: the pod is tried again
        }
        if (failure == null) {
            bound.incrementAndGet();
            cache.finishBinding(pod);
            queue.done(q);
            String message = "Successfully assigned " + Keys.of(pod) + " to " + node;
            reports.execute(() -> events.normal(pod, "Scheduled", message));
            return;
        }
        cache.forget(pod);
        framework.unreserve(state, pod, node);
        bindFailures.incrementAndGet();
        if (code == 404) {
            queue.done(q); // the pod is gone
            return;
        }
        queue.retry(q);
        events.warning(pod, "FailedScheduling", "Binding rejected: " + failure);
    }

    /**
     * Takes the node's nomination from the pods of lower priority nominated there, which will
     * no longer fit, in the cache at once (the next cycles see it); returns them, for their
     * status to say so.
     */
    private List<Pod> takeNomination(Pod pod, String node) {
        int priority = Priorities.of(pod);
        List<Pod> lesser = new ArrayList<>();
        for (Pod other : cache.nominatedTo(node)) {
            if (Priorities.of(other) < priority && !Keys.of(other).equals(Keys.of(pod))) {
                cache.nominate(other, null);
                lesser.add(other);
            }
        }
        return lesser;
    }

    /**
     * Evicts the victims for the pod — each first marked {@code DisruptionTarget}
     * (PreemptionByScheduler) and told why by an event, then deleted with its own grace
     * period — and clears the nomination of the lesser pods that lost theirs. A failure is
     * logged: the preemptor comes back (its backoff, or the five-minute flush) and tries again.
     */
    private void evict(Pod pod, Plugin.PostFilterResult result, List<Pod> lesser) {
        String node = result.nominatedNode();
        try {
            // the lesser pods' statuses first, so that no update of theirs gives the cache the nomination back
            for (Pod other : lesser) {
                updatePodStatus(other, p -> {
                    p.getStatus().setNominatedNodeName(null);
                    return true;
                });
            }
            for (Pod victim : result.victims()) {
                events.normal(victim, "Preempted", "Preempted by pod " + pod.getMetadata().getUid() + " on node "
                        + node);
                updatePodStatus(victim, p -> setCondition(p.getStatus(), new PodConditionBuilder()
                        .withType("DisruptionTarget").withStatus("True").withReason("PreemptionByScheduler")
                        .withMessage(SCHEDULER_NAME + ": preempting to accommodate a higher priority pod")
                        .withLastTransitionTime(now()).build()));
                try {
                    client.delete(Pod.class, victim.getMetadata().getNamespace(), victim.getMetadata().getName(), null);
                } catch (ApiException e) {
                    if (e.code() != 404) {
                        throw e;
                    }
                }
            }
        } catch (RuntimeException e) {
            log.warn("scheduler: preempting for {} on {} failed: {}", Keys.of(pod), node, e.toString());
        }
    }

    /**
     * Writes {@code PodScheduled=False} with the reason, and the nominated node (null: as it
     * is, "": none), unless the pod already says so.
     */
    private void markUnschedulable(Pod pod, String message, String nominated) {
        updatePodStatus(pod, p -> {
            if (p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty()) {
                return false; // placed meanwhile
            }
            PodStatus status = p.getStatus();
            boolean changed = setCondition(status, new PodConditionBuilder().withType("PodScheduled")
                    .withStatus("False").withReason("Unschedulable").withMessage(message)
                    .withLastTransitionTime(now()).build());
            String want = nominated == null ? status.getNominatedNodeName() : nominated.isEmpty() ? null : nominated;
            if (!Objects.equals(want, status.getNominatedNodeName())) {
                status.setNominatedNodeName(want);
                changed = true;
            }
            return changed;
        });
    }

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** Puts the condition in place of one of its type; false when the same one (status, reason, message) is there. */
    private static boolean setCondition(PodStatus status, PodCondition condition) {
        List<PodCondition> conditions = new ArrayList<>(status.getConditions() == null ? List.of()
                : status.getConditions());
        boolean same = conditions.stream().anyMatch(c -> condition.getType().equals(c.getType())
                && condition.getStatus().equals(c.getStatus()) && condition.getReason().equals(c.getReason())
                && condition.getMessage().equals(c.getMessage()));
        if (same) {
            return false;
        }
        conditions.removeIf(c -> condition.getType().equals(c.getType()));
        conditions.add(condition);
        status.setConditions(conditions);
        return true;
    }

    /**
     * Changes the pod's status as {@code change} says (which returns whether it changed
     * anything; the status is never null), on the pod as given and, if that was stale, as the server has it now. A pod
     * gone is let be.
     */
    private void updatePodStatus(Pod pod, Predicate<Pod> change) {
        Pod[] current = {pod};
        try {
            Conflicts.retry(() -> {
                if (current[0] == null) {
                    return null; // gone
                }
                Pod copy = Json.convert(Json.toTree(current[0]), Pod.class);
                if (copy.getStatus() == null) {
                    copy.setStatus(new PodStatus());
                }
                if (!change.test(copy)) {
                    return null;
                }
                try {
                    return client.updateStatus(copy);
                } catch (ApiException e) {
                    if (e.code() == 409) {
                        current[0] = client.get(Pod.class, pod.getMetadata().getNamespace(),
                                pod.getMetadata().getName()).orElse(null);
                    }
                    throw e;
                }
            });
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                throw e;
            }
        }
    }

    /** The last decision about the pod (namespace/name), to explain where it went or why nowhere. */
    public Optional<Framework.Decision> lastDecision(String podKey) {
        Framework.Decision d = waiting.get(podKey);
        return Optional.ofNullable(d != null ? d : placed.get(podKey));
    }

    /** Stops writing events (the scheduler's term is over). */
    public void close() {
        reports.shutdownNow();
    }

    /** The pod is gone: its decision is no longer asked for. */
    public void forgetDecision(String podKey) {
        waiting.remove(podKey);
        placed.remove(podKey);
    }
}

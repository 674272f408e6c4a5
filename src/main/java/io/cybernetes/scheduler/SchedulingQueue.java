package io.cybernetes.scheduler;

import io.cybernetes.client.Keys;
import io.cybernetes.scheduler.framework.ClusterEvent;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The scheduler's queue of pending pods, as kube-scheduler's: activeQ, ordered by the
 * profile's QueueSort plugin (PrioritySort: priority, then when the pod came); backoffQ, where a pod that failed waits
 * 1 s, 2 s, 4 s ... at most 10 s before it may be tried again; and the unschedulable pods,
 * which wait for a change of the cluster that the plugins which rejected them say may
 * help (queueing hints: a node added that is big enough, a pod of theirs deleted) — or at
 * most five minutes — before they go back. A pod is in one of the three at a time.
 */
public final class SchedulingQueue {

    static final Duration INITIAL_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    static final Duration MAX_UNSCHEDULABLE = Duration.ofMinutes(5);

    /**
     * A pod in the queue: how often it was tried, since when it waits, until when it backs
     * off, and which plugins rejected it last (empty: none, or it was not tried yet).
     */
    public record QueuedPod(Pod pod, int attempts, Instant queuedAt, Instant backoffUntil, Set<String> rejectedBy)
            implements Plugin.QueuedPodInfo {

        public QueuedPod {
            rejectedBy = Set.copyOf(rejectedBy);
        }

        QueuedPod with(Pod changed) {
            return new QueuedPod(changed, attempts, queuedAt, backoffUntil, rejectedBy);
        }

        public String key() {
            return Keys.of(pod);
        }

        /** One queue entry is itself only: the queues find it among thousands without comparing pods. */
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    /** Whether an event may let a pod the named plugins rejected fit (the framework's queueing hints). */
    @FunctionalInterface
    public interface Hints {
        Hints ALWAYS = (pod, rejectedBy, event, before, after) -> true;

        boolean mayHelp(Pod pod, Set<String> rejectedBy, ClusterEvent event, Object before, Object after);

        /** Whether any plugin registered the event at all: one nobody did is not even recorded. */
        default boolean anyInterestIn(ClusterEvent event) {
            return true;
        }
    }

    /** A change of the cluster while pods were being tried; a null event stands for any change. */
    private record Change(long seq, ClusterEvent event, Object before, Object after) {
    }

    private final Clock clock;
    private final Hints hints;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final PriorityQueue<QueuedPod> active;
    private final PriorityQueue<QueuedPod> backoff = new PriorityQueue<>(Comparator.comparing(QueuedPod::backoffUntil));
    private final Map<String, QueuedPod> unschedulable = new HashMap<>();
    private final Map<String, QueuedPod> byKey = new HashMap<>();
    /**
     * The changes of the cluster while pods were being tried (Kubernetes' in-flight events),
     * and for each pod being tried the last change before it was popped: a pod that comes
     * back unschedulable is asked about the changes made meanwhile, so that one which could
     * make it fit is not lost on it. Changes no pod being tried can see any more are dropped.
     */
    private final ArrayDeque<Change> inFlight = new ArrayDeque<>();
    private final Map<String, Long> poppedAfter = new HashMap<>();
    private long changes;
    private boolean closed;

    public SchedulingQueue(Clock clock) {
        this(clock, new PrioritySort(), Hints.ALWAYS);
    }

    public SchedulingQueue(Clock clock, Plugin.QueueSort sort, Hints hints) {
        this.clock = clock;
        this.hints = hints;
        this.active = new PriorityQueue<>(sort::compare);
    }

    /** The backoff after the n-th failed attempt: 1 s doubling, at most 10 s. */
    static Duration backoffAfter(int attempts) {
        Duration d = INITIAL_BACKOFF;
        for (int i = 1; i < attempts && d.compareTo(MAX_BACKOFF) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }

    /** A new pending pod (or one seen again): into activeQ unless it is already queued. */
    public void add(Pod pod) {
        lock.lock();
        try {
            String key = Keys.of(pod);
            QueuedPod known = byKey.get(key);
            if (known != null) {
                replace(known, known.with(pod));
                return;
            }
            QueuedPod q = new QueuedPod(pod, 0, clock.instant(), clock.instant(), Set.of());
            byKey.put(key, q);
            active.add(q);
            ready.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A pod that changed: an unschedulable one may fit now, so it goes back to be tried —
     * unless only its status changed (as when the scheduler itself wrote why it does not fit).
     */
    public void update(Pod pod) {
        lock.lock();
        try {
            QueuedPod known = byKey.get(Keys.of(pod));
            if (known == null) {
                add(pod);
                return;
            }
            QueuedPod q = known.with(pod);
            if (unschedulable.containsKey(q.key()) && specChanged(known.pod(), pod)) {
                unschedulable.remove(q.key());
                byKey.put(q.key(), q);
                requeue(q);
            } else {
                replace(known, q);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A pod deleted or bound by someone else: out of the queue. */
    public void delete(Pod pod) {
        lock.lock();
        try {
            QueuedPod q = byKey.remove(Keys.of(pod));
            if (q != null) {
                active.remove(q);
                backoff.remove(q);
                unschedulable.remove(q.key());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next pod to try (moving pods whose backoff ended to activeQ first), waiting up to
     * the timeout; null when none came or the queue is closed. The pod stays known to the
     * queue until {@link #done} or {@link #unschedulable}.
     */
    public QueuedPod pop(long timeoutMillis) throws InterruptedException {
        lock.lock();
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (!closed) {
                flushBackoff();
                QueuedPod next = active.poll();
                if (next != null) {
                    poppedAfter.put(next.key(), changes);
                    return next;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                QueuedPod soonest = backoff.peek();
                long wait = soonest == null ? left : Math.min(left, Math.max(1_000_000L,
                        Duration.between(clock.instant(), soonest.backoffUntil()).toNanos()));
                ready.awaitNanos(wait);
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** The pod was scheduled (or is gone): the queue forgets it. */
    public void done(QueuedPod q) {
        lock.lock();
        try {
            byKey.remove(q.key(), q);
            poppedAfter.remove(q.key());
            forgetChangesSeenByAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The attempt found no node, as the named plugins said: the pod waits, backing off, for
     * a change they say may help — or goes to back off at once if such a change came while
     * it was tried.
     */
    public void unschedulable(QueuedPod q, Set<String> rejectedBy) {
        failed(q, true, rejectedBy);
    }

    /** The attempt failed for another reason (an error, a binding refused): retry after the backoff. */
    public void retry(QueuedPod q) {
        failed(q, false, Set.of());
    }

    /** Counts the failed attempt and parks the pod, or backs it off; a pod changed or deleted meanwhile is not parked. */
    private void failed(QueuedPod q, boolean untilTheClusterChanges, Set<String> rejectedBy) {
        lock.lock();
        try {
            int attempts = q.attempts() + 1;
            Long after = poppedAfter.remove(q.key());
            if (untilTheClusterChanges && after != null && changedMeanwhile(q.pod(), rejectedBy, after)) {
                // the cluster changed while it was tried: back off and try again rather than wait for another change
                untilTheClusterChanges = false;
            }
            forgetChangesSeenByAll();
            QueuedPod current = byKey.get(q.key());
            if (current != q) {
                changedWhileTried(current, attempts, rejectedBy);
                return;
            }
            Instant backoffUntil = clock.instant().plus(backoffAfter(attempts));
            if (untilTheClusterChanges) {
                QueuedPod waiting = new QueuedPod(q.pod(), attempts, clock.instant(), backoffUntil, rejectedBy);
                byKey.put(q.key(), waiting);
                unschedulable.put(q.key(), waiting);
            } else {
                QueuedPod again = new QueuedPod(q.pod(), attempts, q.queuedAt(), backoffUntil, rejectedBy);
                byKey.put(q.key(), again);
                backoff.add(again);
                ready.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether a change since the pod was popped may let it fit, as the plugins that rejected it say. */
    private boolean changedMeanwhile(Pod pod, Set<String> rejectedBy, long after) {
        for (Change c : inFlight) {
            if (c.seq() > after && (c.event() == null
                    || hints.mayHelp(pod, rejectedBy, c.event(), c.before(), c.after()))) {
                return true;
            }
        }
        return false;
    }

    /** Drops the changes made before every pod being tried now was popped. */
    private void forgetChangesSeenByAll() {
        long oldest = poppedAfter.values().stream().mapToLong(Long::longValue).min().orElse(changes);
        while (!inFlight.isEmpty() && inFlight.peekFirst().seq() <= oldest) {
            inFlight.pollFirst();
        }
    }

    /**
     * Something changed that may let unschedulable pods fit, of no kind the hints know (or
     * in tests): they all go back, to backoffQ if their backoff has not ended, else to
     * activeQ.
     */
    public void clusterChanged() {
        clusterChanged(null, null, null);
    }

    /**
     * The cluster changed (the object before and after; null when added / deleted): the
     * unschedulable pods whose rejecting plugins say it may help go back, to backoffQ if
     * their backoff has not ended, else to activeQ; the rest keep waiting.
     */
    public void clusterChanged(ClusterEvent event, Object before, Object after) {
        if (event != null && !hints.anyInterestIn(event)) {
            return; // as Kubernetes: no plugin registered it, so it cannot help any pod
        }
        lock.lock();
        try {
            changes++;
            if (!poppedAfter.isEmpty()) {
                inFlight.addLast(new Change(changes, event, before, after));
            }
            unschedulable.values().removeIf(q -> {
                if (event == null || hints.mayHelp(q.pod(), q.rejectedBy(), event, before, after)) {
                    requeue(q);
                    return true;
                }
                return false;
            });
        } finally {
            lock.unlock();
        }
    }

    /** Moves pods unschedulable for too long back to be tried (called periodically). */
    public void flushUnschedulable() {
        lock.lock();
        try {
            Instant limit = clock.instant().minus(MAX_UNSCHEDULABLE);
            unschedulable.values().removeIf(q -> {
                if (q.queuedAt().isBefore(limit)) {
                    requeue(q);
                    return true;
                }
                return false;
            });
        } finally {
            lock.unlock();
        }
    }

    public void close() {
        lock.lock();
        try {
            closed = true;
            ready.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Sizes of activeQ, backoffQ and the unschedulable pods. */
    public record Depths(int active, int backoff, int unschedulable) {
    }

    public Depths depths() {
        lock.lock();
        try {
            return new Depths(active.size(), backoff.size(), unschedulable.size());
        } finally {
            lock.unlock();
        }
    }

    /** A pod deleted while it was tried is gone; one that changed is tried again as it is now. */
    private void changedWhileTried(QueuedPod current, int attempts, Set<String> rejectedBy) {
        if (current == null) {
            return;
        }
        QueuedPod again = new QueuedPod(current.pod(), attempts, current.queuedAt(), clock.instant(), rejectedBy);
        byKey.put(again.key(), again);
        active.add(again);
        ready.signalAll();
    }

    private void requeue(QueuedPod q) {
        if (q.backoffUntil().isAfter(clock.instant())) {
            backoff.add(q);
        } else {
            active.add(q);
        }
        ready.signalAll();
    }

    private void replace(QueuedPod old, QueuedPod q) {
        byKey.put(q.key(), q);
        if (active.remove(old)) {
            active.add(q);
        } else if (backoff.remove(old)) {
            backoff.add(q);
        } else if (unschedulable.containsKey(q.key())) {
            unschedulable.put(q.key(), q);
        }
    }

    /** Whether what the pod asks for changed, not just its status or revision. */
    static boolean specChanged(Pod before, Pod after) {
        return !Objects.equals(before.getSpec(), after.getSpec())
                || !Objects.equals(before.getMetadata().getLabels(), after.getMetadata().getLabels())
                || !Objects.equals(before.getMetadata().getAnnotations(), after.getMetadata().getAnnotations());
    }

    private void flushBackoff() {
        Instant now = clock.instant();
        while (!backoff.isEmpty() && !backoff.peek().backoffUntil().isAfter(now)) {
            active.add(backoff.poll());
        }
    }
}

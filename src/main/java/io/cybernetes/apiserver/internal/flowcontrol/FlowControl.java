package io.cybernetes.apiserver.internal.flowcontrol;

import io.cybernetes.api.Json;
import io.cybernetes.api.PrometheusText;
import io.cybernetes.auth.RequestAttributes;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * API Priority and Fairness: requests are classified by the first FlowSchema that matches (lowest
 * matchingPrecedence, then name) into its priority level and a flow (the schema and, by its
 * distinguisher, the user or the namespace). Limited levels share the server's seats by their
 * nominalConcurrencyShares; a level whose seats are taken borrows what other levels may lend (their
 * lendablePercent of what they are not using, within its borrowingLimitPercent). A request that finds
 * no seat waits in one of its level's queues, chosen by shuffle sharding (the shortest of the handSize
 * queues its flow is dealt), the queues served in turn so that one flow cannot crowd out the others;
 * a full queue, a level that rejects instead of queuing, or a wait longer than the limit is a 429.
 */
public final class FlowControl {

    /** Where a request belongs: its schema, its level, its flow. */
    public record Classification(String flowSchema, String flowSchemaUid, String priorityLevel,
                                 String priorityLevelUid, String flow) {
    }

    /** A request holding seats at a level, to be given back when it ends. */
    public record Ticket(Level level, int seats, boolean borrowed, String flowSchema, int queue) {
        Ticket(Level level, int seats, boolean borrowed, String flowSchema) {
            this(level, seats, borrowed, flowSchema, -1);
        }
    }

    private static final long DEFAULT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final ReentrantLock lock = new ReentrantLock();
    private final int serverSeats;
    private final long waitNanos;
    /** The most requests waiting at once, over every level: each holds a container thread while it waits. */
    private final int maxWaiting;
    private int waiting;
    /** Seats in use at every limited level together; never more than the server's. */
    private int totalInUse;
    /** A FlowSchema as the classifier uses it: compiled rules, its level, how flows are told apart. */
    private record Schema(String name, String uid, String level, String distinguisher, List<FlowSchemaRules> rules) {
    }

    private volatile List<Schema> schemas = List.of();
    private final Map<String, Level> levels = new LinkedHashMap<>();
    private int borrowedSeats;
    private final PrometheusText.Counters dispatched = new PrometheusText.Counters("flow_schema", "priority_level");
    private final PrometheusText.Counters rejected = new PrometheusText.Counters("flow_schema", "priority_level",
            "reason");

    /** With the most requests that may wait at once (they hold threads while they do). */
    public FlowControl(int serverSeats, int maxWaiting) {
        this(serverSeats, DEFAULT_WAIT_NANOS, maxWaiting);
    }

    /** With the longest a request may wait in a queue. */
    public FlowControl(int serverSeats, long waitNanos) {
        this(serverSeats, waitNanos, Integer.MAX_VALUE);
    }

    public FlowControl(int serverSeats, long waitNanos, int maxWaiting) {
        this.serverSeats = serverSeats;
        this.waitNanos = waitNanos;
        this.maxWaiting = maxWaiting;
    }

    // ---- configuration

    /** Takes the FlowSchemas and PriorityLevelConfigurations as they are now. */
    public void configure(List<ObjectNode> flowSchemas, List<ObjectNode> priorityLevels) {
        List<ObjectNode> sorted = new ArrayList<>(flowSchemas);
        sorted.sort(Comparator.<ObjectNode>comparingInt(s -> s.path("spec").path("matchingPrecedence").asInt(1000))
                .thenComparing(s -> Json.text(s, "metadata.name")));
        lock.lock();
        try {
            Map<String, ObjectNode> byName = new HashMap<>();
            priorityLevels.forEach(p -> byName.put(Json.text(p, "metadata.name"), p));
            double shares = 0;
            for (ObjectNode p : priorityLevels) {
                if ("Limited".equals(p.path("spec").path("type").asString(""))) {
                    shares += p.path("spec").path("limited").path("nominalConcurrencyShares").asInt(30);
                }
            }
            levels.keySet().removeIf(name -> !byName.containsKey(name) && levels.get(name).idle());
            for (ObjectNode p : priorityLevels) {
                String name = Json.text(p, "metadata.name");
                Level level = levels.computeIfAbsent(name, Level::new);
                // requests waiting at a level that no longer queues are served (exempt) or refused (reject)
                for (Waiter w : level.configure(p, serverSeats, shares)) {
                    waiting--;
                    if (level.exempt) {
                        w.ticket = new Ticket(level, 0, false, w.flowSchema);
                        dispatched.inc(w.flowSchema, level.name);
                    } else {
                        w.rejected = true;
                        rejected.inc(w.flowSchema, level.name, "concurrency-limit");
                    }
                    w.granted.signal();
                }
            }
            List<Schema> compiled = new ArrayList<>();
            for (ObjectNode fs : sorted) {
                JsonNode spec = fs.path("spec");
                List<FlowSchemaRules> rules = new ArrayList<>();
                spec.path("rules").forEach(r -> rules.add(new FlowSchemaRules(r)));
                String uid = Json.text(fs, "metadata.uid");
                compiled.add(new Schema(Json.text(fs, "metadata.name"), uid == null ? "" : uid,
                        spec.path("priorityLevelConfiguration").path("name").asString(""),
                        spec.path("distinguisherMethod").path("type").asString(""), List.copyOf(rules)));
            }
            schemas = List.copyOf(compiled);
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    // ---- classification

    /** The first FlowSchema (by precedence) whose rules match, and the flow within it; null if none matches. */
    public Classification classify(RequestAttributes a) {
        for (Schema schema : schemas) {
            for (FlowSchemaRules rule : schema.rules()) {
                if (!rule.matches(a)) {
                    continue;
                }
                Level level;
                lock.lock();
                try {
                    level = levels.get(schema.level());
                } finally {
                    lock.unlock();
                }
                if (level == null) {
                    break; // a dangling schema: Kubernetes skips it
                }
                String distinguisher = switch (schema.distinguisher()) {
                    case "ByUser" -> a.user() == null ? "" : a.user().name();
                    case "ByNamespace" -> a.namespace();
                    default -> "";
                };
                return new Classification(schema.name(), schema.uid(), schema.level(), level.uid,
                        schema.name() + "/" + distinguisher);
            }
        }
        return null;
    }

    // ---- admission of requests to seats

    /** Whether the level does not limit at all. */
    public boolean exempt(Classification c) {
        lock.lock();
        try {
            Level level = levels.get(c.priorityLevel());
            return level == null || level.exempt;
        } finally {
            lock.unlock();
        }
    }

    /** The most seats one request may take at the level. */
    public int maxSeats(Classification c) {
        lock.lock();
        try {
            Level level = levels.get(c.priorityLevel());
            return level == null ? 1 : Math.max(1, Math.min(10, level.nominal));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Seats for the request now, or once its turn comes; null when it is rejected (the reason counted):
     * a full queue, a level that does not queue, or a wait past the limit.
     */
    public Ticket acquire(Classification c, int seats) throws InterruptedException {
        lock.lock();
        try {
            Level level = levels.get(c.priorityLevel());
            if (level == null || level.exempt) {
                dispatched.inc(c.flowSchema(), c.priorityLevel());
                return new Ticket(level, 0, false, c.flowSchema());
            }
            int want = Math.max(1, Math.min(seats, Math.max(1, level.nominal)));
            if (level.queuedCount == 0) {
                Ticket t = tryTake(level, want, c.flowSchema());
                if (t != null && level.queues.length > 0) {
                    // counted against the flow's queue, as if it had waited there
                    int q = level.shuffleShard(c.flow());
                    level.executing[q] += t.seats();
                    t = new Ticket(t.level(), t.seats(), t.borrowed(), t.flowSchema(), q);
                }
                if (t != null) {
                    return t;
                }
            }
            if (level.queues.length == 0) {
                rejected.inc(c.flowSchema(), c.priorityLevel(), "concurrency-limit");
                return null;
            }
            int index = level.shuffleShard(c.flow());
            if (level.queues[index].size() >= level.queueLengthLimit || waiting >= maxWaiting) {
                rejected.inc(c.flowSchema(), c.priorityLevel(), "queue-full");
                return null;
            }
            Waiter w = new Waiter(lock.newCondition(), want, c.flowSchema(), c.flow(), System.currentTimeMillis());
            w.queue = index;
            level.queues[index].addLast(w);
            level.queuedCount++;
            waiting++;
            long left = waitNanos;
            try {
                while (w.ticket == null && !w.rejected && left > 0) {
                    left = w.granted.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                if (w.ticket != null) {
                    release(w.ticket);
                } else if (!w.rejected) {
                    leave(level, w);
                }
                throw e;
            }
            if (w.ticket != null) {
                return w.ticket;
            }
            if (!w.rejected) {
                leave(level, w);
                rejected.inc(c.flowSchema(), c.priorityLevel(), "time-out");
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** A waiter gives up its place; those behind it may be served now. */
    private void leave(Level level, Waiter w) {
        if (level.queues.length > w.queue && level.queues[w.queue].remove(w)) {
            level.queuedCount--;
            waiting--;
        }
        dispatch();
    }

    public void release(Ticket t) {
        if (t == null || t.level() == null || t.seats() == 0) {
            return;
        }
        lock.lock();
        try {
            t.level().inUse -= t.seats();
            totalInUse -= t.seats();
            if (t.queue() >= 0 && t.queue() < t.level().executing.length) {
                // (a ticket from before its level's queues changed counts against whichever is now there)
                t.level().executing[t.queue()] = Math.max(0, t.level().executing[t.queue()] - t.seats());
            }
            if (t.borrowed()) {
                t.level().borrowed -= t.seats();
                borrowedSeats -= t.seats();
            }
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    /** Seats at the level from its own share, else borrowed from what the others may lend now. */
    private Ticket tryTake(Level level, int seats, String flowSchema) {
        if (totalInUse + seats > serverSeats) {
            return null; // what was lent is in use: no level runs past the server's seats
        }
        if (level.inUse - level.borrowed + seats <= level.nominal) {
            level.inUse += seats;
            totalInUse += seats;
            dispatched.inc(flowSchema, level.name);
            return new Ticket(level, seats, false, flowSchema);
        }
        if (level.borrowed + seats > level.borrowingLimit) {
            return null;
        }
        int lendable = 0;
        for (Level other : levels.values()) {
            if (other != level && !other.exempt) {
                lendable += Math.max(0, Math.min(other.lendable, other.nominal - (other.inUse - other.borrowed)));
            }
        }
        if (lendable - borrowedSeats < seats) {
            return null;
        }
        level.inUse += seats;
        totalInUse += seats;
        level.borrowed += seats;
        borrowedSeats += seats;
        dispatched.inc(flowSchema, level.name);
        return new Ticket(level, seats, true, flowSchema);
    }

    /**
     * Gives free seats to waiting requests. Of a level's queues the one whose requests hold the fewest seats
     * now goes first (turns break ties), so a flow that has a great deal in service waits while one that has
     * little is served: the gist of Kubernetes' fair queuing, which orders queues by the work they have had.
     */
    private void dispatch() {
        for (Level level : levels.values()) {
            while (level.queuedCount > 0) {
                int index = -1;
                int n = level.queues.length;
                for (int i = 0; i < n; i++) {
                    int q = (level.next + i) % n;
                    if (!level.queues[q].isEmpty() && (index < 0 || level.executing[q] < level.executing[index])) {
                        index = q;
                    }
                }
                if (index < 0) {
                    break;
                }
                Waiter head = level.queues[index].peekFirst();
                Ticket t = tryTake(level, head.seats, head.flowSchema);
                if (t == null) {
                    break;
                }
                t = new Ticket(t.level(), t.seats(), t.borrowed(), t.flowSchema(), index);
                level.executing[index] += t.seats();
                level.queues[index].pollFirst();
                level.queuedCount--;
                waiting--;
                level.next = (index + 1) % n;
                head.ticket = t;
                head.granted.signal();
            }
        }
    }

    // ---- observation

    /** The apiserver_flowcontrol_* families. */
    public void collect(PrometheusText out) {
        lock.lock();
        try {
            out.family("apiserver_flowcontrol_nominal_limit_seats", "gauge", "Nominal number of execution seats"
                    + " configured for each priority level");
            levels.values().forEach(l -> out.sample("apiserver_flowcontrol_nominal_limit_seats", l.nominal,
                    "priority_level", l.name));
            out.family("apiserver_flowcontrol_current_executing_seats", "gauge", "Concurrency (number of seats)"
                    + " occupied by the currently executing requests");
            levels.values().forEach(l -> out.sample("apiserver_flowcontrol_current_executing_seats", l.inUse,
                    "priority_level", l.name));
            out.family("apiserver_flowcontrol_current_inqueue_requests", "gauge", "Number of requests currently"
                    + " pending in queues");
            levels.values().forEach(l -> out.sample("apiserver_flowcontrol_current_inqueue_requests", l.queuedCount,
                    "priority_level", l.name));
            out.family("apiserver_flowcontrol_current_borrowed_seats", "gauge", "Seats a priority level has borrowed"
                    + " from others");
            levels.values().forEach(l -> out.sample("apiserver_flowcontrol_current_borrowed_seats", l.borrowed,
                    "priority_level", l.name));
        } finally {
            lock.unlock();
        }
        dispatched.writeTo(out, "apiserver_flowcontrol_dispatched_requests_total", "Number of requests executed by"
                + " API Priority and Fairness subsystem");
        rejected.writeTo(out, "apiserver_flowcontrol_rejected_requests_total", "Number of requests rejected by API"
                + " Priority and Fairness subsystem");
    }

    /** The table of {@code /debug/api_priority_and_fairness/dump_priority_levels}. */
    public String dumpPriorityLevels() {
        StringBuilder sb = new StringBuilder("PriorityLevelName, ActiveQueues, IsIdle, WaitingRequests, ExecutingSeats,"
                + " NominalSeats, LendableSeats, BorrowedSeats\n");
        lock.lock();
        try {
            for (Level l : levels.values()) {
                int active = 0;
                for (ArrayDeque<Waiter> q : l.queues) {
                    active += q.isEmpty() ? 0 : 1;
                }
                sb.append(String.join(", ", l.name, Integer.toString(active), Boolean.toString(l.idle()),
                        Integer.toString(l.queuedCount), Integer.toString(l.inUse),
                        l.exempt ? "exempt" : Integer.toString(l.nominal), Integer.toString(l.lendable),
                        Integer.toString(l.borrowed))).append('\n');
            }
        } finally {
            lock.unlock();
        }
        return sb.toString();
    }

    /** The table of {@code /debug/api_priority_and_fairness/dump_queues}: the queues that hold requests. */
    public String dumpQueues() {
        StringBuilder sb = new StringBuilder("PriorityLevelName, Index, PendingRequests, PendingSeats\n");
        lock.lock();
        try {
            for (Level l : levels.values()) {
                for (int i = 0; i < l.queues.length; i++) {
                    if (!l.queues[i].isEmpty()) {
                        sb.append(l.name).append(", ").append(i).append(", ").append(l.queues[i].size()).append(", ")
                                .append(l.queues[i].stream().mapToInt(w -> w.seats).sum()).append('\n');
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        return sb.toString();
    }

    /** The table of {@code /debug/api_priority_and_fairness/dump_requests}: the requests waiting. */
    public String dumpRequests() {
        StringBuilder sb = new StringBuilder("PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue,"
                + " FlowDistinguisher, ArriveTime, InitialSeats\n");
        lock.lock();
        try {
            for (Level l : levels.values()) {
                for (int i = 0; i < l.queues.length; i++) {
                    int j = 0;
                    for (Waiter w : l.queues[i]) {
                        sb.append(String.join(", ", l.name, w.flowSchema, Integer.toString(i), Integer.toString(j++),
                                w.flow.substring(w.flow.indexOf('/') + 1),
                                java.time.Instant.ofEpochMilli(w.arrived).toString(), Integer.toString(w.seats)))
                                .append('\n');
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        return sb.toString();
    }

    /** One waiting request. */
    private static final class Waiter {
        final Condition granted;
        final int seats;
        final String flowSchema;
        final String flow;
        final long arrived;
        /** The queue it waits in (it moves when its level's queues change). */
        int queue;
        Ticket ticket;
        /** Refused while waiting: its level stopped queuing. */
        boolean rejected;

        Waiter(Condition granted, int seats, String flowSchema, String flow, long arrived) {
            this.granted = granted;
            this.seats = seats;
            this.flowSchema = flowSchema;
            this.flow = flow;
            this.arrived = arrived;
        }
    }

    /** One priority level's configuration and state. */
    static final class Level {
        final String name;
        String uid = "";
        boolean exempt;
        int nominal;
        int lendable;
        int borrowingLimit;
        int handSize = 1;
        int queueLengthLimit;
        @SuppressWarnings("unchecked")
        ArrayDeque<Waiter>[] queues = new ArrayDeque[0];
        /** Seats held by requests each queue dispatched, while they run. */
        int[] executing = new int[0];
        int queuedCount;
        int inUse;
        int borrowed;
        int next;

        Level(String name) {
            this.name = name;
        }

        /** Takes the level's configuration; returns the waiting requests it can no longer queue. */
        @SuppressWarnings("unchecked")
        List<Waiter> configure(ObjectNode p, int serverSeats, double shares) {
            uid = Json.text(p, "metadata.uid") == null ? "" : Json.text(p, "metadata.uid");
            JsonNode spec = p.path("spec");
            exempt = "Exempt".equals(spec.path("type").asString(""));
            if (exempt) {
                nominal = 0;
                lendable = 0;
                return drain();
            }
            JsonNode limited = spec.path("limited");
            int ncs = limited.path("nominalConcurrencyShares").asInt(30);
            nominal = shares <= 0 ? 0 : (int) Math.ceil(serverSeats * ncs / shares);
            lendable = (int) Math.round(nominal * limited.path("lendablePercent").asInt(0) / 100.0);
            JsonNode limit = limited.get("borrowingLimitPercent");
            borrowingLimit = limit == null || limit.isNull() ? Integer.MAX_VALUE
                    : (int) Math.round(nominal * limit.asInt() / 100.0);
            JsonNode response = limited.path("limitResponse");
            int queueCount = "Queue".equals(response.path("type").asString(""))
                    ? response.path("queuing").path("queues").asInt(64) : 0;
            handSize = Math.max(1, Math.min(queueCount, response.path("queuing").path("handSize").asInt(8)));
            queueLengthLimit = response.path("queuing").path("queueLengthLimit").asInt(50);
            if (queueCount == 0) {
                return drain();
            }
            if (queues.length != queueCount) {
                ArrayDeque<Waiter>[] fresh = new ArrayDeque[queueCount];
                for (int i = 0; i < queueCount; i++) {
                    fresh[i] = new ArrayDeque<>();
                }
                // requests already waiting keep waiting, spread over the new queues
                int i = 0;
                for (ArrayDeque<Waiter> old : queues) {
                    for (Waiter w : old) {
                        w.queue = i++ % queueCount;
                        fresh[w.queue].addLast(w);
                    }
                }
                queues = fresh;
                executing = new int[queueCount];
                next = 0;
            }
            return List.of();
        }

        /** Empties the queues: the level no longer queues. */
        @SuppressWarnings("unchecked")
        private List<Waiter> drain() {
            List<Waiter> out = new ArrayList<>();
            for (ArrayDeque<Waiter> q : queues) {
                out.addAll(q);
            }
            queues = new ArrayDeque[0];
            executing = new int[0];
            queuedCount = 0;
            next = 0;
            return out;
        }

        boolean idle() {
            return inUse == 0 && queuedCount == 0;
        }

        /**
         * The queue for a flow: the flow's hash deals it a hand of {@code handSize} distinct queues (shuffle
         * sharding), and of those the one holding the fewest requests takes it.
         */
        int shuffleShard(String flow) {
            long hash = fnv64(flow);
            int n = queues.length;
            int[] deck = new int[n];
            for (int i = 0; i < n; i++) {
                deck[i] = i;
            }
            int best = -1;
            for (int i = 0; i < handSize; i++) {
                int remaining = n - i;
                int pick = (int) Long.remainderUnsigned(hash, remaining);
                hash = Long.divideUnsigned(hash, remaining);
                int card = deck[i + pick];
                deck[i + pick] = deck[i];
                deck[i] = card;
                if (best < 0 || queues[card].size() < queues[best].size()) {
                    best = card;
                }
            }
            return best;
        }

        private static long fnv64(String s) {
            long h = 0xcbf29ce484222325L;
            for (int i = 0; i < s.length(); i++) {
                h ^= s.charAt(i);
                h *= 0x100000001b3L;
            }
            return h;
        }
    }

    /** For tests: a level by name. */
    Level levelForTest(String name) {
        lock.lock();
        try {
            return levels.get(name);
        } finally {
            lock.unlock();
        }
    }

    /** For tests: how many requests wait at a level. */
    int waitingForTest(String name) {
        lock.lock();
        try {
            Level l = levels.get(name);
            return l == null ? 0 : l.queuedCount;
        } finally {
            lock.unlock();
        }
    }
}

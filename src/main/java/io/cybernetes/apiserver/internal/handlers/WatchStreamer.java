package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.TableColumn;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.Watch;
import io.cybernetes.store.WatchEvent;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Streams watches as newline-delimited {@code WatchEvent}s: synthetic ADDED events first
 * when asked for the current state, then every change in revision order, with objects
 * moving in or out of the selectors turned into ADDED or DELETED, bookmarks on request,
 * and an ERROR event with 410 when the revision is gone; as Table rows or
 * PartialObjectMetadata when the client asks for them.
 *
 * <p>A watch holds no thread while it waits. It is run in turns on the
 * {@link WatchThreads}: a turn is due when the store has events for it, when a sink that
 * writes without blocking can take more, or when a bookmark or its end is due; a turn
 * writes what there is while the sink takes it, and returns.
 */
public final class WatchStreamer {

    /**
     * How the watch was asked for. {@code sendInitialEvents} is null when not given (the
     * classic behaviour: the current state first for resourceVersion "" and "0"); true sends
     * the state at (or after) the resourceVersion first and ends it with a bookmark marked
     * {@code k8s.io/initial-events-end}, as client-go's watch-list waits for; false sends
     * none. {@code columns} are those of the kind's Table when the client asked for one,
     * null otherwise.
     */
    public record Request(ResourceType type, String namespace, ListOptions options, List<TableColumn> columns, boolean partial,
                   TableConvertor.Include include, boolean bookmarks, long timeoutMillis, long bookmarkMillis,
                   long flushIntervalMillis, Boolean sendInitialEvents) {

        /** Whether events carry Table rows (with these columns) instead of objects. */
        boolean table() {
            return columns != null;
        }
    }

    /**
     * The request attribute where API Priority and Fairness leaves what gives the watch's seats back; the
     * transport takes it over ({@link Opened#whenInitialized}) so that it runs once the initial events are sent.
     */
    public static final String INITIALIZATION = WatchStreamer.class.getName() + ".initialization";

    /** The annotation on the bookmark that ends a watch-list's initial events. */
    public static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

    /**
     * Where a watch's bytes go, without blocking: {@link #isReady} says whether it takes
     * more now (when it says no, the transport asks for another turn once it does). Each
     * write is one whole event (a line of JSON).
     */
    public interface Sink {

        boolean isReady();

        void write(byte[] bytes) throws IOException;

        void flush() throws IOException;

        /** The stream is over: end the response. */
        void end();
    }

    private static final long REST_MICROS_PER_WATCH = 100;
    /** How soon a watch whose client is slow to take its bytes looks again. */
    private static final long RETRY_MILLIS = 10;

    private final Store store;
    private final ResourceLister lister;
    private final WatchThreads threads;
    /** Told of every event sent (for the watch-events metric). */
    private final java.util.function.Consumer<ResourceType> sent;
    private final EncodedEvents encoded = new EncodedEvents();
    /** Objects as the watch's version sees them: the same instances when their kind has one version. */
    private final Served served;

    /** How stored objects are shown at the version a request names (converted, with read defaults). */
    public interface Served {
        StoredObject one(ResourceType type, StoredObject stored);

        /** Many at once (a conversion webhook is called once for them all). */
        List<StoredObject> all(ResourceType type, List<StoredObject> stored);
    }
    private final AtomicInteger open = new AtomicInteger();

    public WatchStreamer(Store store, WatchThreads threads, java.util.function.Consumer<ResourceType> sent,
                         Served served) {
        this.served = served;
        this.store = store;
        this.lister = new ResourceLister(store);
        this.threads = threads;
        this.sent = sent;
    }

    /**
     * How long a watch rests after a flush: the flushes of all open watches together stay
     * near one per {@link #REST_MICROS_PER_WATCH} microseconds, so a handful of watches
     * get every event at once and hundreds batch theirs, up to the configured maximum.
     */
    private long restMicros(long maxMillis) {
        return Math.min(maxMillis * 1000, (long) open.get() * REST_MICROS_PER_WATCH);
    }

    /** Opens the watch (so errors before any byte is written become ordinary responses). */
    public Opened open(Request req) {
        String rv = req.options().resourceVersion();
        boolean noVersion = rv == null || rv.isEmpty();
        List<StoredObject> initial = List.of();
        long after;
        boolean markEnd = false;
        if (Boolean.TRUE.equals(req.sendInitialEvents())) {
            ResourceLister.Page page = lister.list(req.type(), req.namespace(),
                    new ListOptions(req.options().labels(), req.options().fields(), 0, null, noVersion ? null : rv,
                            noVersion || rv.equals("0") ? null : "NotOlderThan"));
            initial = page.result().items();
            after = page.result().revision();
            markEnd = true;
        } else if (Boolean.FALSE.equals(req.sendInitialEvents())) {
            after = noVersion || rv.equals("0") ? store.currentRevision() : ResourceService.parseRevision(rv);
        } else if (noVersion || rv.equals("0")) {
            ResourceLister.Page page = lister.list(req.type(), req.namespace(),
                    new ListOptions(req.options().labels(), req.options().fields(), 0, null, noVersion ? null : "0",
                            null));
            initial = page.result().items();
            after = page.result().revision();
        } else {
            after = ResourceService.parseRevision(rv);
        }
        initial = served.all(req.type(), initial);
        try {
            Watch watch = store.watch(req.type().keyPrefix(req.namespace()), after);
            return new Opened(req, initial, watch, null, markEnd ? after : -1);
        } catch (StorageException e) {
            if (e.isExpired()) {
                return new Opened(req, List.of(), null, ApiException.gone(e.getMessage()), -1);
            }
            throw ResourceService.translate(e, req.type(), "");
        }
    }

    /**
     * An opened watch ready to stream. Its turns never overlap: a turn asked for while one
     * runs makes that one go round again.
     */
    public final class Opened implements Runnable {
        private final Request req;
        private final List<StoredObject> initial;
        private final Watch watch;
        private final ApiException error;
        /** The revision of the initial events, for the bookmark that ends them; -1 when none ends them. */
        private final long initialEventsEnd;
        private final Predicate<ObjectNode> filter;
        private final AtomicInteger turnsAsked = new AtomicInteger();
        private final AtomicBoolean ended = new AtomicBoolean();
        private final long deadline;
        private volatile Sink sink;
        /** Whether the watch counts among the open ones (from its start to its end); guarded by this. */
        private boolean counted;
        private int initialSent;
        private boolean initialEndSent;
        private long nextBookmark;
        private long restUntil;
        private long wakeAt = Long.MAX_VALUE;
        private WatchThreads.Timer timer;
        /** What to run once the initial events are sent (or the watch ends first); null once run. */
        private volatile Runnable onInitialized;

        Opened(Request req, List<StoredObject> initial, Watch watch, ApiException error, long initialEventsEnd) {
            this.req = req;
            this.initial = initial;
            this.watch = watch;
            this.error = error;
            this.initialEventsEnd = initialEventsEnd;
            this.filter = ResourceLister.filter(req.options());
            this.deadline = System.currentTimeMillis() + req.timeoutMillis();
            this.nextBookmark = System.currentTimeMillis() + req.bookmarkMillis();
        }

        /** Runs the action once the watch's initial events are sent, or when it ends before that. */
        public void whenInitialized(Runnable action) {
            onInitialized = action;
            if (ended.get()) {
                initialized();
            }
        }

        private void initialized() {
            Runnable action = onInitialized;
            if (action != null) {
                onInitialized = null;
                action.run();
            }
        }

        /** What the watch is a watch of. */
        public ResourceType type() {
            return req.type();
        }

        /** Starts streaming to the sink; from here on the watch runs in turns until it ends. */
        public void start(Sink sink) {
            synchronized (this) {
                if (ended.get()) {
                    // closed before it could start (its client went away during an upgrade)
                    sink.end();
                    return;
                }
                this.sink = sink;
                counted = true;
                open.incrementAndGet();
                threads.opened(this);
            }
            if (watch != null) {
                watch.onReady(this::turn);
            }
            turn();
        }

        /**
         * Ends the watch unless it has started streaming by then: a transport that starts
         * it later (a WebSocket once its handshake is done) may never get there.
         */
        public void expireUnlessStarted(long millis) {
            threads.schedule(() -> {
                if (sink == null) {
                    end();
                }
            }, millis);
        }

        /** Asks for a turn (the store has events, or a timer is due), taken on a watch thread. */
        public void turn() {
            if (turnsAsked.getAndIncrement() == 0) {
                try {
                    threads.execute(this);
                } catch (java.util.concurrent.RejectedExecutionException stopping) {
                    end();
                }
            }
        }



        @Override
        public void run() {
            int asked = turnsAsked.get();
            while (true) {
                try {
                    step();
                } catch (IOException | RuntimeException e) {
                    // the client went away, or the sink refused an event: the watch ends, its reader resumes
                    end();
                }
                asked = turnsAsked.addAndGet(-asked);
                if (asked == 0) {
                    return;
                }
            }
        }

        /** Ends the watch: no more turns, the response is ended, the store forgets the watcher. */
        public void close() {
            end();
        }

        private void end() {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            if (watch != null) {
                watch.close();
            }
            if (timer != null) {
                timer.cancel();
            }
            boolean wasCounted;
            synchronized (this) {
                wasCounted = counted;
                counted = false;
            }
            if (wasCounted) {
                threads.closed(this);
                open.decrementAndGet();
            }
            initialized();
            Sink s = sink;
            if (s != null) {
                s.end();
            }
        }

        /**
         * One turn; a failure to show an event at the watch's version (a conversion webhook
         * down) ends the watch with an ERROR event carrying its Status, as kube-apiserver ends it.
         */
        private void step() throws IOException {
            try {
                writeTurn();
            } catch (ApiException e) {
                Sink out = sink;
                if (out != null && !ended.get()) {
                    out.write(line(event("ERROR", e.toJson())));
                    flush(out);
                }
                end();
            }
        }

        /** One turn: write what there is while the client takes it, then say when the next is due. */
        private void writeTurn() throws IOException {
            Sink out = sink;
            if (ended.get() || out == null) {
                return;
            }
            if (error != null) {
                out.write(line(event("ERROR", error.toJson())));
                flush(out);
                end();
                return;
            }
            while (initialSent < initial.size()) {
                if (!out.isReady()) {
                    retrySoon();
                    return;
                }
                StoredObject o = initial.get(initialSent++);
                out.write(raw("ADDED", o.value(), o.jsonText()));
                if (initialSent == initial.size()) {
                    flush(out);
                }
            }
            if (!initialEndSent && initialEventsEnd >= 0 && req.bookmarks()) {
                if (!out.isReady()) {
                    retrySoon();
                    return;
                }
                ObjectNode end = bookmark(initialEventsEnd);
                Json.child(Json.child((ObjectNode) end.get("object"), "metadata"), "annotations")
                        .put(INITIAL_EVENTS_END, "true");
                out.write(line(end));
                flush(out);
                initialEndSent = true;
            }
            initialized();
            long now = System.currentTimeMillis();
            if (now >= deadline) {
                if (req.bookmarks() && out.isReady()) {
                    out.write(line(bookmark(watch.progressRevision())));
                    flush(out);
                }
                end();
                return;
            }
            if (now >= restUntil) {
                boolean wrote = false;
                WatchEvent e;
                while (out.isReady() && (e = taken()) != null) {
                    wrote |= writeEvent(out, e);
                }
                if (wrote) {
                    flush(out);
                    long rest = restMicros(req.flushIntervalMillis());
                    restUntil = rest > 0 ? now + Math.max(1, rest / 1000) : 0;
                    nextBookmark = now + req.bookmarkMillis();
                }
                if (watch.isEnded()) {
                    end();
                    return;
                }
                if (!out.isReady()) {
                    retrySoon();
                    return;
                }
            }
            if (req.bookmarks() && now >= nextBookmark && out.isReady()) {
                out.write(line(bookmark(watch.progressRevision())));
                flush(out);
                nextBookmark = now + req.bookmarkMillis();
            }
            wakeAt(Math.min(deadline, req.bookmarks() ? nextBookmark : Long.MAX_VALUE), now);
        }

        /**
         * Sends what was written as soon as the client takes it. Only while the sink is ready:
         * a non-blocking output that is not must not be flushed, and sends by itself once it can.
         */
        private static void flush(Sink out) throws IOException {
            if (out.isReady()) {
                out.flush();
            }
        }

        /** The next event already there, without waiting. */
        private WatchEvent taken() {
            try {
                return watch.next(0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        /**
         * A turn soon, when the client did not take all that was written: the transport asks
         * for one once it does, and this one makes sure the watch goes on (and reaches its
         * end) even if that word never comes.
         */
        private void retrySoon() {
            long now = System.currentTimeMillis();
            if (timer != null && !timer.isDone() && wakeAt <= now + RETRY_MILLIS) {
                return;
            }
            if (timer != null) {
                timer.cancel();
            }
            wakeAt = now + RETRY_MILLIS;
            timer = threads.schedule(this::turn, RETRY_MILLIS);
        }

        /** Makes sure a turn comes by {@code at} (and at the end of a rest, when resting). */
        private void wakeAt(long at, long now) {
            long due = restUntil > now ? Math.min(at, restUntil) : at;
            if (due == wakeAt && timer != null && !timer.isDone()) {
                return;
            }
            if (timer != null) {
                timer.cancel();
            }
            wakeAt = due;
            timer = threads.schedule(this::turn, Math.max(0, due - now));
        }

        /** Writes the event as this watcher sees it; false when the selectors hide it. */
        private boolean writeEvent(Sink out, WatchEvent e) throws IOException {
            String type = translate(e);
            if (type == null) {
                return false;
            }
            sent.accept(req.type());
            if (type.equals("DELETED") && e.type() != WatchEvent.Type.DELETED) {
                out.write(raw(type, shown(stampedPrevious(e), e), null));
            } else if (req.table() || req.partial()) {
                out.write(raw(type, shown(e.object(), e), null));
            } else {
                ObjectNode shown = shown(e.object(), e);
                out.write(shown == e.object() ? encoded.line(e, type) : raw(type, shown, null));
            }
            return true;
        }

        /** The event's object as this watch's version sees it (the same instance when no conversion is needed). */
        private ObjectNode shown(ObjectNode object, WatchEvent e) {
            StoredObject stored = new StoredObject(e.key(), 0, e.revision(), object);
            StoredObject shown = served.one(req.type(), stored);
            return shown == stored ? object : shown.value();
        }

        /** The event type a filtered watcher sees, or null when the change is invisible to it. */
        private String translate(WatchEvent e) {
            if (filter == null) {
                return e.type().name();
            }
            boolean now = e.type() != WatchEvent.Type.DELETED && filter.test(e.object());
            boolean before = e.prevObject() != null && filter.test(e.prevObject());
            if (e.type() == WatchEvent.Type.DELETED) {
                return filter.test(e.object()) ? "DELETED" : null;
            }
            if (now && before) {
                return "MODIFIED";
            }
            if (now) {
                return "ADDED";
            }
            return before ? "DELETED" : null;
        }

        private ObjectNode stampedPrevious(WatchEvent e) {
            ObjectNode prev = e.prevObject().deepCopy();
            Json.child(prev, "metadata").put("resourceVersion", Long.toString(e.revision()));
            return prev;
        }

        private ObjectNode event(String type, ObjectNode object) {
            ObjectNode ev = Json.object();
            ev.put("type", type);
            if (req.table() && !type.equals("ERROR") && !type.equals("BOOKMARK")) {
                ev.set("object", TableConvertor.table(req.columns(), List.of(object),
                        Json.text(object, "metadata.resourceVersion"), null, req.include()));
            } else if (req.partial() && !type.equals("ERROR") && !type.equals("BOOKMARK")) {
                ev.set("object", TableConvertor.partial(object));
            } else {
                ev.set("object", object);
            }
            return ev;
        }

        private ObjectNode bookmark(long revision) {
            ObjectNode ev = Json.object();
            ev.put("type", "BOOKMARK");
            ObjectNode o = ev.putObject("object");
            o.put("kind", req.table() ? "Table" : req.partial() ? "PartialObjectMetadata" : req.type().kind());
            o.put("apiVersion", req.table() || req.partial() ? "meta.k8s.io/v1" : req.type().apiVersion());
            o.putObject("metadata").put("resourceVersion", Long.toString(revision));
            return ev;
        }

        /**
         * One event's line: as a Table row or metadata only when asked for, otherwise the
         * object's JSON, reusing its stored text when there is one ({@code json} may be null).
         */
        private byte[] raw(String type, ObjectNode object, String json) {
            if (req.table() || req.partial()) {
                return line(event(type, object));
            }
            return ("{\"type\":\"" + type + "\",\"object\":" + (json != null ? json : Json.write(object)) + "}\n")
                    .getBytes(StandardCharsets.UTF_8);
        }

        private static byte[] line(ObjectNode event) {
            return (Json.write(event) + "\n").getBytes(StandardCharsets.UTF_8);
        }
    }
}

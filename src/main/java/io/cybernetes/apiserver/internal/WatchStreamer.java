package io.cybernetes.apiserver.internal;

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
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Streams one watch as newline-delimited {@code WatchEvent}s, flushed per event:
 * synthetic ADDED events first when asked for the current state, then every change in
 * revision order, with objects moving in or out of the selectors turned into ADDED or
 * DELETED, bookmarks on request, and an ERROR event with 410 when the revision is gone;
 * as Table rows or PartialObjectMetadata when the client asks for them.
 */
final class WatchStreamer {

    /** How the watch was asked for. */
    record Request(ResourceType type, String namespace, ListOptions options, boolean table, boolean partial,
                   TableConvertor.Include include, boolean bookmarks, long timeoutMillis, long bookmarkMillis,
                   long flushIntervalMillis) {
    }

    private final Store store;
    private final ResourceLister lister;
    private final EncodedEvents encoded = new EncodedEvents();
    private final AtomicInteger open = new AtomicInteger();

    /**
     * How long a watch rests after a flush: the flushes of all open watches together stay
     * near one per {@link #REST_MICROS_PER_WATCH} microseconds, so a handful of watches
     * get every event at once and hundreds batch theirs, up to the configured maximum.
     */
    private long restMicros(long maxMillis) {
        return Math.min(maxMillis * 1000, (long) open.get() * REST_MICROS_PER_WATCH);
    }

    private static final long REST_MICROS_PER_WATCH = 100;

    WatchStreamer(Store store) {
        this.store = store;
        this.lister = new ResourceLister(store);
    }

    /** Opens the watch (so errors before any byte is written become ordinary responses). */
    Opened open(Request req) {
        String rv = req.options().resourceVersion();
        List<StoredObject> initial = List.of();
        long after;
        if (rv == null || rv.isEmpty() || rv.equals("0")) {
            ResourceLister.Page page = lister.list(req.type(), req.namespace(),
                    new ListOptions(req.options().labels(), req.options().fields(), 0, null,
                            rv == null || rv.isEmpty() ? null : "0", null));
            initial = page.result().items();
            after = page.result().revision();
        } else {
            after = ResourceService.parseRevision(rv);
        }
        try {
            Watch watch = store.watch(req.type().keyPrefix(req.namespace()), after);
            return new Opened(req, initial, watch, null);
        } catch (StorageException e) {
            if (e.isExpired()) {
                return new Opened(req, List.of(), null, ApiException.gone(e.getMessage()));
            }
            throw ResourceService.translate(e, req.type(), "");
        }
    }

    /** An opened watch ready to stream. */
    final class Opened {
        private final Request req;
        private final List<StoredObject> initial;
        private final Watch watch;
        private final ApiException error;

        Opened(Request req, List<StoredObject> initial, Watch watch, ApiException error) {
            this.req = req;
            this.initial = initial;
            this.watch = watch;
            this.error = error;
        }

        /** Ends the watch: a streaming thread blocked waiting for events returns. */
        void close() {
            if (watch != null) {
                watch.close();
            }
        }

        void stream(OutputStream out) throws IOException {
            open.incrementAndGet();
            try {
                streamEvents(out);
            } finally {
                open.decrementAndGet();
            }
        }

        private void streamEvents(OutputStream out) throws IOException {
            if (error != null) {
                write(out, event("ERROR", Json.toTree(error.toStatus())));
                return;
            }
            Predicate<ObjectNode> filter = ResourceLister.filter(req.options());
            long deadline = System.currentTimeMillis() + req.timeoutMillis();
            long nextBookmark = System.currentTimeMillis() + req.bookmarkMillis();
            try (watch) {
                for (StoredObject o : initial) {
                    writeRaw(out, "ADDED", o.value(), o.jsonText());
                }
                out.flush();
                // An event goes out at once, with whatever else is already queued; then the watch
                // rests for the flush interval, so under load its events leave in one packet per
                // interval, and the thread is woken by its timer rather than once per event.
                while (System.currentTimeMillis() < deadline) {
                    WatchEvent e = watch.next(Math.min(1000, Math.max(1, deadline - System.currentTimeMillis())));
                    if (e == null) {
                        if (watch.isEnded()) {
                            return;
                        }
                        if (req.bookmarks() && System.currentTimeMillis() >= nextBookmark) {
                            write(out, bookmark(watch.progressRevision()));
                            nextBookmark = System.currentTimeMillis() + req.bookmarkMillis();
                        }
                        continue;
                    }
                    boolean wrote = writeEvent(out, e, filter);
                    WatchEvent more;
                    while ((more = watch.next(0)) != null) {
                        wrote |= writeEvent(out, more, filter);
                    }
                    if (wrote) {
                        out.flush();
                        long rest = restMicros(req.flushIntervalMillis());
                        if (rest > 0) {
                            Thread.sleep(rest / 1000, (int) (rest % 1000) * 1000);
                        }
                    }
                }
                if (req.bookmarks()) {
                    write(out, bookmark(watch.progressRevision()));
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }

        /** Writes the event as this watcher sees it; false when the selectors hide it. */
        private boolean writeEvent(OutputStream out, WatchEvent e, Predicate<ObjectNode> filter) throws IOException {
            String type = translate(e, filter);
            if (type == null) {
                return false;
            }
            if (type.equals("DELETED") && e.type() != WatchEvent.Type.DELETED) {
                writeRaw(out, type, stampedPrevious(e), null);
            } else if (req.table() || req.partial()) {
                writeRaw(out, type, e.object(), null);
            } else {
                out.write(encoded.line(e, type));
            }
            return true;
        }

        /** The event type a filtered watcher sees, or null when the change is invisible to it. */
        private String translate(WatchEvent e, Predicate<ObjectNode> filter) {
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
                ev.set("object", TableConvertor.table(req.type(), List.of(object),
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
         * Writes one event without flushing: as a Table row or metadata only when asked for,
         * otherwise the object's JSON, reusing its stored text when there is one ({@code json}
         * may be null).
         */
        private void writeRaw(OutputStream out, String type, ObjectNode object, String json) throws IOException {
            if (req.table() || req.partial()) {
                out.write(Json.MAPPER.writeValueAsBytes(event(type, object)));
            } else {
                out.write(("{\"type\":\"" + type + "\",\"object\":").getBytes(StandardCharsets.UTF_8));
                out.write((json != null ? json : Json.write(object)).getBytes(StandardCharsets.UTF_8));
                out.write('}');
            }
            out.write('\n');
        }

        private void write(OutputStream out, ObjectNode event) throws IOException {
            out.write(Json.write(event).getBytes(StandardCharsets.UTF_8));
            out.write('\n');
            out.flush();
        }
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ResourceType;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.ListResult;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.Watch;
import io.cybernetes.store.WatchEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

import java.util.HashMap;
import java.util.Map;

/**
 * The API server's own reflector over one resource type, straight on the store: lists,
 * hands every object to the handler, then follows the watch from the list's revision;
 * when the watch has expired it relists, telling the handler about objects that
 * disappeared meanwhile. {@link #start()} returns once the first list has been handled.
 */
final class StoreReflector {

    /** What the reflector reports: the current state of a key, or its deletion. */
    interface Handler {
        void upsert(String key, ObjectNode object);

        void delete(String key, ObjectNode lastState);
    }

    private static final Logger log = LoggerFactory.getLogger(StoreReflector.class);

    private final Store store;
    private final ResourceType type;
    private final Handler handler;
    private final Map<String, ObjectNode> known = new HashMap<>();
    private volatile boolean running;
    private Thread thread;

    StoreReflector(Store store, ResourceType type, Handler handler) {
        this.store = store;
        this.type = type;
        this.handler = handler;
    }

    void start() {
        running = true;
        long revision = relist();
        thread = new Thread(() -> follow(revision), "reflector-" + type.plural());
        thread.setDaemon(true);
        thread.start();
    }

    void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
        }
    }

    private long relist() {
        ListResult result = store.list(new ListRequest(type.keyPrefix(), ListRequest.Match.LATEST, 0, o -> true, null, 0));
        Map<String, ObjectNode> seen = new HashMap<>();
        for (StoredObject o : result.items()) {
            seen.put(o.key(), o.value());
            handler.upsert(o.key(), o.value());
        }
        for (Map.Entry<String, ObjectNode> e : known.entrySet()) {
            if (!seen.containsKey(e.getKey())) {
                handler.delete(e.getKey(), e.getValue());
            }
        }
        known.clear();
        known.putAll(seen);
        return result.revision();
    }

    private void follow(long fromRevision) {
        long revision = fromRevision;
        while (running) {
            try (Watch watch = store.watch(type.keyPrefix(), revision)) {
                while (running && !watch.isEnded()) {
                    WatchEvent e = watch.next(1000);
                    if (e == null) {
                        continue;
                    }
                    revision = e.revision();
                    if (e.type() == WatchEvent.Type.DELETED) {
                        known.remove(e.key());
                        handler.delete(e.key(), e.object());
                    } else {
                        known.put(e.key(), e.object());
                        handler.upsert(e.key(), e.object());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (!(e instanceof StorageException se && se.isExpired())) {
                    log.warn("Following {} failed; relisting: {}", type.plural(), e.toString());
                }
                revision = relistAfterPause(revision);
            }
        }
    }

    private long relistAfterPause(long revision) {
        try {
            Thread.sleep(200);
            return relist();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            running = false;
            return revision;
        } catch (RuntimeException e) {
            log.warn("Relisting {} failed: {}", type.plural(), e.toString());
            return revision;
        }
    }
}

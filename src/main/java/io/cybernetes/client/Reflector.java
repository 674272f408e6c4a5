package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;

/**
 * Keeps a {@link DeltaFifo} in step with the server, as client-go's Reflector: lists,
 * queues the list as a replacement, then watches from the list's revision and queues
 * every event. A watch the server ends is resumed from the last revision seen; an
 * expired revision (410) or a failure relists, failures after a jittered exponential
 * backoff (0.8 s doubling to 30 s, reset by a successful list), so no change is lost.
 */
public final class Reflector<T extends HasMetadata> implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Reflector.class);
    private static final Duration INITIAL_BACKOFF = Duration.ofMillis(800);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final String name;
    private final ListerWatcher<T> lw;
    private final DeltaFifo<T> fifo;
    private final UnaryOperator<T> transform;
    private volatile boolean running = true;
    private volatile String lastSyncResourceVersion = "";
    private volatile int relists;

    public Reflector(String name, ListerWatcher<T> lw, DeltaFifo<T> fifo) {
        this(name, lw, fifo, UnaryOperator.identity());
    }

    /** With {@code transform} applied to every object before it is queued (client-go's SetTransform). */
    public Reflector(String name, ListerWatcher<T> lw, DeltaFifo<T> fifo, UnaryOperator<T> transform) {
        this.name = name;
        this.lw = lw;
        this.fifo = fifo;
        this.transform = transform;
    }

    @Override
    public void run() {
        Duration backoff = INITIAL_BACKOFF;
        while (running && !Thread.currentThread().isInterrupted()) {
            try {
                if (listAndWatch()) {
                    backoff = INITIAL_BACKOFF;
                    continue;
                }
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.warn("{}: list and watch failed, retrying in {} ms: {}", name, backoff.toMillis(), e.toString());
            }
            try {
                long jitter = ThreadLocalRandom.current().nextLong(backoff.toMillis() / 5 + 1);
                Thread.sleep(backoff.toMillis() + jitter);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
    }

    /** One list, then watches until a relist is needed (true) or the reflector stops (false). */
    private boolean listAndWatch() throws InterruptedException {
        ListerWatcher.Listed<T> listed = lw.list();
        relists++;
        fifo.replace(listed.items().stream().map(transform).toList());
        String rv = listed.resourceVersion();
        lastSyncResourceVersion = rv;
        while (running) {
            try (ListerWatcher.WatchStream<T> watch = lw.watch(rv)) {
                while (running) {
                    ListerWatcher.Event<T> e = watch.next(1000);
                    if (e == null) {
                        continue;
                    }
                    switch (e.type()) {
                        case ADDED -> fifo.add(transform.apply(e.object()));
                        case MODIFIED -> fifo.update(transform.apply(e.object()));
                        case DELETED -> fifo.delete(transform.apply(e.object()));
                        case BOOKMARK -> {
                        }
                        case ERROR -> {
                            if (e.code() == 410) {
                                log.debug("{}: revision {} expired; relisting", name, rv);
                                return true;
                            }
                            throw new IllegalStateException("watch error " + e.code());
                        }
                        case CLOSED -> {
                            // the server ended the watch (timeout, restart): resume from where it stopped
                        }
                    }
                    if (e.type() == ListerWatcher.Event.Type.CLOSED) {
                        break;
                    }
                    if (e.resourceVersion() != null && !e.resourceVersion().isEmpty()) {
                        rv = e.resourceVersion();
                        lastSyncResourceVersion = rv;
                    }
                }
            }
        }
        return false;
    }

    public void stop() {
        running = false;
    }

    /** The revision the reflector has reached. */
    public String lastSyncResourceVersion() {
        return lastSyncResourceVersion;
    }

    /** How many times it has listed (1 in a quiet life; more after expired revisions or failures). */
    public int relists() {
        return relists;
    }
}

package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * One watch of one kind, shared by every controller that cares: a {@link Reflector} fills
 * a {@link DeltaFifo}, one thread applies each change to the {@link Indexer} and tells the
 * handlers, and a resync every {@code resyncPeriod} hands every known object to the
 * handlers again, so level-triggered controllers repair whatever they missed. A handler
 * added late first hears of every object already known.
 */
public final class SharedInformer<T extends HasMetadata> {

    private static final Logger log = LoggerFactory.getLogger(SharedInformer.class);

    private final String name;
    private final Indexer<T> indexer = new Indexer<>();
    private final DeltaFifo<T> fifo;
    private final Reflector<T> reflector;
    private final Duration resyncPeriod;
    private final List<ResourceEventHandler<T>> handlers = new CopyOnWriteArrayList<>();
    private final Object handlerLock = new Object();
    private volatile boolean synced;
    private volatile boolean running;
    private Thread reflectorThread;
    private Thread processorThread;

    public SharedInformer(String name, ListerWatcher<T> lw, Duration resyncPeriod) {
        this(name, lw, resyncPeriod, UnaryOperator.identity());
    }

    /** With {@code transform} applied to every object before it is cached (client-go's SetTransform). */
    public SharedInformer(String name, ListerWatcher<T> lw, Duration resyncPeriod, UnaryOperator<T> transform) {
        this.name = name;
        this.fifo = new DeltaFifo<>(indexer::keys, key -> indexer.get(key).orElse(null));
        this.reflector = new Reflector<>(name, lw, fifo, transform);
        this.resyncPeriod = resyncPeriod;
    }

    /**
     * Drops metadata.managedFields, which no controller reads and which is often the
     * larger part of an object (kube-controller-manager and kube-scheduler strip them from
     * their informers' objects too). An update sent without them keeps the stored ones.
     */
    public static <T extends HasMetadata> T withoutManagedFields(T obj) {
        if (obj != null && obj.getMetadata() != null) {
            obj.getMetadata().setManagedFields(null);
        }
        return obj;
    }

    public Indexer<T> indexer() {
        return indexer;
    }

    public void addEventHandler(ResourceEventHandler<T> handler) {
        synchronized (handlerLock) {
            handlers.add(handler);
            for (T o : indexer.list()) {
                handler.onAdd(o);
            }
        }
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        reflectorThread = new Thread(reflector, "informer-" + name + "-reflector");
        reflectorThread.setDaemon(true);
        processorThread = new Thread(this::process, "informer-" + name);
        processorThread.setDaemon(true);
        reflectorThread.start();
        processorThread.start();
    }

    public synchronized void stop() {
        running = false;
        reflector.stop();
        fifo.close();
        if (reflectorThread != null) {
            reflectorThread.interrupt();
            processorThread.interrupt();
        }
    }

    /** Whether the first list has reached the indexer (and the handlers). */
    public boolean hasSynced() {
        return synced;
    }

    /** Waits until synced; false on timeout. */
    public boolean waitForSync(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!synced) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    public Reflector<T> reflector() {
        return reflector;
    }

    private void process() {
        long nextResync = System.nanoTime() + resyncPeriod.toNanos();
        while (running) {
            try {
                // asleep until there is something to do: a delta, the first list in, the next resync, the stop
                long untilResync = resyncPeriod.isZero() ? TimeUnit.MINUTES.toNanos(1)
                        : Math.max(1, nextResync - System.nanoTime());
                List<DeltaFifo.Delta<T>> deltas = fifo.pop(untilResync, TimeUnit.NANOSECONDS);
                if (deltas != null) {
                    synchronized (handlerLock) {
                        deltas.forEach(this::apply);
                    }
                }
                if (!synced && fifo.hasSynced()) {
                    synced = true;
                }
                if (!resyncPeriod.isZero() && System.nanoTime() >= nextResync) {
                    fifo.resync();
                    nextResync = System.nanoTime() + resyncPeriod.toNanos();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void apply(DeltaFifo.Delta<T> d) {
        if (d.type() == DeltaFifo.Type.DELETED) {
            String key = d.tombstone() != null ? d.tombstone().key() : Keys.of(d.object());
            T last = indexer.remove(key);
            T told = d.object() != null ? d.object() : last;
            for (ResourceEventHandler<T> h : handlers) {
                tell(d, () -> h.onDelete(told, d.tombstone() != null));
            }
            return;
        }
        T old = indexer.put(d.object());
        for (ResourceEventHandler<T> h : handlers) {
            tell(d, () -> {
                if (old == null) {
                    h.onAdd(d.object());
                } else {
                    h.onUpdate(old, d.object());
                }
            });
        }
    }

    /** A handler's failure must not stop the informer or the other handlers: the next resync tells it again. */
    private void tell(DeltaFifo.Delta<T> d, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("{}: a handler failed on a {} delta: {}", name, d.type(), e.toString());
        }
    }
}

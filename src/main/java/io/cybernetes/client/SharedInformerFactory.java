package io.cybernetes.client;

import io.cybernetes.api.ResourceType;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One informer per kind for everyone who asks, so every controller shares one watch of
 * pods, one of nodes, and so on; started together, stopped together. Their objects come
 * without managedFields ({@link SharedInformer#withoutManagedFields}).
 */
public final class SharedInformerFactory {

    private final ApiClient client;
    private final Duration resyncPeriod;
    private final Map<Class<?>, SharedInformer<?>> informers = new ConcurrentHashMap<>();
    /** By resource (group and plural): one informer whichever version is asked for. */
    private final Map<String, SharedInformer<PartialObjectMetadata>> metadataInformers = new ConcurrentHashMap<>();
    private volatile boolean started;
    private volatile boolean stopped;
    private final List<Runnable> onStop = new ArrayList<>();

    public SharedInformerFactory(ApiClient client, Duration resyncPeriod) {
        this.client = client;
        this.resyncPeriod = resyncPeriod;
    }

    /** The informer of the kind in all namespaces, made on first use (and started, if the factory is). */
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> SharedInformer<T> informerFor(Class<T> kind) {
        SharedInformer<T> informer = (SharedInformer<T>) informers.computeIfAbsent(kind, k ->
                new SharedInformer<>(kind.getSimpleName().toLowerCase(), client.listerWatcher(kind, null), resyncPeriod,
                        SharedInformer::withoutManagedFields));
        if (started) {
            informer.start();
        }
        return informer;
    }

    /**
     * The informer of the kind's metadata only ({@code PartialObjectMetadata}), in all
     * namespaces: for handlers that need no more, at a fraction of the cost of decoding
     * whole objects.
     */
    public synchronized SharedInformer<PartialObjectMetadata> metadataInformerFor(ResourceType type) {
        SharedInformer<PartialObjectMetadata> informer = metadataInformers.computeIfAbsent(type.keyPrefix(), k ->
                new SharedInformer<>(type.groupResource() + "-metadata", client.metadataListerWatcher(type, null),
                        resyncPeriod, SharedInformer::withoutManagedFields));
        if (started && !stopped) {
            informer.start();
        }
        return informer;
    }

    /** Stops and forgets the metadata informer of a resource that is no longer served (at that version). */
    public synchronized void removeMetadataInformer(ResourceType type) {
        SharedInformer<PartialObjectMetadata> informer = metadataInformers.remove(type.keyPrefix());
        if (informer != null) {
            informer.stop();
        }
    }

    private List<SharedInformer<?>> all() {
        List<SharedInformer<?>> all = new ArrayList<>(informers.values());
        all.addAll(metadataInformers.values());
        return all;
    }

    public synchronized void start() {
        started = true;
        all().forEach(SharedInformer::start);
    }

    /** Runs when the factory stops (what a term registered outside it, to be undone with it). */
    public synchronized void onStop(Runnable undo) {
        onStop.add(undo);
    }

    public synchronized void stop() {
        started = false;
        stopped = true;
        onStop.forEach(Runnable::run);
        onStop.clear();
        all().forEach(SharedInformer::stop);
    }

    /** Whether the factory has been stopped (its term is over: nothing should be added to it). */
    public boolean stopped() {
        return stopped;
    }

    /** Waits until every informer made so far has synced; false on timeout. */
    public boolean waitForSync(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (SharedInformer<?> i : all()) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !i.waitForSync(Duration.ofNanos(left))) {
                return false;
            }
        }
        return true;
    }
}

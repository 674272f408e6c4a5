package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A server of ConfigMaps for informer tests: the test changes objects, and may expire or end the watch. */
final class FakeListerWatcher implements ListerWatcher<ConfigMap> {

    private final Map<String, ConfigMap> objects = new LinkedHashMap<>();
    private long revision;
    private BlockingQueue<Event<ConfigMap>> current = new LinkedBlockingQueue<>();
    final AtomicInteger lists = new AtomicInteger();
    final AtomicInteger watches = new AtomicInteger();

    static ConfigMap cm(String name, String value) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata()
                .addToData("v", value).build();
    }

    synchronized ConfigMap put(String name, String value) {
        return put(cm(name, value));
    }

    synchronized ConfigMap put(ConfigMap c) {
        String name = c.getMetadata().getName();
        c.getMetadata().setResourceVersion(Long.toString(++revision));
        boolean existed = objects.put(name, c) != null;
        current.add(Event.of(existed ? Event.Type.MODIFIED : Event.Type.ADDED, c, c.getMetadata().getResourceVersion()));
        return c;
    }

    synchronized void remove(String name) {
        ConfigMap c = objects.remove(name);
        current.add(Event.of(Event.Type.DELETED, c, Long.toString(++revision)));
    }

    /** Changes the objects without telling the open watch (a change the watch missed). */
    synchronized void removeUnseen(String name) {
        objects.remove(name);
        revision++;
    }

    synchronized void expireWatch() {
        current.add(Event.error(410));
    }

    synchronized void endWatch() {
        current.add(Event.closed());
    }

    @Override
    public synchronized Listed<ConfigMap> list() {
        lists.incrementAndGet();
        return new Listed<>(new ArrayList<>(objects.values()), Long.toString(revision));
    }

    @Override
    public synchronized WatchStream<ConfigMap> watch(String resourceVersion) {
        watches.incrementAndGet();
        BlockingQueue<Event<ConfigMap>> q = new LinkedBlockingQueue<>();
        current = q;
        return new WatchStream<>() {
            @Override
            public Event<ConfigMap> next(long timeoutMillis) throws InterruptedException {
                return q.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            }

            @Override
            public void close() {
            }
        };
    }

    List<String> names() {
        synchronized (this) {
            return new ArrayList<>(objects.keySet());
        }
    }
}

package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.HasMetadata;

import java.util.List;

/**
 * How a reflector reaches one kind (in one namespace or all): a list with the revision it
 * was read at, and a watch of everything after a revision. An {@code ApiClient} provides
 * it; tests provide fakes.
 */
public interface ListerWatcher<T extends HasMetadata> {

    Listed<T> list();

    /** Events after {@code resourceVersion}; an expired revision shows as an ERROR event with code 410. */
    WatchStream<T> watch(String resourceVersion);

    record Listed<T>(List<T> items, String resourceVersion) {
    }

    /** A ListerWatcher from a list and a watch function. */
    static <T extends HasMetadata> ListerWatcher<T> of(java.util.function.Supplier<Listed<T>> list,
                                                       java.util.function.Function<String, WatchStream<T>> watch) {
        return new ListerWatcher<>() {
            @Override
            public Listed<T> list() {
                return list.get();
            }

            @Override
            public WatchStream<T> watch(String resourceVersion) {
                return watch.apply(resourceVersion);
            }
        };
    }

    /** A watch being read. {@link #next} gives null when nothing came within the timeout. */
    interface WatchStream<T> extends AutoCloseable {

        Event<T> next(long timeoutMillis) throws InterruptedException;

        @Override
        void close();
    }

    /**
     * One watch event. BOOKMARK carries only a revision; ERROR a Status code (410: the
     * revision has been compacted, relist); CLOSED means the server ended the watch.
     */
    record Event<T>(Type type, T object, String resourceVersion, int code) {

        public enum Type { ADDED, MODIFIED, DELETED, BOOKMARK, ERROR, CLOSED }

        public static <T> Event<T> of(Type type, T object, String resourceVersion) {
            return new Event<>(type, object, resourceVersion, 0);
        }

        public static <T> Event<T> error(int code) {
            return new Event<>(Type.ERROR, null, null, code);
        }

        public static <T> Event<T> closed() {
            return new Event<>(Type.CLOSED, null, null, 0);
        }
    }
}

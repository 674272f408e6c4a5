package io.cybernetes.api;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import java.io.Serial;
import java.io.Serializable;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Object nodes whose fields sit in one array (name, value, name, value ...) instead of a
 * LinkedHashMap with an entry object per field. Nearly every object of a Kubernetes object
 * has a handful of fields (a managedFields set is mostly empty objects), and the watch
 * cache holds every object of the cluster as such a tree: this is about a third of the
 * memory, and a third of the objects the collector has to trace. An object that grows
 * past {@value #LIMIT} fields moves to a LinkedHashMap, where lookups stay constant-time.
 * Field order is insertion order either way, as Jackson's own.
 */
public final class CompactNodeFactory extends JsonNodeFactory {

    /** The most fields kept in the array. */
    static final int LIMIT = 16;

    @Serial
    private static final long serialVersionUID = 1L;

    public static final CompactNodeFactory INSTANCE = new CompactNodeFactory();

    private CompactNodeFactory() {
    }

    @Override
    public ObjectNode objectNode() {
        return new ObjectNode(this, new Fields());
    }

    /** An object's fields: in one array while few, in a LinkedHashMap past {@link #LIMIT}. */
    static final class Fields extends AbstractMap<String, JsonNode> implements Serializable {

        @Serial
        private static final long serialVersionUID = 1L;
        private static final Object[] NONE = {};

        private Object[] pairs = NONE;
        private int size;
        private LinkedHashMap<String, JsonNode> large;
        private transient int modCount;

        private int indexOf(Object name) {
            if (name != null) {
                for (int i = 0; i < size; i++) {
                    Object k = pairs[2 * i];
                    if (k == name || name.equals(k)) {
                        return i;
                    }
                }
            }
            return -1;
        }

        @Override
        public JsonNode get(Object name) {
            if (large != null) {
                return large.get(name);
            }
            int i = indexOf(name);
            return i < 0 ? null : (JsonNode) pairs[2 * i + 1];
        }

        @Override
        public boolean containsKey(Object name) {
            return large != null ? large.containsKey(name) : indexOf(name) >= 0;
        }

        @Override
        public JsonNode put(String name, JsonNode value) {
            if (large != null) {
                return large.put(name, value);
            }
            int i = indexOf(name);
            if (i >= 0) {
                JsonNode old = (JsonNode) pairs[2 * i + 1];
                pairs[2 * i + 1] = value;
                return old;
            }
            modCount++;
            if (size == LIMIT) {
                large = new LinkedHashMap<>(2 * LIMIT);
                for (int k = 0; k < size; k++) {
                    large.put((String) pairs[2 * k], (JsonNode) pairs[2 * k + 1]);
                }
                pairs = NONE;
                size = 0;
                return large.put(name, value);
            }
            if (2 * size == pairs.length) {
                pairs = Arrays.copyOf(pairs, Math.max(4, 2 * pairs.length));
            }
            pairs[2 * size] = name;
            pairs[2 * size + 1] = value;
            size++;
            return null;
        }

        @Override
        public JsonNode remove(Object name) {
            if (large != null) {
                return large.remove(name);
            }
            int i = indexOf(name);
            return i < 0 ? null : removeAt(i);
        }

        private JsonNode removeAt(int i) {
            JsonNode old = (JsonNode) pairs[2 * i + 1];
            System.arraycopy(pairs, 2 * i + 2, pairs, 2 * i, 2 * (size - i - 1));
            size--;
            pairs[2 * size] = null;
            pairs[2 * size + 1] = null;
            modCount++;
            return old;
        }

        @Override
        public int size() {
            return large != null ? large.size() : size;
        }

        @Override
        public boolean isEmpty() {
            return size() == 0;
        }

        @Override
        public void clear() {
            large = null;
            pairs = NONE;
            size = 0;
            modCount++;
        }

        @Override
        public void forEach(BiConsumer<? super String, ? super JsonNode> action) {
            if (large != null) {
                large.forEach(action);
                return;
            }
            int expected = modCount;
            for (int i = 0; i < size; i++) {
                action.accept((String) pairs[2 * i], (JsonNode) pairs[2 * i + 1]);
                if (modCount != expected) {
                    throw new ConcurrentModificationException();
                }
            }
        }

        @Override
        public Set<Map.Entry<String, JsonNode>> entrySet() {
            if (large != null) {
                return large.entrySet();
            }
            return new AbstractSet<>() {
                @Override
                public Iterator<Map.Entry<String, JsonNode>> iterator() {
                    return large != null ? large.entrySet().iterator() : new Entries();
                }

                @Override
                public int size() {
                    return Fields.this.size();
                }
            };
        }

        /** The fields in order; an entry's setValue writes through, remove() takes out the last one given. */
        private final class Entries implements Iterator<Map.Entry<String, JsonNode>> {
            private int next;
            private int last = -1;
            private int expected = modCount;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public Map.Entry<String, JsonNode> next() {
                if (modCount != expected || large != null) {
                    throw new ConcurrentModificationException();
                }
                if (next >= size) {
                    throw new NoSuchElementException();
                }
                last = next++;
                int at = last;
                String name = (String) pairs[2 * at];
                return new AbstractMap.SimpleEntry<>(name, (JsonNode) pairs[2 * at + 1]) {
                    @Serial
                    private static final long serialVersionUID = 1L;

                    @Override
                    public JsonNode setValue(JsonNode value) {
                        if (modCount != expected || !name.equals(pairs[2 * at])) {
                            throw new ConcurrentModificationException();
                        }
                        pairs[2 * at + 1] = value;
                        return super.setValue(value);
                    }
                };
            }

            @Override
            public void remove() {
                if (last < 0) {
                    throw new IllegalStateException();
                }
                if (modCount != expected) {
                    throw new ConcurrentModificationException();
                }
                removeAt(last);
                next = last;
                last = -1;
                expected = modCount;
            }
        }
    }
}

package io.cybernetes.apiserver.internal.fieldmanager;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of field paths, as structured-merge-diff keeps the fields a manager owns: a tree
 * whose edges are path elements in their Kubernetes spelling ({@code f:name} a field,
 * {@code k:{"name":"c"}} a list item by its keys, {@code v:"x"} a set item by its value,
 * {@code i:0} an item by its index) and whose nodes say whether their own path is in the
 * set. Written and read as {@code FieldsV1} JSON, where a node that is both in the set and
 * has children holds {@code ".": {}}.
 */
public final class FieldSet {

    /** Field names, then keys, values and indices, each in its own order, as structured-merge-diff orders them. */
    static final Comparator<String> ORDER = Comparator.comparingInt(FieldSet::rank)
            .thenComparing(FieldSet::compareWithinKind);

    private boolean member;
    private final TreeMap<String, FieldSet> children = new TreeMap<>(ORDER);

    private static int rank(String element) {
        return switch (element.charAt(0)) {
            case 'f' -> 0;
            case 'k' -> 1;
            case 'v' -> 2;
            default -> 3;
        };
    }

    private static int compareWithinKind(String a, String b) {
        if (a.startsWith("i:") && b.startsWith("i:")) {
            return Integer.compare(Integer.parseInt(a.substring(2)), Integer.parseInt(b.substring(2)));
        }
        return a.compareTo(b);
    }

    /** The node at the path element below this one, made when absent. */
    FieldSet child(String element) {
        return children.computeIfAbsent(element, e -> new FieldSet());
    }

    /** Puts this node's own path in the set. */
    void insert() {
        member = true;
    }

    /** Takes this node's own path out of the set (its children stay). */
    void clearMember() {
        member = false;
    }

    public boolean isEmpty() {
        if (member) {
            return false;
        }
        for (FieldSet c : children.values()) {
            if (!c.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Whether this node's own path is in the set. */
    boolean member() {
        return member;
    }

    Map<String, FieldSet> children() {
        return children;
    }

    public FieldSet copy() {
        FieldSet c = new FieldSet();
        c.member = member;
        children.forEach((k, v) -> c.children.put(k, v.copy()));
        return c;
    }

    /** The paths of either set. */
    public FieldSet union(FieldSet other) {
        FieldSet out = copy();
        out.addAll(other);
        return out;
    }

    /** Takes the other's paths into this set. */
    void addAll(FieldSet other) {
        member |= other.member;
        other.children.forEach((k, v) -> child(k).addAll(v));
    }

    /** The paths of this set that the other does not have. */
    public FieldSet difference(FieldSet other) {
        FieldSet out = new FieldSet();
        out.member = member && !other.member;
        children.forEach((k, v) -> {
            FieldSet o = other.children.get(k);
            FieldSet d = o == null ? v.copy() : v.difference(o);
            if (!d.isEmpty()) {
                out.children.put(k, d);
            }
        });
        return out;
    }

    /** The paths both sets have. */
    public FieldSet intersection(FieldSet other) {
        FieldSet out = new FieldSet();
        out.member = member && other.member;
        children.forEach((k, v) -> {
            FieldSet o = other.children.get(k);
            if (o != null) {
                FieldSet i = v.intersection(o);
                if (!i.isEmpty()) {
                    out.children.put(k, i);
                }
            }
        });
        return out;
    }

    /** The paths of this set with everything at or below the other's paths taken out. */
    public FieldSet recursiveDifference(FieldSet other) {
        if (other.member) {
            return new FieldSet();
        }
        FieldSet out = new FieldSet();
        out.member = member;
        children.forEach((k, v) -> {
            FieldSet o = other.children.get(k);
            FieldSet d = o == null ? v.copy() : v.recursiveDifference(o);
            if (!d.isEmpty()) {
                out.children.put(k, d);
            }
        });
        return out;
    }

    /** The set as {@code fieldsV1}. */
    public ObjectNode toFieldsV1() {
        ObjectNode o = Json.object();
        write(o, true);
        return o;
    }

    private void write(ObjectNode o, boolean root) {
        if (member && !root && !children.isEmpty()) {
            o.putObject(".");
        }
        children.forEach((k, v) -> {
            if (!v.isEmpty()) {
                v.write(o.putObject(k), false);
            }
        });
    }

    /** A set read from {@code fieldsV1}; what is not a path element is left out. */
    public static FieldSet fromFieldsV1(JsonNode fieldsV1) {
        FieldSet s = new FieldSet();
        read(s, fieldsV1, true);
        return s;
    }

    private static void read(FieldSet s, JsonNode node, boolean root) {
        if (!root && (node == null || node.isEmpty())) {
            s.member = true;
            return;
        }
        if (node == null) {
            return;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (e.getKey().equals(".")) {
                s.member = true;
            } else if (e.getKey().length() > 2 && e.getKey().charAt(1) == ':' && "fkvi".indexOf(e.getKey().charAt(0)) >= 0) {
                read(s.child(e.getKey()), e.getValue(), false);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FieldSet f && toFieldsV1().equals(f.toFieldsV1());
    }

    @Override
    public int hashCode() {
        return toFieldsV1().hashCode();
    }

    @Override
    public String toString() {
        return toFieldsV1().toString();
    }
}

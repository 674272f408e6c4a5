package io.cybernetes.apiserver.internal.allocation;

import io.cybernetes.api.Json;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * Hands out the members of a range (Service addresses, node ports; each in its one canonical
 * spelling, ASCII digits without leading zeros), each at most once,
 * whichever replica asks: every member handed out is a record of its own in the store,
 * created only if absent, so two replicas taking the same one at once cannot both succeed
 * (as Kubernetes' IPAddress objects do for Service addresses). A record names its holder.
 * The records sit under a key prefix no kind can have ({@code _ranges/}), out of the API's
 * reach.
 */
public final class Allocator {

    /** Why a member asked for cannot be had. */
    public static final class Unavailable extends RuntimeException {
        private final boolean taken;

        Unavailable(String message, boolean taken) {
            super(message);
            this.taken = taken;
        }

        /** True when another holds it, false when it is not in the range (or the range is full). */
        public boolean taken() {
            return taken;
        }
    }

    private final Store store;
    private final String prefix;
    private final int size;
    private final IntFunction<String> member;
    private final ToIntFunction<String> offset;
    private final String what;
    private final boolean dry;

    private Allocator(Store store, String prefix, String what, int size, IntFunction<String> member,
                      ToIntFunction<String> offset, boolean dry) {
        this.store = store;
        this.prefix = prefix;
        this.what = what;
        this.size = size;
        this.member = member;
        this.offset = offset;
        this.dry = dry;
    }

    /**
     * The same range for a dry run: it answers as this one would (a member asked for refused
     * when held, a free one found) but takes and gives back nothing.
     */
    public Allocator dryRun() {
        return new Allocator(store, prefix, what, size, member, offset, true);
    }

    /** The addresses of a Service CIDR. */
    public static Allocator of(Store store, String name, IpRange range) {
        return new Allocator(store, "_ranges/" + name + "/", "the range " + range.cidr(), range.size(), range::address,
                range::offset, false);
    }

    /** The ports of a port range. */
    public static Allocator of(Store store, String name, PortRange range) {
        return new Allocator(store, "_ranges/" + name + "/", "the range " + range.text(), range.size(), range::port,
                range::offset, false);
    }

    /** The records' key prefix: which allocator this is. */
    @Override
    public String toString() {
        return prefix;
    }

    /** Whether the member belongs to the range. */
    public boolean contains(String m) {
        return offset.applyAsInt(m) >= 0;
    }

    /** Takes this member for the holder; {@link Unavailable} when it is outside the range or already held. */
    public void allocate(String m, String holder) {
        if (!contains(m)) {
            throw new Unavailable(m + " is not in " + what, false);
        }
        if (!tryCreate(m, holder)) {
            throw new Unavailable(m + " is already allocated", true);
        }
    }

    /**
     * Takes a free member for the holder, starting the search at a random one (so that
     * replicas allocating at once rarely want the same); {@link Unavailable} when none is left.
     */
    public String allocateNext(String holder) {
        int start = ThreadLocalRandom.current().nextInt(size);
        for (int i = 0; i < size; i++) {
            String m = member.apply((start + i) % size);
            if (store.getCached(prefix + m).isEmpty() && tryCreate(m, holder)) {
                return m;
            }
        }
        throw new Unavailable("no free member of " + what + " is left", false);
    }

    /** Takes the member for the holder if no one holds it; whether it did. */
    public boolean tryCreate(String m, String holder) {
        if (dry) {
            return store.get(prefix + m).isEmpty();
        }
        ObjectNode record = Json.object();
        record.put("holder", holder);
        try {
            store.create(prefix + m, record);
            return true;
        } catch (StorageException e) {
            if (e.isExists()) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Gives the member back if this holder holds it (nothing otherwise: a late release must
     * not free what another has taken since).
     */
    public void release(String m, String holder) {
        if (dry) {
            return;
        }
        Optional<StoredObject> record = store.get(prefix + m);
        if (record.isEmpty() || !holder.equals(Json.text(record.get().value(), "holder"))) {
            return;
        }
        try {
            store.delete(prefix + m, record.get().modRevision(), null);
        } catch (StorageException e) {
            if (!e.isNotFound() && !e.isConflict()) {
                throw e;
            }
        }
    }

    /** Who holds the member, or null. */
    public String holder(String m) {
        return store.get(prefix + m).map(o -> Json.text(o.value(), "holder")).orElse(null);
    }

    /** Every member held now, with its holder (for the repair that compares them with the objects holding them). */
    public List<String[]> held() {
        List<String[]> out = new ArrayList<>();
        for (StoredObject o : store.list(new ListRequest(prefix, ListRequest.Match.LATEST, 0, null, null, 0)).items()) {
            out.add(new String[] {o.key().substring(prefix.length()), Json.text(o.value(), "holder")});
        }
        return out;
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.StoredObject;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * A kind served at several versions and stored at one: what is read is converted to the
 * version the request names, what is written to the storage version. Objects stored at
 * an earlier storage version are converted from whatever version they carry.
 */
public record Conversion(String storageApiVersion, VersionConverter converter) {

    /** The stored object as the request's version sees it. */
    public StoredObject served(ResourceType type, StoredObject o) {
        if (type.apiVersion().equals(Json.text(o.value(), "apiVersion"))) {
            return o;
        }
        return new StoredObject(o.key(), o.createRevision(), o.modRevision(),
                converter.convert(List.of(o.value()), type.apiVersion()).get(0), null, o.stale());
    }

    /** Stored objects as the request's version sees them, those needing it converted together. */
    public List<StoredObject> served(ResourceType type, List<StoredObject> objects) {
        List<Integer> at = new ArrayList<>();
        List<ObjectNode> foreign = new ArrayList<>();
        for (int i = 0; i < objects.size(); i++) {
            if (!type.apiVersion().equals(Json.text(objects.get(i).value(), "apiVersion"))) {
                at.add(i);
                foreign.add(objects.get(i).value());
            }
        }
        if (foreign.isEmpty()) {
            return objects;
        }
        List<ObjectNode> converted = converter.convert(foreign, type.apiVersion());
        List<StoredObject> out = new ArrayList<>(objects);
        for (int j = 0; j < at.size(); j++) {
            StoredObject o = objects.get(at.get(j));
            out.set(at.get(j), new StoredObject(o.key(), o.createRevision(), o.modRevision(), converted.get(j)));
        }
        return out;
    }

    /** An object written through the request's version, as it is stored. */
    public ObjectNode forStorage(ObjectNode obj) {
        if (storageApiVersion.equals(Json.text(obj, "apiVersion"))) {
            return obj;
        }
        return converter.convert(List.of(obj), storageApiVersion).get(0);
    }
}

package io.cybernetes.client;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** The key of an object in informers and queues: {@code namespace/name}, or {@code name} when cluster-scoped. */
public final class Keys {

    private Keys() {
    }

    public static String of(HasMetadata o) {
        String ns = o.getMetadata().getNamespace();
        return ns == null || ns.isEmpty() ? o.getMetadata().getName() : ns + "/" + o.getMetadata().getName();
    }

    public static String namespace(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? "" : key.substring(0, slash);
    }

    public static String name(String key) {
        return key.substring(key.indexOf('/') + 1);
    }
}

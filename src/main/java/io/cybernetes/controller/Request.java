package io.cybernetes.controller;

/** What to reconcile: the object's namespace ("" when cluster-scoped) and name — never the object itself. */
public record Request(String namespace, String name) {

    public static Request ofKey(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? new Request("", key) : new Request(key.substring(0, slash), key.substring(slash + 1));
    }

    public String key() {
        return namespace.isEmpty() ? name : namespace + "/" + name;
    }

    @Override
    public String toString() {
        return key();
    }
}

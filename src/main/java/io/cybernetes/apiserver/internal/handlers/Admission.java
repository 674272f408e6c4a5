package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ResourceType;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * The admission steps of the write path, as the generic registry calls them: mutate the
 * incoming object, validate the final one, give back what validation reserved when the
 * write then fails, and hear when an object is finally removed. {@code old} is null on
 * create; {@code obj} is null on delete.
 */
public interface Admission {

    void mutate(ResourceType type, String subresource, String namespace, ObjectNode obj, ObjectNode old,
                WriteOptions opts);

    /** Refuses the write by throwing; returns the warnings admission has for the client. */
    List<String> validate(ResourceType type, String subresource, String namespace, ObjectNode obj, ObjectNode old,
                          WriteOptions opts);

    void release(ResourceType type, String subresource, String namespace, ObjectNode obj, ObjectNode old,
                 WriteOptions opts);

    void removed(ResourceType type, String namespace, ObjectNode last);

    /** No admission at all (for tests of the generic registry alone). */
    Admission NONE = new Admission() {
        @Override
        public void mutate(ResourceType t, String s, String n, ObjectNode o, ObjectNode old, WriteOptions w) {
        }

        @Override
        public List<String> validate(ResourceType t, String s, String n, ObjectNode o, ObjectNode old,
                                     WriteOptions w) {
            return List.of();
        }

        @Override
        public void release(ResourceType t, String s, String n, ObjectNode o, ObjectNode old, WriteOptions w) {
        }

        @Override
        public void removed(ResourceType t, String n, ObjectNode last) {
        }
    };
}

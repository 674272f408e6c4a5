package io.cybernetes.admission;

import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/**
 * What an admission plugin sees of a write, as the apiserver's admission.Attributes:
 * the operation, the resource addressed, the object as it would be stored (null for a
 * DELETE) and the object before (null for a CREATE), who writes, and whether it is a
 * dry run. Mutating plugins change {@link #object()} in place; validating plugins get a
 * copy, so they cannot. Plugins add to {@link #warnings()} (the response's Warning headers) and
 * {@link #auditAnnotations()} (the audit event's annotations); a copy shares them.
 */
public record Attributes(Operation operation, String group, String version, String kind, String resource,
                         String subresource, String namespace, String name, ObjectNode object, ObjectNode oldObject,
                         User user, boolean dryRun, List<String> warnings, Map<String, String> auditAnnotations) {

    public enum Operation { CREATE, UPDATE, DELETE, CONNECT }

    /** The writer, as authentication saw them. */
    public record User(String name, String uid, List<String> groups, Map<String, List<String>> extra) {
    }

    /** A write whose plugins' warnings and audit annotations are collected afresh. */
    public Attributes(Operation operation, String group, String version, String kind, String resource,
                      String subresource, String namespace, String name, ObjectNode object, ObjectNode oldObject,
                      User user, boolean dryRun) {
        this(operation, group, version, kind, resource, subresource, namespace, name, object, oldObject, user, dryRun,
                new java.util.ArrayList<>(), new java.util.LinkedHashMap<>());
    }

    public Attributes {
        subresource = subresource == null ? "" : subresource;
        namespace = namespace == null ? "" : namespace;
        name = name == null ? "" : name;
    }

    /** {@code pods}, or {@code deployments.apps}: the resource as messages name it. */
    public String groupResource() {
        return group.isEmpty() ? resource : resource + "." + group;
    }

    public boolean is(String group, String resource) {
        return this.group.equals(group) && this.resource.equals(resource);
    }

    /** Whether this is one of the operations on the resource itself (not one of its subresources). */
    public boolean isWriteOf(String group, String resource, Operation... operations) {
        if (!is(group, resource) || !subresource.isEmpty()) {
            return false;
        }
        for (Operation op : operations) {
            if (op == operation) {
                return true;
            }
        }
        return false;
    }

    /** The same write with copies of the objects, for plugins that must not change them. */
    public Attributes readOnlyCopy() {
        return new Attributes(operation, group, version, kind, resource, subresource, namespace, name,
                object == null ? null : object.deepCopy(), oldObject == null ? null : oldObject.deepCopy(), user, dryRun,
                warnings, auditAnnotations);
    }
}

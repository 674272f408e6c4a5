package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where a kind's scale subresource finds replicas, as a CRD's {@code subresources.scale}
 * says it: the desired count under spec, the observed one under status, and the label
 * selector as a string (or, for the workloads, their own {@code spec.selector} object
 * written out as a selector string).
 */
public record ScalePaths(String specReplicasPath, String statusReplicasPath, String labelSelectorPath,
                         boolean specSelector) {

    /** Deployments and ReplicaSets: their selector is the label selector object at spec.selector. */
    public static final ScalePaths WORKLOAD = new ScalePaths(".spec.replicas", ".status.replicas", null, true);

    /** A custom resource's, as its CRD's scale subresource says (no labelSelectorPath: no selector). */
    public static ScalePaths of(String specReplicasPath, String statusReplicasPath, String labelSelectorPath) {
        return new ScalePaths(specReplicasPath, statusReplicasPath, labelSelectorPath, false);
    }

    public int specReplicas(JsonNode obj) {
        return at(obj, specReplicasPath).asInt(0);
    }

    public int statusReplicas(JsonNode obj) {
        return at(obj, statusReplicasPath).asInt(0);
    }

    /** The selector string a Scale reports; empty when the object has none. */
    public String selector(JsonNode obj) {
        if (specSelector) {
            return LabelSelector.fromSpecSelector(obj.path("spec").path("selector")).toString();
        }
        if (labelSelectorPath == null || labelSelectorPath.isEmpty()) {
            return "";
        }
        JsonNode s = at(obj, labelSelectorPath);
        return s.isString() ? s.asString() : "";
    }

    /** Writes the desired count, making the objects on the way. */
    public void setSpecReplicas(ObjectNode obj, int replicas) {
        String[] parts = specReplicasPath.substring(1).split("\\.");
        ObjectNode o = obj;
        for (int i = 0; i < parts.length - 1; i++) {
            o = Json.child(o, parts[i]);
        }
        o.put(parts[parts.length - 1], replicas);
    }

    private static JsonNode at(JsonNode obj, String path) {
        JsonNode n = obj;
        for (String part : path.substring(1).split("\\.")) {
            n = n.path(part);
        }
        return n;
    }
}

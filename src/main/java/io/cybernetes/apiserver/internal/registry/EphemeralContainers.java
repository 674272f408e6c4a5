package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pod's ephemeral containers as Kubernetes checks them: none on create; through the
 * {@code ephemeralcontainers} subresource only added — existing ones neither changed nor
 * removed — each named uniquely among all the pod's containers, with an image, without the
 * fields an ephemeral container may not have, and targeting a container the pod has.
 */
final class EphemeralContainers {

    private static final List<String> FORBIDDEN = List.of("ports", "livenessProbe", "readinessProbe",
            "startupProbe", "lifecycle", "resources", "resizePolicy");

    private EphemeralContainers() {
    }

    static void validateCreate(JsonNode spec, List<StatusCause> causes) {
        if (spec != null && spec.path("ephemeralContainers").size() > 0) {
            causes.add(ApiException.cause("spec.ephemeralContainers", "FieldValueForbidden",
                    "Forbidden: cannot be set on create"));
        }
    }

    static void validateUpdate(JsonNode spec, JsonNode oldSpec, List<StatusCause> causes) {
        Map<String, JsonNode> old = byName(oldSpec.path("ephemeralContainers"));
        Map<String, JsonNode> now = byName(spec.path("ephemeralContainers"));
        for (String name : old.keySet()) {
            if (!now.containsKey(name)) {
                causes.add(ApiException.cause("spec.ephemeralContainers", "FieldValueForbidden",
                        "Forbidden: existing ephemeral containers \"" + name + "\" may not be removed"));
            }
        }
        Set<String> names = new HashSet<>();
        Set<String> targets = new HashSet<>();
        for (String list : List.of("containers", "initContainers")) {
            spec.path(list).forEach(c -> {
                names.add(c.path("name").asString(""));
                targets.add(c.path("name").asString(""));
            });
        }
        JsonNode list = spec.path("ephemeralContainers");
        for (int i = 0; i < list.size(); i++) {
            JsonNode c = list.get(i);
            String at = "spec.ephemeralContainers[" + i + "]";
            String name = c.path("name").asString("");
            JsonNode before = old.get(name);
            if (before != null) {
                if (!before.equals(c)) {
                    causes.add(ApiException.cause(at, "FieldValueForbidden",
                            "Forbidden: existing ephemeral containers \"" + name + "\" may not be changed"));
                }
                names.add(name);
                continue;
            }
            if (name.isEmpty()) {
                causes.add(MetaValidation.required(at + ".name"));
            } else if (!names.add(name)) {
                causes.add(MetaValidation.duplicate(at + ".name", name));
            }
            if (c.path("image").asString("").isEmpty()) {
                causes.add(MetaValidation.required(at + ".image"));
            }
            for (String f : FORBIDDEN) {
                if (c.has(f) && !c.get(f).isNull() && !(c.get(f).isObject() && c.get(f).isEmpty())) {
                    causes.add(ApiException.cause(at + "." + f, "FieldValueForbidden",
                            "Forbidden: cannot be set for an Ephemeral Container"));
                }
            }
            String target = c.path("targetContainerName").asString("");
            if (!target.isEmpty() && !targets.contains(target)) {
                causes.add(ApiException.cause(at + ".targetContainerName", "FieldValueNotFound",
                        "Not found: \"" + target + "\""));
            }
        }
    }

    private static Map<String, JsonNode> byName(JsonNode list) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        list.forEach(c -> out.put(c.path("name").asString(""), c));
        return out;
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Set;

/**
 * Roles and role bindings as objects: the shape of rules, role references and subjects.
 * What they grant is the authorizer's business, not this one's.
 */
public final class RbacStrategy implements KindStrategy {

    private static final String GROUP = "rbac.authorization.k8s.io";
    private final boolean binding;
    private final boolean clusterScoped;

    public RbacStrategy(boolean binding, boolean clusterScoped) {
        this.binding = binding;
        this.clusterScoped = clusterScoped;
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        if (binding) {
            validateBinding(obj, causes);
        } else {
            validateRules(obj.get("rules"), !clusterScoped, causes);
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        if (binding && old.get("roleRef") != null && !old.get("roleRef").equals(obj.get("roleRef"))) {
            causes.add(ApiException.cause("roleRef", "FieldValueInvalid",
                    "Invalid value: " + obj.get("roleRef") + ": cannot change roleRef"));
        }
    }

    private static void validateRules(JsonNode rules, boolean namespaced, List<StatusCause> causes) {
        if (rules == null || !rules.isArray()) {
            return;
        }
        for (int i = 0; i < rules.size(); i++) {
            JsonNode r = rules.get(i);
            String p = "rules[" + i + "]";
            if (r.path("verbs").isEmpty()) {
                causes.add(MetaValidation.required(p + ".verbs"));
            }
            boolean urls = !r.path("nonResourceURLs").isEmpty();
            boolean resources = !r.path("resources").isEmpty();
            if (urls && namespaced) {
                causes.add(ApiException.cause(p + ".nonResourceURLs", "FieldValueInvalid", "Invalid value: []string{"
                        + String.join(", ", Json.strings(r.get("nonResourceURLs")).stream()
                        .map(GoStrings::quote).toList())
                        + "}: namespaced rules cannot apply to non-resource URLs"));
            }
            if (urls && resources) {
                causes.add(ApiException.cause(p + ".nonResourceURLs", "FieldValueInvalid",
                        "Invalid value: rules cannot apply to both regular resources and non-resource URLs"));
            } else if (!urls && (!resources || r.path("apiGroups").isEmpty())) {
                causes.add(MetaValidation.required(p + (resources ? ".apiGroups" : ".resources")));
            }
        }
    }

    private void validateBinding(ObjectNode obj, List<StatusCause> causes) {
        JsonNode ref = obj.get("roleRef");
        if (ref == null || !ref.isObject()) {
            causes.add(MetaValidation.required("roleRef"));
        } else {
            if (!GROUP.equals(ref.path("apiGroup").asString(""))) {
                causes.add(MetaValidation.invalid("roleRef.apiGroup", ref.path("apiGroup").asString(""),
                        "supported values: \"" + GROUP + "\""));
            }
            Set<String> kinds = clusterScoped ? Set.of("ClusterRole") : Set.of("Role", "ClusterRole");
            if (!kinds.contains(ref.path("kind").asString(""))) {
                causes.add(MetaValidation.invalid("roleRef.kind", ref.path("kind").asString(""),
                        "supported values: " + String.join(", ", kinds.stream().sorted().map(k -> "\"" + k + "\"").toList())));
            }
            if (ref.path("name").asString("").isEmpty()) {
                causes.add(MetaValidation.required("roleRef.name"));
            }
        }
        JsonNode subjects = obj.get("subjects");
        if (subjects != null && subjects.isArray()) {
            for (int i = 0; i < subjects.size(); i++) {
                JsonNode s = subjects.get(i);
                String p = "subjects[" + i + "]";
                String kind = s.path("kind").asString("");
                if (!Set.of("User", "Group", "ServiceAccount").contains(kind)) {
                    causes.add(MetaValidation.invalid(p + ".kind", kind,
                            "supported values: \"Group\", \"ServiceAccount\", \"User\""));
                }
                if (s.path("name").asString("").isEmpty()) {
                    causes.add(MetaValidation.required(p + ".name"));
                }
                if (kind.equals("ServiceAccount") && clusterScoped && s.path("namespace").asString("").isEmpty()) {
                    causes.add(MetaValidation.required(p + ".namespace"));
                }
            }
        }
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Defaulting and validation of a pod spec, shared by pods and pod templates. */
public final class PodSpecs {

    private PodSpecs() {
    }

    public static void setDefaults(ObjectNode spec) {
        putIfAbsent(spec, "restartPolicy", "Always");
        putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
        putIfAbsent(spec, "schedulerName", "default-scheduler");
        if (!spec.has("terminationGracePeriodSeconds")) {
            spec.put("terminationGracePeriodSeconds", 30);
        }
        if (!spec.has("securityContext")) {
            spec.putObject("securityContext");
        }
        for (String list : List.of("containers", "initContainers")) {
            JsonNode cs = spec.get(list);
            if (cs != null && cs.isArray()) {
                for (JsonNode c : cs) {
                    if (c instanceof ObjectNode co) {
                        String image = co.path("image").asString("");
                        String tag = image.contains("@") ? "digest"
                                : image.lastIndexOf(':') > image.lastIndexOf('/') ? image.substring(image.lastIndexOf(':') + 1) : "";
                        putIfAbsent(co, "imagePullPolicy", tag.isEmpty() || tag.equals("latest") ? "Always" : "IfNotPresent");
                        putIfAbsent(co, "terminationMessagePath", "/dev/termination-log");
                        putIfAbsent(co, "terminationMessagePolicy", "File");
                        if (!co.has("resources")) {
                            co.putObject("resources");
                        }
                        JsonNode ports = co.get("ports");
                        if (ports != null && ports.isArray()) {
                            for (JsonNode p : ports) {
                                if (p instanceof ObjectNode po) {
                                    putIfAbsent(po, "protocol", "TCP");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    public static void validate(JsonNode spec, String path, List<StatusCause> causes) {
        if (spec == null || !spec.isObject()) {
            causes.add(MetaValidation.required(path));
            return;
        }
        JsonNode containers = spec.get("containers");
        if (containers == null || !containers.isArray() || containers.isEmpty()) {
            causes.add(MetaValidation.required(path + ".containers"));
        } else {
            validateContainers(containers, path + ".containers", causes);
        }
        JsonNode init = spec.get("initContainers");
        if (init != null && init.isArray()) {
            validateContainers(init, path + ".initContainers", causes);
        }
    }

    private static void validateContainers(JsonNode containers, String path, List<StatusCause> causes) {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < containers.size(); i++) {
            JsonNode c = containers.get(i);
            String p = path + "[" + i + "]";
            String name = c.path("name").asString("");
            if (name.isEmpty()) {
                causes.add(MetaValidation.required(p + ".name"));
            } else if (!MetaValidation.DNS1123_LABEL.matcher(name).matches() || name.length() > 63) {
                causes.add(MetaValidation.invalid(p + ".name", name, "a lowercase RFC 1123 label must consist of lower"
                        + " case alphanumeric characters or '-', and must start and end with an alphanumeric character"));
            } else if (!names.add(name)) {
                causes.add(io.cybernetes.api.ApiException.cause(p + ".name", "FieldValueDuplicate",
                        "Duplicate value: \"" + name + "\""));
            }
            if (c.path("image").asString("").isBlank()) {
                causes.add(MetaValidation.required(p + ".image"));
            }
            validateResources(c.path("resources"), p + ".resources", causes);
        }
    }

    /** Requests and limits as Kubernetes checks them: none below zero, no request above its limit. */
    private static void validateResources(JsonNode resources, String path, List<StatusCause> causes) {
        JsonNode limits = resources.path("limits");
        for (String kind : List.of("limits", "requests")) {
            for (java.util.Map.Entry<String, JsonNode> e : resources.path(kind).properties()) {
                String field = path + "." + kind + "[" + e.getKey() + "]";
                java.math.BigDecimal v = quantity(e.getValue());
                if (v == null) {
                    continue; // the schema's validation words that one
                }
                if (v.signum() < 0) {
                    causes.add(MetaValidation.invalid(field, e.getValue().asString(), "must be greater than or equal"
                            + " to 0"));
                } else if (kind.equals("requests") && limits.has(e.getKey())) {
                    java.math.BigDecimal limit = quantity(limits.get(e.getKey()));
                    if (limit != null && v.compareTo(limit) > 0) {
                        causes.add(MetaValidation.invalid(path + ".requests", e.getValue().asString(), "must be less"
                                + " than or equal to " + e.getKey() + " limit of " + limits.get(e.getKey()).asString()));
                    }
                }
            }
        }
    }

    private static java.math.BigDecimal quantity(JsonNode q) {
        try {
            return io.cybernetes.api.Quantities.parse(q.asString());
        } catch (io.cybernetes.api.ApiException notOne) {
            return null;
        }
    }

    public static void putIfAbsent(ObjectNode o, String field, String value) {
        if (!o.has(field) || o.get(field).isNull()) {
            o.put(field, value);
        }
    }
}

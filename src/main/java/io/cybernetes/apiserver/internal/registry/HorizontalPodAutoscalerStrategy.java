package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.Quantities;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/**
 * HorizontalPodAutoscalers (autoscaling/v2 and v1): the status reset on create and
 * generations counted; Kubernetes' defaults (one replica at least, 80% cpu when no metric
 * is given, and with a {@code behavior} its missing rules: scale up at once by 4 pods or
 * 100% every 15 s, whichever is more; scale down by up to 100% every 15 s, after the
 * controller's downscale stabilization window unless the behavior sets one);
 * and its validation in its words, a v1 object checked as the v2 object it is stored as.
 */
public final class HorizontalPodAutoscalerStrategy extends DefaultingStrategy {

    private static final List<String> SOURCES = List.of("ContainerResource", "External", "Object", "Pods", "Resource");
    private static final Map<String, String> SOURCE_FIELDS = Map.of("Object", "object", "Pods", "pods", "Resource",
            "resource", "ContainerResource", "containerResource", "External", "external");
    static final int MAX_PERIOD_SECONDS = 1800;
    static final int MAX_STABILIZATION_WINDOW_SECONDS = 3600;

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        if (!spec.hasNonNull("minReplicas")) {
            spec.put("minReplicas", 1);
        }
        if (HorizontalPodAutoscalerConversion.V1.equals(Json.text(obj, "apiVersion"))) {
            return;
        }
        if (!spec.path("metrics").isArray() || spec.path("metrics").isEmpty()) {
            ObjectNode m = spec.putArray("metrics").addObject();
            m.put("type", "Resource");
            ObjectNode r = m.putObject("resource");
            r.put("name", "cpu");
            r.putObject("target").put("type", "Utilization").put("averageUtilization",
                    HorizontalPodAutoscalerConversion.DEFAULT_CPU_UTILIZATION);
        }
        if (spec.path("behavior") instanceof ObjectNode behavior) {
            rules(behavior, "scaleUp", 0, List.of(policy("Pods", 4, 15), policy("Percent", 100, 15)));
            rules(behavior, "scaleDown", null, List.of(policy("Percent", 100, 15)));
        }
    }

    /** A direction's rules with Kubernetes' defaults filled in; a scale-down window left out stays out. */
    private static void rules(ObjectNode behavior, String direction, Integer window, List<ObjectNode> policies) {
        ObjectNode r = behavior.path(direction) instanceof ObjectNode o ? o : behavior.putObject(direction);
        if (!r.hasNonNull("stabilizationWindowSeconds") && window != null) {
            r.put("stabilizationWindowSeconds", window);
        }
        if (!r.hasNonNull("selectPolicy")) {
            r.put("selectPolicy", "Max");
        }
        if (!r.path("policies").isArray()) {
            ArrayNode p = r.putArray("policies");
            policies.forEach(p::add);
        }
    }

    private static ObjectNode policy(String type, int value, int period) {
        ObjectNode p = Json.object();
        p.put("type", type).put("value", value).put("periodSeconds", period);
        return p;
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        ObjectNode v2 = HorizontalPodAutoscalerConversion.V1.equals(Json.text(obj, "apiVersion"))
                ? HorizontalPodAutoscalerConversion.toV2(obj) : obj;
        JsonNode spec = v2.path("spec");
        JsonNode min = spec.get("minReplicas");
        int max = spec.path("maxReplicas").asInt(0);
        if (min != null && !min.isNull() && min.asInt() < 1) {
            causes.add(number("spec.minReplicas", min.asInt(), "must be greater than or equal to 1"));
        }
        if (max < 1) {
            causes.add(number("spec.maxReplicas", max, "must be greater than 0"));
        }
        if (min != null && !min.isNull() && max < min.asInt()) {
            causes.add(number("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
        }
        reference(spec.path("scaleTargetRef"), "spec.scaleTargetRef", causes);
        JsonNode metrics = spec.path("metrics");
        for (int i = 0; i < metrics.size(); i++) {
            metric(metrics.get(i), "spec.metrics[" + i + "]", causes);
        }
        JsonNode behavior = spec.path("behavior");
        for (String direction : List.of("scaleUp", "scaleDown")) {
            if (behavior.path(direction).isObject()) {
                scalingRules(behavior.path(direction), "spec.behavior." + direction, causes);
            }
        }
    }

    private static void reference(JsonNode ref, String path, List<StatusCause> causes) {
        for (String f : List.of("kind", "name")) {
            String v = ref.path(f).asString("");
            if (v.isEmpty()) {
                causes.add(MetaValidation.required(path + "." + f));
            } else if (v.equals(".") || v.equals("..") || v.contains("/") || v.contains("%")) {
                causes.add(MetaValidation.invalid(path + "." + f, v, v.equals(".") || v.equals("..")
                        ? "may not be '" + v + "'" : "may not contain '" + (v.contains("/") ? "/" : "%") + "'"));
            }
        }
    }

    private static void metric(JsonNode m, String path, List<StatusCause> causes) {
        String type = m.path("type").asString("");
        if (type.isEmpty()) {
            causes.add(MetaValidation.required(path + ".type", "must specify a metric source type"));
        }
        if (!SOURCES.contains(type)) {
            causes.add(MetaValidation.notSupported(path + ".type", type, "\"ContainerResource\", \"External\", "
                    + "\"Object\", \"Pods\", \"Resource\""));
        }
        String expected = SOURCE_FIELDS.get(type);
        if (expected != null && !m.path(expected).isObject()) {
            causes.add(MetaValidation.required(path + "." + expected, "must populate information for the given metric"
                    + " source"));
        }
        for (String field : SOURCE_FIELDS.values()) {
            if (!field.equals(expected) && m.path(field).isObject()) {
                causes.add(ApiException.cause(path + "." + field, "FieldValueForbidden",
                        "Forbidden: must populate the given metric source only"));
            }
        }
        if (m.path("resource").isObject() && "resource".equals(expected)) {
            resource(m.path("resource"), path + ".resource", causes);
        }
        if (m.path("containerResource").isObject() && "containerResource".equals(expected)) {
            resource(m.path("containerResource"), path + ".containerResource", causes);
            if (m.path("containerResource").path("container").asString("").isEmpty()) {
                causes.add(MetaValidation.required(path + ".containerResource.container", "must specify a container"));
            }
        }
        for (String other : List.of("pods", "object", "external")) {
            if (m.path(other).isObject() && other.equals(expected)) {
                target(m.path(other).path("target"), path + "." + other + ".target", causes);
                if (m.path(other).path("metric").path("name").asString("").isEmpty()) {
                    causes.add(MetaValidation.required(path + "." + other + ".metric.name",
                            "must specify a metric name"));
                }
            }
        }
    }

    private static void resource(JsonNode src, String path, List<StatusCause> causes) {
        if (src.path("name").asString("").isEmpty()) {
            causes.add(MetaValidation.required(path + ".name", "must specify a resource name"));
        }
        JsonNode t = src.path("target");
        target(t, path + ".target", causes);
        if (!t.hasNonNull("averageUtilization") && !t.hasNonNull("averageValue")) {
            causes.add(MetaValidation.required(path + ".target.averageUtilization",
                    "must set either a target raw value or a target utilization"));
        }
        if (t.hasNonNull("averageUtilization") && t.hasNonNull("averageValue")) {
            causes.add(ApiException.cause(path + ".target.averageValue", "FieldValueForbidden",
                    "Forbidden: may not set both a target raw value and a target utilization"));
        }
    }

    private static void target(JsonNode t, String path, List<StatusCause> causes) {
        String type = t.path("type").asString("");
        if (type.isEmpty()) {
            causes.add(MetaValidation.required(path + ".type", "must specify a metric target type"));
        } else if (!List.of("Utilization", "Value", "AverageValue").contains(type)) {
            causes.add(MetaValidation.notSupported(path + ".type", type, "\"AverageValue\", \"Utilization\", "
                    + "\"Value\""));
        }
        for (String f : List.of("value", "averageValue")) {
            if (t.hasNonNull(f)) {
                String q = t.path(f).asString(t.path(f).toString());
                if (!Quantities.isValid(q) || Quantities.parse(q).signum() <= 0) {
                    causes.add(MetaValidation.invalid(path + "." + f, q, "must be positive"));
                }
            }
        }
        if (t.hasNonNull("averageUtilization") && t.path("averageUtilization").asInt() < 1) {
            causes.add(number(path + ".averageUtilization", t.path("averageUtilization").asInt(),
                    "must be greater than 0"));
        }
    }

    private static void scalingRules(JsonNode rules, String path, List<StatusCause> causes) {
        JsonNode window = rules.get("stabilizationWindowSeconds");
        if (window != null && !window.isNull()) {
            if (window.asInt() < 0) {
                causes.add(number(path + ".stabilizationWindowSeconds", window.asInt(),
                        "must be greater than or equal to zero"));
            } else if (window.asInt() > MAX_STABILIZATION_WINDOW_SECONDS) {
                causes.add(number(path + ".stabilizationWindowSeconds", window.asInt(),
                        "must be less than or equal to " + MAX_STABILIZATION_WINDOW_SECONDS));
            }
        }
        String select = rules.path("selectPolicy").asString("");
        if (rules.hasNonNull("selectPolicy") && !List.of("Disabled", "Max", "Min").contains(select)) {
            causes.add(MetaValidation.notSupported(path + ".selectPolicy", select, "\"Disabled\", \"Max\", \"Min\""));
        }
        JsonNode policies = rules.path("policies");
        if (!policies.isArray() || policies.isEmpty()) {
            causes.add(MetaValidation.required(path + ".policies", "must specify at least one Policy"));
            return;
        }
        for (int i = 0; i < policies.size(); i++) {
            JsonNode p = policies.get(i);
            String at = path + ".policies[" + i + "]";
            String type = p.path("type").asString("");
            if (!type.equals("Pods") && !type.equals("Percent")) {
                causes.add(MetaValidation.notSupported(at + ".type", type, "\"Percent\", \"Pods\""));
            }
            if (p.path("value").asInt(0) <= 0) {
                causes.add(number(at + ".value", p.path("value").asInt(0), "must be greater than zero"));
            }
            int period = p.path("periodSeconds").asInt(0);
            if (period <= 0) {
                causes.add(number(at + ".periodSeconds", period, "must be greater than zero"));
            } else if (period > MAX_PERIOD_SECONDS) {
                causes.add(number(at + ".periodSeconds", period, "must be less than or equal to " + MAX_PERIOD_SECONDS));
            }
        }
    }

    private static StatusCause number(String field, int value, String why) {
        return ApiException.cause(field, "FieldValueInvalid", "Invalid value: " + value + ": " + why);
    }
}

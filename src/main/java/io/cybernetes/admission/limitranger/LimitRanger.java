package io.cybernetes.admission.limitranger;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.MutatingAdmissionPlugin;
import io.cybernetes.api.PodResources;
import io.cybernetes.admission.ValidatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.Quantities;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * LimitRange objects at work: new pods get the namespace's default requests and limits
 * for containers that name none (a container with only a limit gets it as its request),
 * and a pod whose containers (or whole) fall outside a range's min, max or
 * limit-to-request ratio is refused with each violation named.
 */
public final class LimitRanger implements MutatingAdmissionPlugin, ValidatingAdmissionPlugin {

    public static final String NAME = "LimitRanger";

    private final ClusterReader cluster;

    public LimitRanger(ClusterReader cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.isWriteOf("", "pods", Attributes.Operation.CREATE, Attributes.Operation.UPDATE);
    }

    private List<JsonNode> items(Attributes a, String type) {
        List<JsonNode> out = new ArrayList<>();
        for (ObjectNode range : cluster.list("", "limitranges", a.namespace())) {
            for (JsonNode item : range.path("spec").path("limits")) {
                if (type.equals(item.path("type").asString("Container"))) {
                    out.add(item);
                }
            }
        }
        return out;
    }

    @Override
    public void admit(Attributes a) {
        if (a.operation() != Attributes.Operation.CREATE) {
            return;
        }
        List<JsonNode> ranges = items(a, "Container");
        for (ObjectNode c : PodResources.containers(a.object().path("spec"))) {
            ObjectNode resources = Json.child(c, "resources");
            for (JsonNode item : ranges) {
                JsonNode defaultLimit = item.path("default");
                JsonNode defaultRequest = item.has("defaultRequest") ? item.get("defaultRequest") : defaultLimit;
                defaultLimit.properties().forEach(e -> {
                    if (!resources.path("limits").has(e.getKey())) {
                        Json.child(resources, "limits").set(e.getKey(), e.getValue());
                    }
                });
                defaultRequest.properties().forEach(e -> {
                    if (!resources.path("requests").has(e.getKey())) {
                        Json.child(resources, "requests").set(e.getKey(), e.getValue());
                    }
                });
            }
            if (!ranges.isEmpty()) {
                resources.path("limits").properties().forEach(e -> {
                    if (!resources.path("requests").has(e.getKey())) {
                        Json.child(resources, "requests").set(e.getKey(), e.getValue());
                    }
                });
            }
        }
    }

    @Override
    public void validate(Attributes a) {
        List<String> violations = new ArrayList<>();
        JsonNode spec = a.object().path("spec");
        for (JsonNode item : items(a, "Container")) {
            for (ObjectNode c : PodResources.containers(spec)) {
                check(item, "Container", PodResources.of(c, "requests"), PodResources.of(c, "limits"), violations);
            }
        }
        for (JsonNode item : items(a, "Pod")) {
            check(item, "Pod", PodResources.total(spec, "requests"), PodResources.total(spec, "limits"), violations);
        }
        if (!violations.isEmpty()) {
            throw ApiException.forbidden(a.group(), a.resource(), a.name(), violations.size() == 1 ? violations.get(0)
                    : "[" + String.join(", ", violations) + "]");
        }
    }

    private static void check(JsonNode item, String scope, Map<String, BigDecimal> requests,
                              Map<String, BigDecimal> limits, List<String> violations) {
        item.path("min").properties().forEach(e -> {
            BigDecimal min = Quantities.parse(e.getValue().asString());
            BigDecimal req = requests.get(e.getKey());
            if (req == null) {
                violations.add("minimum " + e.getKey() + " usage per " + scope + " is " + Quantities.format(min)
                        + ".  No request is specified");
            } else if (req.compareTo(min) < 0) {
                violations.add("minimum " + e.getKey() + " usage per " + scope + " is " + Quantities.format(min)
                        + ", but request is " + Quantities.format(req));
            }
        });
        item.path("max").properties().forEach(e -> {
            BigDecimal max = Quantities.parse(e.getValue().asString());
            BigDecimal lim = limits.get(e.getKey());
            if (lim == null) {
                violations.add("maximum " + e.getKey() + " usage per " + scope + " is " + Quantities.format(max)
                        + ".  No limit is specified");
            } else if (lim.compareTo(max) > 0) {
                violations.add("maximum " + e.getKey() + " usage per " + scope + " is " + Quantities.format(max)
                        + ", but limit is " + Quantities.format(lim));
            }
        });
        item.path("maxLimitRequestRatio").properties().forEach(e -> {
            BigDecimal ratio = Quantities.parse(e.getValue().asString());
            BigDecimal lim = limits.get(e.getKey());
            BigDecimal req = requests.get(e.getKey());
            if (lim != null && req != null && req.signum() > 0) {
                BigDecimal actual = lim.divide(req, 6, RoundingMode.HALF_UP);
                if (actual.compareTo(ratio) > 0) {
                    violations.add(e.getKey() + " max limit to request ratio per " + scope + " is "
                            + Quantities.format(ratio) + ", but provided ratio is " + actual.toPlainString());
                }
            }
        });
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.apiserver.internal.registry.KindDefinitions;
import io.cybernetes.apiserver.internal.registry.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type checking kube-apiserver reports in a ValidatingAdmissionPolicy's status: each expression's
 * references to fields of {@code object} and {@code oldObject} are checked against the schema of every
 * kind the policy's resourceRules name exactly (at most ten), and a field no such kind has is a warning in
 * {@code status.typeChecking.expressionWarnings}; {@code status.observedGeneration} says which generation
 * was checked. Every replica runs one; their writes are the same.
 */
@Component
class PolicyTypeChecker implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PolicyTypeChecker.class);
    private static final WriteOptions WRITE = WriteOptions.server("validatingadmissionpolicy-status-controller");
    private static final Pattern FIELDS = Pattern.compile("\\b(object|oldObject)((?:\\s*\\.\\s*[A-Za-z_][A-Za-z0-9_]*)+)");
    private static final int MAX_TYPES = 10;

    private final ResourceService service;
    private final ResourceRegistry registry;
    private final KindDefinitions definitions;
    private final ResourceType policies;
    private StoreReflector reflector;
    private volatile boolean running;

    PolicyTypeChecker(ResourceService service, ResourceRegistry registry, KindDefinitions definitions) {
        this.service = service;
        this.registry = registry;
        this.definitions = definitions;
        this.policies = registry.byPath("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies")
                .orElseThrow();
    }

    @Override
    public void start() {
        reflector = new StoreReflector(service.store(), policies, new StoreReflector.Handler() {
            @Override
            public void upsert(String key, ObjectNode object) {
                check(object);
            }

            @Override
            public void delete(String key, ObjectNode lastState) {
            }
        });
        reflector.start();
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        if (reflector != null) {
            reflector.stop();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void check(ObjectNode policy) {
        long generation = policy.path("metadata").path("generation").asLong(1);
        if (policy.path("status").path("observedGeneration").asLong(0) == generation) {
            return;
        }
        ArrayNode warnings = warnings(policy.path("spec"));
        String name = Json.text(policy, "metadata.name");
        try {
            service.guaranteedUpdate(policies, null, name, "status", 0, WRITE, cur -> {
                if (cur.path("metadata").path("generation").asLong(1) != generation) {
                    return cur; // a newer generation is on its way here
                }
                ObjectNode status = Json.child(cur, "status");
                status.put("observedGeneration", generation);
                Json.child(status, "typeChecking").set("expressionWarnings", warnings);
                return cur;
            });
        } catch (RuntimeException e) {
            log.info("could not record the type checking of ValidatingAdmissionPolicy {}: {}", name, e.getMessage());
        }
    }

    /** The warnings for every expression of the policy, against every kind it names. */
    ArrayNode warnings(JsonNode spec) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        List<ResourceType> kinds = kinds(spec.path("matchConstraints"));
        List<String[]> expressions = new ArrayList<>();
        JsonNode validations = spec.path("validations");
        for (int i = 0; i < validations.size(); i++) {
            expressions.add(new String[] {"spec.validations[" + i + "].expression",
                    validations.get(i).path("expression").asString("")});
            expressions.add(new String[] {"spec.validations[" + i + "].messageExpression",
                    validations.get(i).path("messageExpression").asString("")});
        }
        for (String list : List.of("matchConditions", "variables")) {
            JsonNode items = spec.path(list);
            for (int i = 0; i < items.size(); i++) {
                expressions.add(new String[] {"spec." + list + "[" + i + "].expression",
                        items.get(i).path("expression").asString("")});
            }
        }
        JsonNode annotations = spec.path("auditAnnotations");
        for (int i = 0; i < annotations.size(); i++) {
            expressions.add(new String[] {"spec.auditAnnotations[" + i + "].valueExpression",
                    annotations.get(i).path("valueExpression").asString("")});
        }
        for (String[] e : expressions) {
            List<String> problems = new ArrayList<>();
            for (ResourceType kind : kinds) {
                String undefined = undefinedField(e[1], definitions.schemas().of(kind));
                if (undefined != null) {
                    problems.add(kind.apiVersion() + ", Kind=" + kind.kind() + ": ERROR: " + undefined);
                }
            }
            if (!problems.isEmpty()) {
                out.addObject().put("fieldRef", e[0]).put("warning", String.join("\n", problems));
            }
        }
        return out;
    }

    /** The built-in kinds the rules name exactly (no wildcards), as Kubernetes checks at most ten of them. */
    private List<ResourceType> kinds(JsonNode match) {
        Set<ResourceType> out = new LinkedHashSet<>();
        for (JsonNode rule : match.path("resourceRules")) {
            for (JsonNode g : rule.path("apiGroups")) {
                for (JsonNode v : rule.path("apiVersions")) {
                    for (JsonNode r : rule.path("resources")) {
                        registry.byPath(g.asString(""), v.asString(""), r.asString(""))
                                .filter(t -> definitions.schemas().custom(t) == null).ifPresent(out::add);
                    }
                }
            }
        }
        return out.stream().limit(MAX_TYPES).toList();
    }

    /** The first field reference the schema does not have, worded as CEL's checker words it; null when all are. */
    static String undefinedField(String expression, Schema schema) {
        Matcher m = FIELDS.matcher(expression);
        while (m.find()) {
            Schema at = schema;
            int offset = m.start(2);
            for (String part : m.group(2).split("\\.")) {
                String field = part.trim();
                int column = expression.indexOf(field, offset);
                offset = column + field.length();
                if (field.isEmpty()) {
                    continue;
                }
                // a method call (object.metadata.name.startsWith(...)) ends the chain of fields
                if (expression.substring(offset).stripLeading().startsWith("(")) {
                    break;
                }
                if (at == null || at.type() == Schema.Type.FREE) {
                    break;
                }
                if (at.type() == Schema.Type.MAP) {
                    at = at.items();
                    continue;
                }
                if (at.type() != Schema.Type.OBJECT) {
                    break;
                }
                Schema next = at.properties().get(field);
                if (next == null) {
                    return "<input>:1:" + (column + 1) + ": undefined field '" + field + "'";
                }
                at = next;
            }
        }
        return null;
    }
}

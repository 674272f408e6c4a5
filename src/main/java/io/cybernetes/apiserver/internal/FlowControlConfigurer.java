package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.flowcontrol.FlowControl;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps API Priority and Fairness configured as kube-apiserver does: at start creates Kubernetes'
 * bootstrap FlowSchemas and PriorityLevelConfigurations that are missing, restores the mandatory ones
 * ({@code exempt}, {@code catch-all}) to their spec and keeps the suggested ones current unless they are
 * annotated {@code apf.kubernetes.io/autoupdate-spec: "false"}; recreates a mandatory one that is deleted;
 * and hands every change of either kind to the dispatcher.
 */
@Component
class FlowControlConfigurer implements SmartLifecycle {

    static final String AUTOUPDATE = "apf.kubernetes.io/autoupdate-spec";
    private static final Logger log = LoggerFactory.getLogger(FlowControlConfigurer.class);
    private static final WriteOptions WRITE = WriteOptions.server("api-priority-and-fairness-config-producer");

    private final ResourceService service;
    private final FlowControl flowControl;
    private final ResourceType schemas;
    private final ResourceType levels;
    private final JsonNode bootstrap;
    private final Map<String, ObjectNode> schemaObjects = new ConcurrentHashMap<>();
    private final Map<String, ObjectNode> levelObjects = new ConcurrentHashMap<>();
    private final List<StoreReflector> reflectors = new ArrayList<>();
    private volatile boolean running;

    FlowControlConfigurer(ResourceService service, ResourceRegistry registry, FlowControl flowControl) {
        this.service = service;
        this.flowControl = flowControl;
        this.schemas = registry.byPath(ResourceRegistry.FLOWCONTROL, "v1", "flowschemas").orElseThrow();
        this.levels = registry.byPath(ResourceRegistry.FLOWCONTROL, "v1", "prioritylevelconfigurations")
                .orElseThrow();
        try (InputStream in = getClass().getResourceAsStream("/flowcontrol/bootstrap.yaml")) {
            this.bootstrap = Json.YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void start() {
        for (String kind : List.of("mandatory", "suggested")) {
            boolean mandatory = kind.equals("mandatory");
            bootstrap.path(kind).path("priorityLevelConfigurations").forEach(o -> ensure(levels, o, mandatory));
            bootstrap.path(kind).path("flowSchemas").forEach(o -> ensure(schemas, o, mandatory));
        }
        reflectors.add(new StoreReflector(service.store(), levels, handler(levelObjects, "priorityLevelConfigurations")));
        reflectors.add(new StoreReflector(service.store(), schemas, handler(schemaObjects, "flowSchemas")));
        reflectors.forEach(StoreReflector::start);
        running = true;
    }

    private StoreReflector.Handler handler(Map<String, ObjectNode> objects, String bootstrapList) {
        return new StoreReflector.Handler() {
            @Override
            public void upsert(String key, ObjectNode object) {
                reconfigure(objects, key, object);
                // a mandatory object's spec is the server's: a change to it is undone
                String name = Json.text(object, "metadata.name");
                for (JsonNode o : bootstrap.path("mandatory").path(bootstrapList)) {
                    if (name.equals(Json.text(o, "metadata.name")) && running
                            && !specCovers(object.path("spec"), o.path("spec"))) {
                        ensure(bootstrapList.equals("flowSchemas") ? schemas : levels, o, true);
                    }
                }
            }

            @Override
            public void delete(String key, ObjectNode lastState) {
                reconfigure(objects, key, null);
                String name = Json.text(lastState, "metadata.name");
                for (JsonNode o : bootstrap.path("mandatory").path(bootstrapList)) {
                    if (name.equals(Json.text(o, "metadata.name")) && running) {
                        ensure(bootstrapList.equals("flowSchemas") ? schemas : levels, o, true);
                    }
                }
            }
        };
    }

    /** One change, and the dispatcher configured with both kinds as they are after it (one change at a time). */
    private synchronized void reconfigure(Map<String, ObjectNode> objects, String key, ObjectNode object) {
        if (object == null) {
            objects.remove(key);
        } else {
            objects.put(key, object);
        }
        flowControl.configure(List.copyOf(schemaObjects.values()), List.copyOf(levelObjects.values()));
    }

    /** Creates the bootstrap object, or brings its spec back to the bootstrap one where Kubernetes would. */
    private void ensure(ResourceType type, JsonNode wanted, boolean mandatory) {
        ObjectNode object = ((ObjectNode) wanted).deepCopy();
        object.put("apiVersion", type.apiVersion()).put("kind", type.kind());
        Json.child(Json.child(object, "metadata"), "annotations").put(AUTOUPDATE, "true");
        String name = Json.text(object, "metadata.name");
        try {
            service.create(type, null, object.deepCopy(), WRITE);
            return;
        } catch (ApiException e) {
            if (e.code() != 409) {
                log.warn("could not create the bootstrap {} {}: {}", type.kind(), name, e.getMessage());
                return;
            }
        }
        try {
            service.guaranteedUpdate(type, null, name, 0, WRITE, cur -> {
                boolean keep = !mandatory && "false".equals(cur.path("metadata").path("annotations")
                        .path(AUTOUPDATE).asString(""));
                if (keep || specCovers(cur.path("spec"), object.path("spec"))) {
                    return cur;
                }
                cur.set("spec", object.get("spec").deepCopy());
                Json.child(Json.child(cur, "metadata"), "annotations").put(AUTOUPDATE, "true");
                return cur;
            });
        } catch (ApiException e) {
            log.warn("could not restore the bootstrap {} {}: {}", type.kind(), name, e.getMessage());
        }
    }

    /** Whether the stored spec says what the bootstrap spec says (defaults the server added aside). */
    static boolean specCovers(JsonNode stored, JsonNode wanted) {
        if (wanted.isObject()) {
            if (!stored.isObject()) {
                return false;
            }
            for (var e : wanted.properties()) {
                if (!specCovers(stored.path(e.getKey()), e.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (wanted.isNumber() && stored.isNumber()) {
            return wanted.asDouble() == stored.asDouble();
        }
        return wanted.equals(stored);
    }

    @Override
    public void stop() {
        running = false;
        reflectors.forEach(StoreReflector::stop);
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}

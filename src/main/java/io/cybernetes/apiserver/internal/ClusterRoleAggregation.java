package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.RuleResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes the rules of aggregated ClusterRoles (admin, edit, view, and any with an
 * aggregationRule) into the objects, as Kubernetes' clusterrole-aggregation controller
 * does, so that {@code kubectl get clusterrole admin -o yaml} shows what the role grants.
 * The authorizer already applies aggregation as soon as a labelled role appears; this
 * makes it visible. A change to any ClusterRole schedules one pass a moment later;
 * replicas that race write the same rules.
 */
@Component
class ClusterRoleAggregation implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ClusterRoleAggregation.class);
    private static final long SETTLE_MILLIS = 200;

    private final ResourceService service;
    private final RuleResolver rules;
    private final ResourceType clusterRoles;
    private final StoreReflector reflector;
    private final Set<String> aggregated = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile ScheduledExecutorService executor;
    private volatile boolean running;

    ClusterRoleAggregation(ResourceService service, ResourceRegistry registry, RuleResolver rules) {
        this.service = service;
        this.rules = rules;
        this.clusterRoles = registry.byPath("rbac.authorization.k8s.io", "v1", "clusterroles").orElseThrow();
        this.reflector = new StoreReflector(service.store(), clusterRoles, new StoreReflector.Handler() {
            @Override
            public void upsert(String key, ObjectNode role) {
                String name = Json.text(role, "metadata.name");
                if (role.path("aggregationRule").path("clusterRoleSelectors").isEmpty()) {
                    aggregated.remove(name);
                } else {
                    aggregated.add(name);
                }
                schedule();
            }

            @Override
            public void delete(String key, ObjectNode role) {
                aggregated.remove(Json.text(role, "metadata.name"));
                schedule();
            }
        });
    }

    /** One pass a moment after the latest change; nothing while stopped (start runs one anyway). */
    private void schedule() {
        ScheduledExecutorService ex = executor;
        if (!running || ex == null || !scheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            ex.schedule(this::pass, SETTLE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            scheduled.set(false);
        }
    }

    private void pass() {
        scheduled.set(false);
        for (String name : aggregated) {
            JsonNode wanted = Json.MAPPER.valueToTree(rules.aggregatedRules(name));
            try {
                service.guaranteedUpdate(clusterRoles, null, name, 0, WriteOptions.server("clusterrole-aggregation"),
                        role -> {
                            if (!role.path("rules").equals(wanted)) {
                                role.set("rules", wanted.deepCopy());
                            }
                            return role;
                        });
            } catch (ApiException e) {
                if (e.code() != 404) {
                    log.warn("Could not write the aggregated rules of ClusterRole {}: {}", name, e.getMessage());
                }
            }
        }
    }

    @Override
    public void start() {
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "clusterrole-aggregation");
            t.setDaemon(true);
            return t;
        });
        // a pass scheduled when the last stop shut the executor down never ran: start afresh
        scheduled.set(false);
        running = true;
        reflector.start();
        schedule();
    }

    @Override
    public void stop() {
        running = false;
        reflector.stop();
        executor.shutdownNow();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.AuthorizationFeed;
import io.cybernetes.store.Store;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the authenticators and authorizers current: reflects the objects they decide on
 * (RBAC objects, ServiceAccounts, Pods, and the Secrets and Nodes tokens may be bound
 * to) from the store into the auth module's feed.
 * Started before the web server takes requests, so the first request is judged on the
 * stored policy.
 */
@Component
class AuthorizationInformer implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AuthorizationInformer.class);

    private final List<StoreReflector> reflectors = new ArrayList<>();
    private volatile boolean running;

    AuthorizationInformer(Store store, ResourceRegistry registry, AuthorizationFeed feed) {
        List<ResourceType> types = new ArrayList<>();
        for (String plural : List.of("roles", "clusterroles", "rolebindings", "clusterrolebindings")) {
            types.add(registry.byPath("rbac.authorization.k8s.io", "v1", plural).orElseThrow());
        }
        types.add(registry.byPath("", "v1", "serviceaccounts").orElseThrow());
        types.add(registry.byPath("", "v1", "pods").orElseThrow());
        // what ServiceAccount tokens may be bound to
        types.add(registry.byPath("", "v1", "secrets").orElseThrow());
        types.add(registry.byPath("", "v1", "nodes").orElseThrow());
        for (ResourceType type : types) {
            reflectors.add(new StoreReflector(store, type, new StoreReflector.Handler() {
                @Override
                public void upsert(String key, ObjectNode object) {
                    HasMetadata o = decode(type, object);
                    if (o != null) {
                        feed.put(o);
                    }
                }

                @Override
                public void delete(String key, ObjectNode lastState) {
                    HasMetadata o = decode(type, lastState);
                    if (o != null) {
                        feed.remove(o);
                    }
                }
            }));
        }
    }

    private static HasMetadata decode(ResourceType type, ObjectNode value) {
        try {
            return Json.convert(value, type.modelClass());
        } catch (RuntimeException e) {
            log.warn("Skipping a stored {} that does not decode: {}", type.kind(), e.getMessage());
            return null;
        }
    }

    @Override
    public void start() {
        running = true;
        reflectors.forEach(StoreReflector::start);
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

    /** Before the web server (which starts in a late phase) takes requests. */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE / 2;
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ObjectNode;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives every active namespace a {@code default} ServiceAccount, and puts it back when it
 * is deleted, as Kubernetes' serviceaccounts controller does. Several replicas may race
 * to create it; the store lets one win.
 */
@Component
class DefaultServiceAccounts implements SmartLifecycle {

    static final String NAME = "default";
    private static final Logger log = LoggerFactory.getLogger(DefaultServiceAccounts.class);

    private final ResourceService service;
    private final ResourceType serviceAccounts;
    private final StoreReflector namespaces;
    private final StoreReflector accounts;
    private final Set<String> active = ConcurrentHashMap.newKeySet();
    private volatile boolean running;

    DefaultServiceAccounts(ResourceService service, ResourceRegistry registry) {
        this.service = service;
        this.serviceAccounts = registry.byPath("", "v1", "serviceaccounts").orElseThrow();
        ResourceType nsType = registry.byPath("", "v1", "namespaces").orElseThrow();
        this.namespaces = new StoreReflector(service.store(), nsType, new StoreReflector.Handler() {
            @Override
            public void upsert(String key, ObjectNode ns) {
                String name = Json.text(ns, "metadata.name");
                if (Json.text(ns, "metadata.deletionTimestamp") != null) {
                    active.remove(name);
                    return;
                }
                if (active.add(name)) {
                    ensure(name);
                }
            }

            @Override
            public void delete(String key, ObjectNode ns) {
                active.remove(Json.text(ns, "metadata.name"));
            }
        });
        this.accounts = new StoreReflector(service.store(), serviceAccounts, new StoreReflector.Handler() {
            @Override
            public void upsert(String key, ObjectNode sa) {
            }

            @Override
            public void delete(String key, ObjectNode sa) {
                String ns = Json.text(sa, "metadata.namespace");
                if (NAME.equals(Json.text(sa, "metadata.name")) && active.contains(ns)) {
                    ensure(ns);
                }
            }
        });
    }

    private void ensure(String namespace) {
        if (service.store().getCached(serviceAccounts.key(namespace, NAME)).isPresent()) {
            return;
        }
        ObjectNode sa = Json.object();
        sa.putObject("metadata").put("name", NAME);
        try {
            service.create(serviceAccounts, namespace, sa, WriteOptions.server("serviceaccount-controller"));
        } catch (ApiException e) {
            // 409: another replica (or a person) made it first; 403/404: the namespace is going away
            if (e.code() != 409 && e.code() != 403 && e.code() != 404) {
                log.warn("Could not create the default ServiceAccount in {}: {}", namespace, e.getMessage());
            }
        }
    }

    @Override
    public void start() {
        running = true;
        accounts.start();
        namespaces.start();
    }

    @Override
    public void stop() {
        running = false;
        namespaces.stop();
        accounts.stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.ApiServerEndpoints;
import io.cybernetes.auth.ClusterPki;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.List;

/**
 * What a fresh cluster has before anyone asks: the system namespaces, the RBAC bootstrap
 * policy, the default StorageClass (made once, as an addon manager's EnsureExists makes
 * it: an administrator's changes stay), a kubeconfig for the admin, and the lines that
 * tell a person how to reach the server.
 */
@Component
class Bootstrap implements ApiServerEndpoints, SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);
    private static final List<String> SYSTEM_NAMESPACES = List.of("default", "kube-system", "kube-public",
            "kube-node-lease");

    private final ResourceService service;
    private final ResourceRegistry registry;
    private final ClusterPki pki;
    private volatile int httpsPort = -1;
    private volatile int httpPort = -1;
    private volatile Path kubeconfig;

    Bootstrap(ResourceService service, ResourceRegistry registry, ClusterPki pki) {
        this.service = service;
        this.registry = registry;
        this.pki = pki;
    }

    private volatile boolean started;

    /** The system namespaces and the RBAC bootstrap policy, in place before the web server takes requests. */
    @Override
    public void start() {
        ensureNamespaces();
        new BootstrapPolicyReconciler(service, registry).reconcile();
        ensureDefaultStorageClass();
        started = true;
    }

    @Override
    public void stop() {
        started = false;
    }

    @Override
    public boolean isRunning() {
        return started;
    }

    @Override
    public int getPhase() {
        return Integer.MIN_VALUE / 2 + 1;
    }

    @EventListener
    void onReady(ApplicationReadyEvent event) {
        if (event.getApplicationContext() instanceof WebServerApplicationContext web) {
            httpPort = web.getWebServer().getPort();
            httpsPort = HttpsConnector.httpsPort(web.getWebServer());
            kubeconfig = pki.writeAdminKubeconfig("https://127.0.0.1:" + httpsPort).toAbsolutePath().normalize();
            log.info("""
                    Cybernetes is up.
                      kubectl:  export KUBECONFIG={}; kubectl get nodes
                      curl:     curl -H "Authorization: Bearer $(cat {})" http://127.0.0.1:{}/api/v1/namespaces
                      Swagger:  http://127.0.0.1:{}/swagger-ui/index.html (Authorize with the token above)""",
                    kubeconfig, kubeconfig.getParent().resolve("pki/admin.token"), httpPort, httpPort);
        }
    }

    void ensureNamespaces() {
        ResourceType ns = registry.byPath("", "v1", "namespaces").orElseThrow();
        for (String name : SYSTEM_NAMESPACES) {
            ObjectNode obj = Json.object();
            obj.putObject("metadata").put("name", name);
            try {
                service.create(ns, null, obj, WriteOptions.server("bootstrap"));
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
            }
        }
    }

    /** The simulated provisioner's class, {@value #DEFAULT_CLASS}, marked default, when it does not exist. */
    void ensureDefaultStorageClass() {
        ResourceType classes = registry.byPath("storage.k8s.io", "v1", "storageclasses").orElseThrow();
        ObjectNode obj = Json.object();
        ObjectNode meta = obj.putObject("metadata").put("name", DEFAULT_CLASS);
        meta.putObject("annotations").put(io.cybernetes.api.StorageClasses.DEFAULT_ANNOTATION, "true");
        obj.put("provisioner", SIMULATED_PROVISIONER).put("reclaimPolicy", "Delete")
                .put("volumeBindingMode", "Immediate").put("allowVolumeExpansion", true);
        try {
            service.create(classes, null, obj, WriteOptions.server("bootstrap"));
        } catch (ApiException e) {
            if (e.code() != 409) {
                throw e;
            }
        }
    }

    static final String DEFAULT_CLASS = "standard";
    static final String SIMULATED_PROVISIONER = "cybernetes.io/simulated";

    @Override
    public int httpsPort() {
        return httpsPort;
    }

    @Override
    public int httpPort() {
        return httpPort;
    }

    @Override
    public Path adminKubeconfig() {
        return kubeconfig;
    }
}

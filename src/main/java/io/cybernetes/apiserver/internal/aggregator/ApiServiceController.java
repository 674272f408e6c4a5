package io.cybernetes.apiserver.internal.aggregator;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceRegistry.GroupVersion;
import io.cybernetes.api.ResourceType;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.WriteOptions;
import io.cybernetes.auth.ClusterPki;
import io.cybernetes.auth.UserInfo;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.StoredObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What kube-apiserver's aggregator keeps up, every few seconds: an APIService for each group
 * version served here (local, always Available, labelled automanaged; those of a kind that
 * went away removed), the {@code kube-system/extension-apiserver-authentication} ConfigMap
 * that tells extension servers whom to trust, and the availability of every APIService
 * backed by a service — resolved ({@link ServiceResolver}), its discovery fetched with the
 * front-proxy credentials, the Available condition saying what failed in kube-apiserver's
 * words — with the {@link Backends} proxied to.
 */
@Component
class ApiServiceController implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ApiServiceController.class);
    static final String AUTOMANAGED = "kube-aggregator.kubernetes.io/automanaged";
    static final String AUTH_CONFIG = "extension-apiserver-authentication";
    private static final WriteOptions WRITE = WriteOptions.server("kube-apiserver");
    private static final Duration INTERVAL = Duration.ofSeconds(2);
    private static final Duration DISCOVERY_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(12);

    private final ResourceService service;
    private final ResourceRegistry registry;
    private final ResourceType apiServices;
    private final ResourceType configMaps;
    private final ServiceResolver resolver;
    private final BackendTls tls;
    private final String caPem;
    private final Backends backends;
    private final Set<String> builtIn;
    /** The clients made for each APIService, by its name, resourceVersion and address (remade when they change). */
    private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private java.util.concurrent.ExecutorService checkers;
    private ScheduledExecutorService loop;
    private volatile boolean running;
    private volatile boolean warned;

    ApiServiceController(ResourceService service, ResourceRegistry registry, ClusterPki pki, Backends backends) {
        this.service = service;
        this.registry = registry;
        this.apiServices = registry.byPath(ResourceRegistry.APIREGISTRATION, "v1", "apiservices").orElseThrow();
        this.configMaps = registry.byPath("", "v1", "configmaps").orElseThrow();
        this.resolver = new ServiceResolver(service.store(), registry);
        this.tls = new BackendTls(pki);
        this.caPem = X509Certificates.pem(pki.caCertificate());
        this.backends = backends;
        Set<String> gvs = new HashSet<>();
        ResourceRegistry.builtIn().groupVersions().forEach(gv -> gvs.add(name(gv)));
        this.builtIn = gvs;
    }

    /** An APIService's name for a group version: {@code v1.apps}, and {@code v1.} for the core group. */
    static String name(GroupVersion gv) {
        return gv.version() + "." + gv.group();
    }

    void reconcile() {
        try {
            authenticationConfig();
            Map<String, JsonNode> existing = new java.util.HashMap<>();
            for (StoredObject o : service.store().list(new ListRequest(apiServices.keyPrefix(), ListRequest.Match.ANY,
                    0, x -> true, null, 0)).items()) {
                existing.put(Json.text(o.value(), "metadata.name"), o.value());
            }
            Set<String> local = local(existing);
            Set<String> remote = new HashSet<>();
            List<java.util.concurrent.Future<?>> checks = new java.util.ArrayList<>();
            for (JsonNode api : existing.values()) {
                String name = Json.text(api, "metadata.name");
                if (api.path("spec").path("service").isObject()) {
                    remote.add(api.path("spec").path("group").asString("") + "/"
                            + api.path("spec").path("version").asString(""));
                    if (inFlight.add(name)) { // a check still under way from the last round is not doubled
                        try {
                            checks.add(checkers.submit(() -> {
                                try {
                                    remote(api);
                                } catch (RuntimeException e) {
                                    log.debug("APIService {}: the check failed: {}", name, e.toString());
                                } finally {
                                    inFlight.remove(name);
                                }
                            }));
                        } catch (java.util.concurrent.RejectedExecutionException e) {
                            inFlight.remove(name); // stopping
                        }
                    }
                } else if (local.contains(name) || !"true".equals(api.path("metadata").path("labels")
                        .path(AUTOMANAGED).asString(""))) {
                    status(name, "True", "Local", "Local APIServices are always available");
                }
            }
            backends.retainOnly(remote);
            clients.keySet().removeIf(k -> !existing.containsKey(k.substring(0, k.indexOf('|'))));
            for (var check : checks) {
                try {
                    check.get(CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                    // it goes on in the background; the next round does not start it again meanwhile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            warned = false;
        } catch (ApiException | StorageException e) {
            if (!warned) {
                warned = true;
                log.warn("could not bring the APIServices up to date (trying again every {} s): {}",
                        INTERVAL.toSeconds(), e.getMessage());
            }
        }
    }

    /** Creates an APIService for each group version served here; removes those of kinds gone. Returns their names. */
    private Set<String> local(Map<String, JsonNode> existing) {
        Set<String> names = new HashSet<>();
        List<GroupVersion> gvs = registry.groupVersions().stream()
                .filter(gv -> !gv.group().equals(ResourceRegistry.STATUS)).toList();
        for (int i = 0; i < gvs.size(); i++) {
            GroupVersion gv = gvs.get(i);
            String name = name(gv);
            names.add(name);
            if (existing.containsKey(name)) {
                continue;
            }
            boolean onStart = builtIn.contains(name) || gv.group().equals("metrics.k8s.io");
            ObjectNode obj = Json.object();
            obj.put("apiVersion", "apiregistration.k8s.io/v1");
            obj.put("kind", "APIService");
            obj.putObject("metadata").put("name", name).putObject("labels").put(AUTOMANAGED, onStart ? "onstart"
                    : "true");
            ObjectNode spec = obj.putObject("spec");
            spec.put("group", gv.group()).put("version", gv.version());
            // the core group first, then the built-in groups in the order they are served; kinds defined since lower
            spec.put("groupPriorityMinimum", gv.group().isEmpty() ? 18000 : onStart ? Math.max(100, 17900 - 100 * i)
                    : 1000);
            spec.put("versionPriority", Math.max(1, 100 - i % 50));
            try {
                service.create(apiServices, null, obj, WRITE);
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
            }
        }
        for (Map.Entry<String, JsonNode> e : existing.entrySet()) {
            if (!names.contains(e.getKey()) && !e.getValue().path("spec").path("service").isObject()
                    && "true".equals(e.getValue().path("metadata").path("labels").path(AUTOMANAGED).asString(""))) {
                try {
                    service.store().delete(apiServices.key(null, e.getKey()), 0, null);
                } catch (StorageException ex) {
                    if (!ex.isNotFound()) {
                        throw ex;
                    }
                }
            }
        }
        return names;
    }

    /** Checks a remote APIService; keeps its backend, available or not. Returns whether it is available. */
    private boolean remote(JsonNode api) {
        boolean ok = check(api);
        if (!ok) {
            JsonNode spec = api.path("spec");
            backends.put(Backends.Backend.unavailable(Json.text(api, "metadata.name"), spec.path("group").asString(""),
                    spec.path("version").asString(""), spec.path("groupPriorityMinimum").asInt(),
                    spec.path("versionPriority").asInt()));
        }
        return ok;
    }

    private boolean check(JsonNode api) {
        String name = Json.text(api, "metadata.name");
        JsonNode spec = api.path("spec");
        JsonNode svc = spec.path("service");
        String namespace = svc.path("namespace").asString("");
        String serviceName = svc.path("name").asString("");
        int port = svc.path("port").asInt(443);
        String group = spec.path("group").asString("");
        String version = spec.path("version").asString("");
        URI base;
        try {
            base = resolver.resolve(namespace, serviceName, port);
        } catch (ServiceResolver.Unresolved e) {
            status(name, "False", e.reason, e.getMessage());
            return false;
        }
        URI discovery = URI.create(base + "/apis/" + group + "/" + version);
        String failing = "failing or missing response from " + discovery + ": ";
        HttpClient http;
        try {
            // one client per what makes it: the trust, the name checked and the address (not per status write)
            String key = name + "|" + spec.path("caBundle").asString("") + "|" + spec.path("insecureSkipTLSVerify")
                    .asBoolean(false) + "|" + serviceName + "." + namespace + "|" + base;
            http = clients.get(key);
            if (http == null) {
                http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(DISCOVERY_TIMEOUT)
                        .sslContext(tls.context(spec.path("caBundle").asString(""),
                                spec.path("insecureSkipTLSVerify").asBoolean(false), serviceName + "." + namespace
                                        + ".svc")).build();
                clients.keySet().removeIf(k -> k.startsWith(name + "|"));
                clients.put(key, http);
            }
        } catch (java.security.GeneralSecurityException e) {
            status(name, "False", "FailedDiscoveryCheck", failing + e.getMessage());
            return false;
        }
        HttpRequest.Builder req = HttpRequest.newBuilder(discovery).timeout(DISCOVERY_TIMEOUT)
                .header("Accept", "application/json");
        Backends.identity(req, UserInfo.authenticated("system:kube-aggregator", "", List.of(UserInfo.MASTERS,
                UserInfo.AUTHENTICATED)));
        try {
            HttpResponse<String> r = http.send(req.GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                status(name, "False", "FailedDiscoveryCheck", failing + "bad status from " + discovery + ": "
                        + r.statusCode());
                return false;
            }
            JsonNode list = Json.MAPPER.readTree(r.body());
            if (!(list instanceof ObjectNode resources) || !resources.path("resources").isArray()) {
                status(name, "False", "FailedDiscoveryCheck", failing + "not an APIResourceList");
                return false;
            }
            backends.put(new Backends.Backend(name, group, version, spec.path("groupPriorityMinimum").asInt(),
                    spec.path("versionPriority").asInt(), base, http, resources));
            status(name, "True", "Passed", "all checks passed");
            return true;
        } catch (java.io.IOException | RuntimeException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            if (e instanceof java.net.ConnectException) {
                why = "dial tcp " + base.getHost() + ":" + base.getPort() + ": connect: connection refused";
            }
            status(name, "False", "FailedDiscoveryCheck", failing + "Get \"" + discovery + "\": " + why);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Sets the Available condition (its transition time moving only when its status does); nothing when unchanged. */
    private void status(String name, String value, String reason, String message) {
        JsonNode current = service.store().get(apiServices.key(null, name)).map(StoredObject::value).orElse(null);
        if (current == null) {
            return;
        }
        for (JsonNode c : current.path("status").path("conditions")) {
            if ("Available".equals(c.path("type").asString()) && value.equals(c.path("status").asString())
                    && reason.equals(c.path("reason").asString()) && message.equals(c.path("message").asString())) {
                return;
            }
        }
        try {
            service.guaranteedUpdate(apiServices, null, name, "status", 0, WRITE, old -> {
                ObjectNode next = old.deepCopy();
                ArrayNode conditions = Json.MAPPER.createArrayNode();
                String since = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
                for (JsonNode c : old.path("status").path("conditions")) {
                    if ("Available".equals(c.path("type").asString())) {
                        if (value.equals(c.path("status").asString())) {
                            since = c.path("lastTransitionTime").asString(since);
                        }
                    } else {
                        conditions.add(c);
                    }
                }
                ObjectNode available = conditions.addObject();
                available.put("type", "Available").put("status", value).put("lastTransitionTime", since)
                        .put("reason", reason).put("message", message);
                Json.child(next, "status").set("conditions", conditions);
                return next;
            });
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
    }

    /**
     * {@code kube-system/extension-apiserver-authentication}: the CA client certificates are
     * checked against, and the request-header settings of the front proxy (the cluster CA
     * signs its client certificate, named {@value BackendTls#PROXY_CLIENT}).
     */
    private void authenticationConfig() {
        String ca = caPem;
        ObjectNode data = Json.object();
        data.put("client-ca-file", ca);
        data.put("requestheader-client-ca-file", ca);
        data.put("requestheader-allowed-names", "[\"" + BackendTls.PROXY_CLIENT + "\"]");
        data.put("requestheader-username-headers", "[\"X-Remote-User\"]");
        data.put("requestheader-group-headers", "[\"X-Remote-Group\"]");
        data.put("requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]");
        JsonNode current = service.store().get(configMaps.key("kube-system", AUTH_CONFIG)).map(StoredObject::value)
                .orElse(null);
        if (current != null && current.path("data").equals(data)) {
            return;
        }
        if (current == null) {
            ObjectNode obj = Json.object();
            obj.put("apiVersion", "v1").put("kind", "ConfigMap");
            obj.putObject("metadata").put("name", AUTH_CONFIG).put("namespace", "kube-system");
            obj.set("data", data);
            try {
                service.create(configMaps, "kube-system", obj, WRITE);
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
            }
            return;
        }
        service.guaranteedUpdate(configMaps, "kube-system", AUTH_CONFIG, 0, WRITE, old -> {
            ObjectNode next = old.deepCopy();
            next.set("data", data);
            return next;
        });
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        // made at every start: a stopped context that starts again (a test's restart) gets fresh threads
        checkers = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "apiservice-check");
            t.setDaemon(true);
            return t;
        });
        inFlight.clear();
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "apiservices");
            t.setDaemon(true);
            return t;
        });
        loop.scheduleWithFixedDelay(() -> {
            try {
                reconcile();
            } catch (RuntimeException e) {
                log.debug("APIServices: a round failed: {}", e.toString());
            }
        }, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        running = false;
        if (loop != null) {
            loop.shutdownNow();
            checkers.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return Integer.MIN_VALUE / 2 + 10; // after the bootstrap: kube-system is there
    }
}

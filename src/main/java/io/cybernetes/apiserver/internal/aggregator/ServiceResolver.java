package io.cybernetes.apiserver.internal.aggregator;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.util.Optional;

/**
 * Where an APIService's service answers, as kube-apiserver resolves it: an ExternalName
 * service at its external name and the port asked for; any other at a ready address of its
 * EndpointSlices and the target port of the service port asked for (kube-apiserver's
 * {@code --enable-aggregator-routing}: cluster IPs route nowhere in a simulated cluster).
 * What cannot be resolved is an error in the availability controller's words.
 */
final class ServiceResolver {

    /** Why a service has no address, as the Available condition's reason and message say it. */
    static final class Unresolved extends Exception {
        final String reason;

        Unresolved(String reason, String message) {
            super(message);
            this.reason = reason;
        }
    }

    private final Store store;
    private final ResourceType services;
    private final ResourceType slices;

    ServiceResolver(Store store, ResourceRegistry registry) {
        this.store = store;
        this.services = registry.byPath("", "v1", "services").orElseThrow();
        this.slices = registry.byPath("discovery.k8s.io", "v1", "endpointslices").orElseThrow();
    }

    URI resolve(String namespace, String name, int port) throws Unresolved {
        JsonNode svc = store.get(services.key(namespace, name)).map(StoredObject::value).orElseThrow(() ->
                new Unresolved("ServiceNotFound", "service/" + name + " in \"" + namespace + "\" is not present"));
        JsonNode servicePort = null;
        for (JsonNode p : svc.path("spec").path("ports")) {
            if (p.path("port").asInt() == port) {
                servicePort = p;
            }
        }
        if ("ExternalName".equals(svc.path("spec").path("type").asString(""))) {
            return URI.create("https://" + host(svc.path("spec").path("externalName").asString("")) + ":" + port);
        }
        if (servicePort == null) {
            throw new Unresolved("ServicePortError", "service/" + name + " in \"" + namespace
                    + "\" is not listening on port " + port);
        }
        String portName = servicePort.path("name").asString("");
        for (StoredObject o : store.list(new ListRequest(slices.keyPrefix(namespace), ListRequest.Match.ANY, 0,
                x -> name.equals(x.path("metadata").path("labels").path("kubernetes.io/service-name").asString("")),
                null, 0)).items()) {
            JsonNode slice = o.value();
            Optional<Integer> target = targetPort(slice, portName);
            if (target.isEmpty()) {
                continue;
            }
            for (JsonNode e : slice.path("endpoints")) {
                if (e.path("conditions").path("ready").asBoolean(true) && !e.path("addresses").isEmpty()) {
                    return URI.create("https://" + host(e.path("addresses").get(0).asString()) + ":" + target.get());
                }
            }
        }
        throw new Unresolved("MissingEndpoints", "endpoints for service/" + name + " in \"" + namespace
                + "\" have no addresses with port name \"" + portName + "\"");
    }

    private static Optional<Integer> targetPort(JsonNode slice, String portName) {
        for (JsonNode p : slice.path("ports")) {
            if (p.path("name").asString("").equals(portName) && p.hasNonNull("port")) {
                return Optional.of(p.path("port").asInt());
            }
        }
        return Optional.empty();
    }

    private static String host(String address) {
        return address.contains(":") && !address.startsWith("[") ? "[" + address + "]" : address;
    }
}

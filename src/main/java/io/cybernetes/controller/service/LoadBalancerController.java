package io.cybernetes.controller.service;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.Keys;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Load balancers for Services of type LoadBalancer, as a cloud's service controller with a
 * MetalLB-style address pool would give them: each such Service (without a
 * {@code loadBalancerClass}, which names someone else's) gets the cleanup finalizer and an
 * address of the pool in {@code status.loadBalancer.ingress} — the one it asks for with
 * {@code spec.loadBalancerIP} or the {@code metallb.universe.tf/loadBalancerIPs} annotation
 * if that is in the pool and free, else the first free one; a Service that stops being one
 * (another type, deleted) has its address given back, its status cleared and the finalizer
 * removed. Events as Kubernetes' service controller records them; an address that cannot be
 * had is a warning event, retried when addresses are given back. One worker, so two
 * Services never get the same address.
 */
public final class LoadBalancerController implements Reconciler {

    public static final String NAME = "service-lb";
    public static final String FINALIZER = "service.kubernetes.io/load-balancer-cleanup";
    public static final String REQUESTED = "metallb.universe.tf/loadBalancerIPs";
    static final Duration RETRY = Duration.ofSeconds(30);

    private final ApiClient client;
    private final Indexer<Service> services;
    private final AddressPool pool;
    private final EventRecorder events;
    /** Addresses handed out by this controller that the cache may not show yet, by Service key. */
    private final Map<String, String> assigned = new ConcurrentHashMap<>();
    /** Services that found no address: queued again whenever one is given back. */
    private final Set<String> waiting = ConcurrentHashMap.newKeySet();
    private volatile Controller controller;

    public LoadBalancerController(ApiClient client, Indexer<Service> services, List<String> pool, EventRecorder events) {
        this.client = client;
        this.services = services;
        this.pool = AddressPool.parse(pool);
        this.events = events;
    }

    /** Refuses a pool that cannot be read, at start rather than when the controller first runs. */
    public static void checkPool(List<String> pool) {
        AddressPool.parse(pool);
    }

    @Override
    public Result reconcile(Request request) {
        String key = request.key();
        Service svc = services.get(key).orElse(null);
        if (svc == null) {
            release(key);
            return Result.DONE;
        }
        boolean wanted = "LoadBalancer".equals(svc.getSpec().getType()) && svc.getSpec().getLoadBalancerClass() == null
                && svc.getMetadata().getDeletionTimestamp() == null;
        if (!wanted) {
            cleanUp(key, svc);
            return Result.DONE;
        }
        if (!finalizers(svc).contains(FINALIZER)) {
            List<String> f = new ArrayList<>(finalizers(svc));
            f.add(FINALIZER);
            svc = setFinalizers(svc, f);
        }
        String current = ingressIp(svc);
        if (current != null && pool.contains(current) && !inUse(key).contains(current)) {
            assigned.put(key, current);
            waiting.remove(key);
            return Result.DONE;
        }
        String asked = requested(svc);
        String ip;
        if (asked != null) {
            if (!pool.contains(asked)) {
                return refuse(key, svc, "\"" + asked + "\" is not allowed in config");
            }
            if (inUse(key).contains(asked)) {
                return refuse(key, svc, "\"" + asked + "\" is already in use");
            }
            ip = asked;
        } else {
            ip = pool.firstFree(inUse(key));
            if (ip == null) {
                return refuse(key, svc, "no available IPs");
            }
        }
        events.normal(svc, "EnsuringLoadBalancer", "Ensuring load balancer");
        assigned.put(key, ip);
        waiting.remove(key);
        Service copy = Json.convert(Json.toTree(svc), Service.class);
        LoadBalancerIngress ingress = new LoadBalancerIngress();
        ingress.setIp(ip);
        ingress.setIpMode("VIP");
        status(copy).getLoadBalancer().setIngress(new ArrayList<>(List.of(ingress)));
        client.updateStatus(copy);
        events.normal(svc, "EnsuredLoadBalancer", "Ensured load balancer");
        return Result.DONE;
    }

    private Result refuse(String key, Service svc, String why) {
        release(key);
        waiting.add(key);
        events.warning(svc, "AllocationFailed", "Failed to allocate IP for \"" + key + "\": " + why);
        return Result.after(RETRY);
    }

    /** No longer a load balancer of the pool's: the address given back, the status cleared, the finalizer gone. */
    private void cleanUp(String key, Service svc) {
        String ip = ingressIp(svc);
        boolean ours = ip != null && (pool.contains(ip) || ip.equals(assigned.get(key)));
        boolean finalizer = finalizers(svc).contains(FINALIZER);
        if (!ours && !finalizer) {
            release(key);
            return;
        }
        if (finalizer) {
            events.normal(svc, "DeletingLoadBalancer", "Deleting load balancer");
        }
        if (ours && svc.getSpec().getLoadBalancerClass() == null) {
            Service copy = Json.convert(Json.toTree(svc), Service.class);
            status(copy).getLoadBalancer().setIngress(null);
            try {
                svc = client.updateStatus(copy);
            } catch (ApiException e) {
                if (e.code() != 404) {
                    throw e;
                }
                release(key);
                return;
            }
        }
        if (finalizer) {
            List<String> f = new ArrayList<>(finalizers(svc));
            f.remove(FINALIZER);
            setFinalizers(svc, f);
            events.normal(svc, "DeletedLoadBalancer", "Deleted load balancer");
        }
        release(key);
    }

    private void release(String key) {
        waiting.remove(key);
        if (assigned.remove(key) != null && controller != null) {
            waiting.forEach(controller::enqueue);
        }
    }

    /** The addresses held by other Services: in their status, or handed out and not yet seen there. */
    private Set<String> inUse(String except) {
        Set<String> used = new HashSet<>();
        for (Service s : services.list()) {
            String k = Keys.of(s);
            String ip = ingressIp(s);
            if (!k.equals(except) && ip != null) {
                used.add(ip);
            }
        }
        assigned.forEach((k, ip) -> {
            if (!k.equals(except)) {
                used.add(ip);
            }
        });
        return used;
    }

    private static String requested(Service svc) {
        Map<String, String> annotations = svc.getMetadata().getAnnotations();
        String annotated = annotations == null ? null : annotations.get(REQUESTED);
        if (annotated != null && !annotated.isBlank()) {
            return annotated.split(",")[0].trim();
        }
        String ip = svc.getSpec().getLoadBalancerIP();
        return ip == null || ip.isEmpty() ? null : ip;
    }

    private static String ingressIp(Service svc) {
        if (svc.getStatus() == null || svc.getStatus().getLoadBalancer() == null
                || svc.getStatus().getLoadBalancer().getIngress() == null) {
            return null;
        }
        return svc.getStatus().getLoadBalancer().getIngress().stream().map(LoadBalancerIngress::getIp)
                .filter(Objects::nonNull).findFirst().orElse(null);
    }

    private static ServiceStatus status(Service svc) {
        if (svc.getStatus() == null) {
            svc.setStatus(new ServiceStatus());
        }
        if (svc.getStatus().getLoadBalancer() == null) {
            svc.getStatus().setLoadBalancer(new LoadBalancerStatus());
        }
        return svc.getStatus();
    }

    private static List<String> finalizers(Service svc) {
        return Objects.requireNonNullElse(svc.getMetadata().getFinalizers(), List.of());
    }

    /** Replaces the finalizers; the resourceVersion in the patch makes it fail if the Service changed meanwhile. */
    private Service setFinalizers(Service svc, List<String> finalizers) {
        return client.patch(Service.class, svc.getMetadata().getNamespace(), svc.getMetadata().getName(),
                "{\"metadata\":{\"resourceVersion\":\"" + svc.getMetadata().getResourceVersion() + "\",\"finalizers\":"
                        + Json.write(Json.MAPPER.valueToTree(finalizers)) + "}}");
    }

    /**
     * Every change queues its Service; one whose address is gone from its status (seen by
     * this cache at last) also queues the Services waiting for an address.
     */
    public ResourceEventHandler<Service> serviceHandler(Controller c) {
        this.controller = c;
        ResourceEventHandler<Service> each = c.enqueueOnEveryChange();
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Service obj) {
                each.onAdd(obj);
            }

            @Override
            public void onUpdate(Service oldObj, Service newObj) {
                each.onUpdate(oldObj, newObj);
                String was = ingressIp(oldObj);
                if (was != null && !was.equals(ingressIp(newObj))) {
                    waiting.forEach(c::enqueue);
                }
            }

            @Override
            public void onDelete(Service lastKnown, boolean finalStateUnknown) {
                each.onDelete(lastKnown, finalStateUnknown);
                if (ingressIp(lastKnown) != null) {
                    waiting.forEach(c::enqueue);
                }
            }
        };
    }
}

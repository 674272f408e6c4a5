package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.RequestReader;
import io.cybernetes.api.ApiException;
import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.flowcontrol.FlowControl;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RequestAttributesResolver;
import io.cybernetes.auth.UserInfo;
import io.cybernetes.store.Store;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.Semaphore;

/**
 * Bounds the requests being served at once with API Priority and Fairness ({@link FlowControl}): each
 * request is classified by the FlowSchemas into a priority level and a flow, answered with the
 * {@code X-Kubernetes-PF-FlowSchema-UID} and {@code X-Kubernetes-PF-PriorityLevel-UID} headers, and
 * served once its level has seats for it (a LIST of many objects takes several), after waiting its turn
 * in the level's queues if need be; a full queue, a level that rejects, or a wait past the limit is
 * answered 429 with {@code Retry-After}, which kubectl and client-go retry by themselves. It counts
 * requests while they are served, after authentication and once their body is in (a body still
 * arriving holds nothing). Long-running requests do not count: watches not at all, streams to nodes (a
 * pod's log, exec, attach, port-forward, a node's proxy) against a limit of their own, so that people
 * following logs never starve the server of ordinary requests, nor the other way round; a stream
 * upgraded to a session holds its permit until the session ends ({@link LongRunningPermit}).
 */
final class MaxInFlightFilter extends OncePerRequestFilter {

    private final FlowControl flowControl;
    private final RequestAttributesResolver resolver;
    private final ResourceRegistry registry;
    private final Store store;
    private final Semaphore streamPermits;
    private final int limit;
    private final int streamLimit;

    MaxInFlightFilter(ApiServerProperties props, FlowControl flowControl, RequestAttributesResolver resolver,
                      ResourceRegistry registry, Store store) {
        this.limit = props.maxRequestsInFlight();
        this.streamLimit = props.maxLongRunningRequests();
        this.flowControl = flowControl;
        this.resolver = resolver;
        this.registry = registry;
        this.store = store;
        this.streamPermits = new Semaphore(Math.max(1, streamLimit));
    }

    /** Kube-apiserver's long-running subresources: a stream from the node for as long as it lasts. */
    private static final Set<String> STREAMS = Set.of("log", "exec", "attach", "portforward", "proxy");

    static boolean isStream(HttpServletRequest request) {
        String[] p = request.getRequestURI().split("/");
        // "", api, v1, namespaces, NS, pods, NAME, SUB[, ...]  or  "", api, v1, nodes, NAME, proxy[, ...]
        if (p.length >= 8 && "api".equals(p[1]) && "namespaces".equals(p[3]) && "pods".equals(p[5])) {
            return STREAMS.contains(p[7]);
        }
        return p.length >= 6 && "api".equals(p[1]) && "nodes".equals(p[3]) && "proxy".equals(p[5]);
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String watch = request.getParameter("watch");
        return RequestReader.isTrue(watch)
                || (request.getDispatcherType() == DispatcherType.ASYNC && RequestBodyFilter.bodyOf(request) == null);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (isStream(request)) {
            stream(request, response, chain);
            return;
        }
        UserInfo user = (UserInfo) request.getAttribute(UserInfo.REQUEST_ATTRIBUTE);
        RequestAttributes attributes = request.getAttribute(RequestAttributes.REQUEST_ATTRIBUTE) instanceof
                RequestAttributes known ? known : resolver.resolve(request, user == null ? UserInfo.anonymous() : user);
        FlowControl.Classification c = flowControl.classify(attributes);
        if (c == null) {
            chain.doFilter(request, response);
            return;
        }
        response.setHeader("X-Kubernetes-PF-FlowSchema-UID", c.flowSchemaUid());
        response.setHeader("X-Kubernetes-PF-PriorityLevel-UID", c.priorityLevelUid());
        if (limit <= 0 || flowControl.exempt(c)) {
            chain.doFilter(request, response);
            return;
        }
        FlowControl.Ticket ticket;
        try {
            ticket = flowControl.acquire(c, seats(request, attributes, flowControl.maxSeats(c)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ticket = null;
        }
        if (ticket == null) {
            tooMany(response);
            return;
        }
        try {
            chain.doFilter(request, response);
        } finally {
            flowControl.release(ticket);
        }
    }

    /**
     * The seats a request takes: one, but a LIST as many as it may return objects by the hundred (its
     * limit, else what the watch cache holds there), up to the level's maximum, as Kubernetes' work estimator.
     */
    private int seats(HttpServletRequest request, RequestAttributes a, int max) {
        if (!a.resourceRequest() || !"list".equals(a.verb())) {
            return 1;
        }
        long objects = registry.byPath(a.apiGroup(), a.apiVersion(), a.resource()).filter(ResourceType::stored)
                .map(t -> store.count(t.keyPrefix(a.namespace().isEmpty() ? null : a.namespace()))).orElse(0L);
        String limitParam = request.getParameter("limit");
        if (limitParam != null && limitParam.matches("[0-9]{1,9}") && Long.parseLong(limitParam) > 0) {
            objects = Math.min(objects, Long.parseLong(limitParam));
        }
        return (int) Math.max(1, Math.min(max, (objects + 99) / 100));
    }

    private static void tooMany(HttpServletResponse response) throws IOException {
        ApiException e = ApiException.tooManyRequests("Too many requests, please try again later.", 1);
        response.setStatus(e.code());
        response.setHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
        response.setContentType("application/json");
        response.getOutputStream().write(e.toBytes());
    }

    private void stream(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (streamLimit <= 0) {
            chain.doFilter(request, response);
            return;
        }
        if (!streamPermits.tryAcquire()) {
            tooMany(response);
            return;
        }
        LongRunningPermit permit = new LongRunningPermit(streamPermits);
        request.setAttribute(LongRunningPermit.ATTRIBUTE, permit);
        try {
            chain.doFilter(request, response);
        } finally {
            if (!permit.handedOff()) {
                permit.release();
            }
        }
    }
}

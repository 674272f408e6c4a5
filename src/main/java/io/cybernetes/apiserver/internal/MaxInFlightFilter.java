package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.RequestReader;
import io.cybernetes.apiserver.internal.handlers.WatchStreamer;
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
 * arriving holds nothing). A watch counts until it is initialized, as in Kubernetes: it holds its seats
 * (several when it asked for its initial events as a watch-list) until those events are sent, then
 * streams for as long as it lasts without any. Streams to nodes (a pod's log, exec, attach,
 * port-forward, a node's proxy) count against a limit of their own, so that people following logs never
 * starve the server of ordinary requests, nor the other way round; a stream upgraded to a session holds
 * its permit until the session ends ({@link LongRunningPermit}).
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
        return request.getDispatcherType() == DispatcherType.ASYNC && RequestBodyFilter.bodyOf(request) == null;
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
        if (!isWatch(attributes)) {
            try {
                chain.doFilter(request, response);
            } finally {
                flowControl.release(ticket);
            }
            return;
        }
        // a watch that starts streaming takes its seats along and gives them back once initialized
        FlowControl.Ticket held = ticket;
        Runnable initialized = once(() -> flowControl.release(held));
        request.setAttribute(WatchStreamer.INITIALIZATION, initialized);
        try {
            chain.doFilter(request, response);
        } finally {
            if (request.getAttribute(WatchStreamer.INITIALIZATION) != null) {
                request.removeAttribute(WatchStreamer.INITIALIZATION);
                initialized.run();
            }
        }
    }

    private static boolean isWatch(RequestAttributes a) {
        return a.resourceRequest() && "watch".equals(a.verb());
    }

    /** Runs the action the first time it is run, on whichever thread, and never again. */
    private static Runnable once(Runnable action) {
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (done.compareAndSet(false, true)) {
                action.run();
            }
        };
    }

    /** The seats a request takes: one, but a LIST or a watch-list by the objects it goes through. */
    private int seats(HttpServletRequest request, RequestAttributes a, int max) {
        if (!a.resourceRequest() || !("list".equals(a.verb()) || isWatch(a))) {
            return 1;
        }
        return listSeats(isWatch(a), request::getParameter, () -> registry.byPath(a.apiGroup(), a.apiVersion(),
                a.resource()).filter(ResourceType::stored).map(t -> store.count(t.keyPrefix(a.namespace().isEmpty()
                ? null : a.namespace()))).orElse(0L), max);
    }

    /**
     * Kubernetes' list work estimate: one seat per hundred objects the request goes through, from one to
     * {@code max}. One seat for a request of one object by name ({@code fieldSelector=metadata.name=...}) and
     * for a watch that does not ask for its initial events as a watch-list; a list served from the watch
     * cache goes through every object stored there (whatever its limit), one served from storage (an exact
     * resourceVersion, a continue token) through twice its limit, or all stored plus its limit when it
     * selects.
     */
    static int listSeats(boolean watch, java.util.function.Function<String, String> parameter,
                         java.util.function.LongSupplier stored, int max) {
        if (namesOne(parameter.apply("fieldSelector"))
                || (watch && !RequestReader.isTrue(parameter.apply("sendInitialEvents")))) {
            return 1;
        }
        String limitParam = parameter.apply("limit");
        long asked = 0;
        if (!isEmpty(limitParam)) {
            try {
                asked = Long.parseLong(limitParam);
            } catch (NumberFormatException invalid) {
                return max; // bound to fail validation: as Kubernetes, the most it may take
            }
        }
        long count = stored.getAsLong();
        long limit = asked > 0 ? Math.min(count, asked) : count;
        long objects;
        if (watch || !fromStorage(parameter, asked)) {
            objects = count;
        } else if (!isEmpty(parameter.apply("fieldSelector")) || !isEmpty(parameter.apply("labelSelector"))) {
            objects = count + limit;
        } else {
            objects = 2 * limit;
        }
        return (int) Math.max(1, Math.min(max, (objects + 99) / 100));
    }

    /** Whether a list is served from storage rather than the watch cache, by Kubernetes' rules. */
    private static boolean fromStorage(java.util.function.Function<String, String> parameter, long limit) {
        String match = parameter.apply("resourceVersionMatch");
        String rv = parameter.apply("resourceVersion");
        if (!isEmpty(match) && !match.equals("NotOlderThan")) {
            return true; // Exact, or one that fails validation
        }
        if (isEmpty(match) && limit > 0 && !isEmpty(rv) && !rv.equals("0")) {
            return true; // the legacy exact match
        }
        return !isEmpty(parameter.apply("continue"));
    }

    /** Whether a field selector requires one name exactly, as Kubernetes' RequestInfo reads it. */
    private static boolean namesOne(String fieldSelector) {
        if (isEmpty(fieldSelector)) {
            return false;
        }
        for (String term : fieldSelector.split(",")) {
            String t = term.trim();
            String value = t.startsWith("metadata.name==") ? t.substring("metadata.name==".length())
                    : t.startsWith("metadata.name=") ? t.substring("metadata.name=".length()) : "";
            if (!value.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
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

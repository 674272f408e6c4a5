package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.RequestReader;
import io.cybernetes.api.ApiException;
import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.auth.UserInfo;
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
 * Bounds the requests being served at once, as kube-apiserver's max-requests-inflight
 * does: past the limit a request is answered 429 with {@code Retry-After}, which kubectl
 * and client-go retry by themselves. It counts requests while they are served, after
 * authentication and once their body is in (a body still arriving holds nothing), and
 * it knows who asks, as API Priority and Fairness' built-in levels do: members of
 * {@code system:masters} are exempt, and the control plane's own components (nodes, the
 * controller manager, the scheduler) have a pool of their own, so that no number of
 * tenants' requests keeps the cluster's administrators or its control loops waiting.
 * Long-running requests do not count: watches not at all, streams to nodes (a pod's log,
 * exec, attach, port-forward, a node's proxy) against a limit of their own, so that people
 * following logs never starve the server of ordinary requests, nor the other way round; a
 * stream upgraded to a session holds its permit until the session ends ({@link LongRunningPermit}).
 */
final class MaxInFlightFilter extends OncePerRequestFilter {

    private static final Set<String> COMPONENTS = Set.of("system:kube-controller-manager", "system:kube-scheduler");

    private final Semaphore permits;
    private final Semaphore componentPermits;
    private final Semaphore streamPermits;
    private final int limit;
    private final int streamLimit;

    MaxInFlightFilter(ApiServerProperties props) {
        this.limit = props.maxRequestsInFlight();
        this.streamLimit = props.maxLongRunningRequests();
        this.permits = new Semaphore(Math.max(1, limit));
        this.componentPermits = new Semaphore(Math.max(1, limit));
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
        UserInfo user = (UserInfo) request.getAttribute(UserInfo.REQUEST_ATTRIBUTE);
        if (user != null && user.inGroup(UserInfo.MASTERS)) {
            chain.doFilter(request, response);
            return;
        }
        boolean stream = isStream(request);
        if (stream ? streamLimit <= 0 : limit <= 0) {
            chain.doFilter(request, response);
            return;
        }
        Semaphore pool = stream ? streamPermits
                : user != null && (user.inGroup(UserInfo.NODES) || COMPONENTS.contains(user.name()))
                ? componentPermits : permits;
        if (!pool.tryAcquire()) {
            ApiException e = ApiException.tooManyRequests("Too many requests, please try again later.", 1);
            response.setStatus(e.code());
            response.setHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
            response.setContentType("application/json");
            response.getOutputStream().write(e.toBytes());
            return;
        }
        if (!stream) {
            try {
                chain.doFilter(request, response);
            } finally {
                pool.release();
            }
            return;
        }
        LongRunningPermit permit = new LongRunningPermit(pool);
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

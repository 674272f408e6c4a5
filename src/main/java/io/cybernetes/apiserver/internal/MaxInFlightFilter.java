package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.apiserver.ApiServerProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.concurrent.Semaphore;

/**
 * Bounds the requests being served at once, as kube-apiserver's max-requests-inflight
 * does: past the limit a request is answered 429 with {@code Retry-After}, which kubectl
 * and client-go retry by themselves. Long-running watches do not count.
 */
final class MaxInFlightFilter extends OncePerRequestFilter {

    private final Semaphore permits;
    private final int limit;

    MaxInFlightFilter(ApiServerProperties props) {
        this.limit = props.maxRequestsInFlight();
        this.permits = new Semaphore(Math.max(1, limit));
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String watch = request.getParameter("watch");
        return limit <= 0 || "true".equals(watch) || "1".equals(watch);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!permits.tryAcquire()) {
            ApiException e = ApiException.tooManyRequests("Too many requests, please try again later.", 1);
            response.setStatus(e.code());
            response.setHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
            response.setContentType("application/json");
            response.getOutputStream().write(Json.MAPPER.writeValueAsBytes(e.toStatus()));
            return;
        }
        try {
            chain.doFilter(request, response);
        } finally {
            permits.release();
        }
    }
}

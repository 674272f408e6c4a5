package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.ApiServerMetrics;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RequestAttributesResolver;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * Counts and times every request once it is answered, for {@link ApiServerMetrics}: the
 * refused ones too (it runs before authentication), a request answered later (a body
 * still arriving, a watch) when it completes.
 */
final class RequestMetricsFilter extends OncePerRequestFilter {

    private final ApiServerMetrics metrics;
    private final RequestAttributesResolver resolver;

    RequestMetricsFilter(ApiServerMetrics metrics, RequestAttributesResolver resolver) {
        this.metrics = metrics;
        this.resolver = resolver;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long started = System.nanoTime();
        try {
            chain.doFilter(request, response);
        } finally {
            if (request.isAsyncStarted()) {
                AsyncCompletion.whenComplete(request, () -> record(request, response, started));
            } else {
                record(request, response, started);
            }
        }
    }

    private void record(HttpServletRequest request, HttpServletResponse response, long startedNanos) {
        RequestAttributes a = request.getAttribute(RequestAttributes.REQUEST_ATTRIBUTE) instanceof RequestAttributes r
                ? r : resolver.resolve(request, UserInfo.anonymous());
        String contentType = request.getContentType();
        boolean apply = contentType != null && contentType.startsWith("application/apply-patch");
        metrics.requestDone(a, request.getMethod(), apply, "All".equals(request.getParameter("dryRun")),
                response.getStatus(), (System.nanoTime() - startedNanos) / 1e9);
    }
}

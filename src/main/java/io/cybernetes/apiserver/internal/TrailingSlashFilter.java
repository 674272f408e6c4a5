package io.cybernetes.apiserver.internal;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.List;

/**
 * Serves a Kubernetes path with trailing slashes as the path without them
 * ({@code /version/}, {@code /apis/apps/}, {@code /api/v1/pods/}), as kube-apiserver's
 * router trims them: clients that add one (the Python client's {@code VersionApi}) get
 * the same answer. The server's own pages ({@code /dashboard/}, {@code /swagger-ui/})
 * keep theirs.
 */
final class TrailingSlashFilter extends OncePerRequestFilter {

    private static final List<String> KUBERNETES_PATHS = List.of("/api", "/apis", "/version", "/openapi", "/healthz",
            "/livez", "/readyz", "/metrics");

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String uri = request.getRequestURI();
        return !uri.endsWith("/") || KUBERNETES_PATHS.stream().noneMatch(p -> uri.equals(p + "/")
                || uri.startsWith(p + "/"));
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String uri = request.getRequestURI();
        int end = uri.length();
        while (end > 1 && uri.charAt(end - 1) == '/') {
            end--;
        }
        if (end == uri.length()) {
            chain.doFilter(request, response);
            return;
        }
        String trimmed = uri.substring(0, end);
        chain.doFilter(new HttpServletRequestWrapper(request) {
            @Override
            public String getRequestURI() {
                return trimmed;
            }

            @Override
            public StringBuffer getRequestURL() {
                StringBuffer url = super.getRequestURL();
                url.setLength(url.length() - (uri.length() - trimmed.length()));
                return url;
            }

            @Override
            public String getServletPath() {
                String path = super.getServletPath();
                return path.length() > 1 && path.endsWith("/") ? path.replaceAll("/+$", "") : path;
            }

            @Override
            public String getPathInfo() {
                String info = super.getPathInfo();
                return info != null && info.length() > 1 && info.endsWith("/") ? info.replaceAll("/+$", "") : info;
            }
        }, response);
    }
}

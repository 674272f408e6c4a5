package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Authenticates every request but those to open paths (health, version, API docs):
 * first a bearer token, then a client certificate verified by the TLS handshake
 * against the cluster CA. Anything else is answered 401 with a Kubernetes Status.
 */
final class AuthenticationFilter extends OncePerRequestFilter {

    private static final String UNAUTHORIZED = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
            + "\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";

    private final TokenAuthenticator tokens;
    private final X509Authenticator certificates;
    private final List<String> openPaths;

    AuthenticationFilter(TokenAuthenticator tokens, X509Authenticator certificates, List<String> openPaths) {
        this.tokens = tokens;
        this.certificates = certificates;
        this.openPaths = openPaths;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getRequestURI();
        if (path.equals("/") || openPaths.stream().anyMatch(p -> path.equals(p) || path.startsWith(p + "/")
                || path.startsWith(p + "."))) {
            chain.doFilter(request, response);
            return;
        }
        Optional<UserInfo> user = authenticate(request);
        if (user.isEmpty()) {
            response.setStatus(401);
            response.setContentType("application/json");
            response.getOutputStream().write(UNAUTHORIZED.getBytes(StandardCharsets.UTF_8));
            return;
        }
        request.setAttribute(UserInfo.REQUEST_ATTRIBUTE, user.get());
        chain.doFilter(request, response);
    }

    private Optional<UserInfo> authenticate(HttpServletRequest request) {
        String auth = request.getHeader("Authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return tokens.authenticate(auth.substring(7).trim());
        }
        Object certs = request.getAttribute("jakarta.servlet.request.X509Certificate");
        if (certs instanceof X509Certificate[] chain && chain.length > 0) {
            return certificates.authenticate(chain[0]);
        }
        return Optional.empty();
    }
}

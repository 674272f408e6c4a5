package io.cybernetes.auth.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.TokenAuthenticator;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Optional;

/**
 * Authenticates every request, as kube-apiserver's authentication filter: a client
 * certificate signed by the cluster CA, else a bearer token (the admin token and the
 * tokens file, ServiceAccount JWTs, OIDC ID tokens, told apart by their issuer).
 * Credentials that do not check out are 401 wherever they are sent. A request with none
 * is {@code system:anonymous} when that is switched on; otherwise it is 401 unless it
 * goes to an open path (health, version, API docs). Impersonation headers, once
 * authorized, replace the identity the rest of the request sees; the authenticated
 * user stays on the request for audit.
 */
final class KubernetesAuthenticationFilter extends OncePerRequestFilter {

    private final TokenAuthenticator tokens;
    private final X509Authenticator certificates;
    private final OpenPaths openPaths;
    private final boolean anonymous;
    private final Impersonation impersonation;

    KubernetesAuthenticationFilter(TokenAuthenticator tokens, X509Authenticator certificates, OpenPaths openPaths,
                                   boolean anonymous, Impersonation impersonation) {
        this.tokens = tokens;
        this.certificates = certificates;
        this.openPaths = openPaths;
        this.anonymous = anonymous;
        this.impersonation = impersonation;
    }

    /**
     * The bearer token as kube-apiserver reads it: the trimmed header split at single spaces,
     * the second word being the token (words after it are ignored). Null when the header is
     * absent, not a bearer one, or carries an empty token ({@code "Bearer  x"}, with two
     * spaces): no token is presented then, as in kube.
     */
    static String bearerToken(String header) {
        String[] words = bearerWords(header);
        return words == null || words[1].isEmpty() ? null : words[1];
    }

    /** Whether the header is a bearer one whose token was lost to a space before it ({@code "Bearer  x"}). */
    static boolean spaceBeforeToken(String header) {
        String[] words = bearerWords(header);
        return words != null && words.length == 3 && words[1].isEmpty();
    }

    /** The header's first three words, split as kube-apiserver splits it; null unless it is a bearer one. */
    private static String[] bearerWords(String header) {
        if (header == null) {
            return null;
        }
        String[] words = header.strip().split(" ", 3);
        return words.length < 2 || !words[0].equalsIgnoreCase("bearer") ? null : words;
    }

    /** kube-apiserver's warning for a bearer token after more than one space, which it ignores. */
    static final String SPACE_BEFORE_TOKEN_WARNING = "299 - \"the provided Authorization header contains extra space"
            + " before the bearer token, and is ignored\"";

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        // kube-apiserver's order: the client certificate, then the bearer token; the first that authenticates
        // decides. One that does not check out (a certificate from another CA, a token nobody issued) is an error
        // that leaves the next its chance and, if none authenticates, answers 401; one that names nobody (a
        // certificate without a CN, an empty token) is as if it had not been sent
        boolean presented = false;
        Optional<UserInfo> user = Optional.empty();
        if (request.getAttribute("jakarta.servlet.request.X509Certificate") instanceof X509Certificate[] certChain
                && certChain.length > 0) {
            try {
                user = certificates.authenticate(certChain);
            } catch (CertificateException e) {
                presented = true;
            }
        }
        String header = request.getHeader("Authorization");
        String token = user.isEmpty() ? bearerToken(header) : null;
        if (token != null) {
            presented = true;
            user = tokens.authenticateToken(token);
        } else if (user.isEmpty() && spaceBeforeToken(header)) {
            response.addHeader("Warning", SPACE_BEFORE_TOKEN_WARNING);
        }
        if (!presented && anonymous) {
            user = Optional.of(UserInfo.anonymous());
        }
        if (user.isEmpty()) {
            if (presented || !openPaths.matches(request)) {
                StatusResponses.write(request, response, ApiException.unauthorized());
                return;
            }
            chain.doFilter(request, response);
            return;
        }
        request.setAttribute(UserInfo.REQUEST_ATTRIBUTE, user.get());
        UserInfo effective;
        try {
            effective = impersonation.impersonate(request, user.get()).orElse(user.get());
        } catch (ApiException refused) {
            request.setAttribute(Authorizer.DECISION_REQUEST_ATTRIBUTE, "forbid");
            request.setAttribute(Authorizer.REASON_REQUEST_ATTRIBUTE, refused.getMessage());
            StatusResponses.write(request, response, refused);
            return;
        }
        if (effective != user.get()) {
            request.setAttribute(UserInfo.IMPERSONATOR_REQUEST_ATTRIBUTE, user.get());
            request.setAttribute(UserInfo.REQUEST_ATTRIBUTE, effective);
        }
        SecurityContext context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(new UserAuthentication(effective));
        SecurityContextHolder.setContext(context);
        try {
            chain.doFilter(request, response);
        } finally {
            SecurityContextHolder.clearContext();
        }
    }
}

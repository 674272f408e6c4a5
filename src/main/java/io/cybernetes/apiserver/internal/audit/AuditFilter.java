package io.cybernetes.apiserver.internal.audit;

import io.cybernetes.api.Json;
import io.cybernetes.apiserver.internal.AsyncCompletion;
import io.cybernetes.apiserver.internal.RequestBodyFilter;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RequestAttributesResolver;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Records every request, allowed or not, as an audit.k8s.io/v1 Event line: who (user,
 * groups, source address, user agent), what (verb, request URI, object reference), the
 * authorization decision, the response code and the timestamps; with the request body
 * too where the policy says Request. Each response carries its {@code Audit-Id}. Runs
 * outside authentication, so refused credentials are recorded as well.
 */
final class AuditFilter extends OncePerRequestFilter {

    private final AuditRecorder recorder;
    private final RequestAttributesResolver resolver;

    AuditFilter(AuditRecorder recorder, RequestAttributesResolver resolver) {
        this.recorder = recorder;
        this.resolver = resolver;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Instant received = Instant.now();
        String auditId = AuditRecorder.newAuditId();
        response.setHeader("Audit-Id", auditId);
        boolean deferred = false;
        try {
            chain.doFilter(request, response);
            if (RequestBodyFilter.isReading(request)) {
                // the body is still arriving: the request is answered (and recorded) once it has
                deferred = true;
                AsyncCompletion.whenComplete(request, () -> record(request, response, auditId, received));
            }
        } finally {
            if (!deferred) {
                record(request, response, auditId, received);
            }
        }
    }

    private void record(HttpServletRequest request, HttpServletResponse response, String auditId, Instant received) {
        UserInfo user = (UserInfo) request.getAttribute(UserInfo.REQUEST_ATTRIBUTE);
        UserInfo impersonator = (UserInfo) request.getAttribute(UserInfo.IMPERSONATOR_REQUEST_ATTRIBUTE);
        RequestAttributes a = request.getAttribute(RequestAttributes.REQUEST_ATTRIBUTE) instanceof RequestAttributes known
                ? known : resolver.resolve(request, user == null ? UserInfo.anonymous() : user);
        String query = request.getQueryString();
        Object decision = request.getAttribute(Authorizer.DECISION_REQUEST_ATTRIBUTE);
        Object reason = request.getAttribute(Authorizer.REASON_REQUEST_ATTRIBUTE);
        int code = response.getStatus();
        recorder.record(new AuditRecorder.Entry(auditId, impersonator != null ? impersonator : user,
                impersonator != null ? user : null, a, request.getRequestURI() + (query == null ? "" : "?"
                + query), request.getRemoteAddr(), request.getHeader("User-Agent"), code, request.isAsyncStarted(),
                () -> jsonBody(request, code), received, decision == null ? null : decision.toString(),
                reason == null ? "" : reason.toString(), annotations(request)));
    }

    @SuppressWarnings("unchecked")
    private static java.util.Map<String, String> annotations(HttpServletRequest request) {
        Object held = request.getAttribute(AuditAnnotations.REQUEST_ATTRIBUTE);
        return held instanceof java.util.Map<?, ?> m ? (java.util.Map<String, String>) m : java.util.Map.of();
    }

    /**
     * The request body as JSON text, copied as it came: a body the server answered with
     * anything but 400 or 415 was JSON it decoded; other bodies are checked first.
     */
    private static String jsonBody(HttpServletRequest request, int code) {
        byte[] body = RequestBodyFilter.bodyOf(request);
        String type = request.getContentType();
        if (body == null || body.length == 0 || (type != null && !type.contains("json"))) {
            return null;
        }
        if (code == 400 || code == 415) {
            try {
                Json.MAPPER.readTree(body);
            } catch (RuntimeException notJson) {
                return null;
            }
        }
        return new String(body, StandardCharsets.UTF_8);
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.Json;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RequestAttributesResolver;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingRequestWrapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * Records every request, allowed or not, as an audit.k8s.io/v1 Event line: who (user,
 * groups, source address, user agent), what (verb, request URI, object reference), the
 * authorization decision, the response code and the timestamps; with the request body
 * too where the policy says Request. Each response carries its {@code Audit-Id}. Runs
 * outside authentication, so refused credentials are recorded as well.
 */
final class AuditFilter extends OncePerRequestFilter {

    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);
    private static final int MAX_LOGGED_BODY = 64 * 1024;

    private final AuditPolicy policy;
    private final AuditLog log;
    private final RequestAttributesResolver resolver;

    AuditFilter(AuditPolicy policy, AuditLog log, RequestAttributesResolver resolver) {
        this.policy = policy;
        this.log = log;
        this.resolver = resolver;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Instant received = Instant.now();
        String auditId = UUID.randomUUID().toString();
        response.setHeader("Audit-Id", auditId);
        boolean hasBody = switch (request.getMethod()) {
            case "POST", "PUT", "PATCH" -> true;
            default -> false;
        };
        HttpServletRequest req = hasBody ? new ContentCachingRequestWrapper(request, MAX_LOGGED_BODY) : request;
        try {
            chain.doFilter(req, response);
        } finally {
            record(req, response, auditId, received);
        }
    }

    private void record(HttpServletRequest request, HttpServletResponse response, String auditId, Instant received) {
        UserInfo user = (UserInfo) request.getAttribute(UserInfo.REQUEST_ATTRIBUTE);
        RequestAttributes a = resolver.resolve(request, user == null ? UserInfo.anonymous() : user);
        AuditPolicy.Level level = policy.levelFor(user == null ? a.withUser(null) : a);
        if (level == AuditPolicy.Level.NONE) {
            return;
        }
        ObjectNode e = Json.object();
        e.put("kind", "Event");
        e.put("apiVersion", "audit.k8s.io/v1");
        e.put("level", level == AuditPolicy.Level.REQUEST ? "Request" : "Metadata");
        e.put("auditID", auditId);
        e.put("stage", request.isAsyncStarted() ? "ResponseStarted" : "ResponseComplete");
        String query = request.getQueryString();
        e.put("requestURI", request.getRequestURI() + (query == null ? "" : "?" + query));
        e.put("verb", a.verb());
        ObjectNode u = e.putObject("user");
        if (user != null) {
            u.put("username", user.name());
            if (!user.uid().isEmpty()) {
                u.put("uid", user.uid());
            }
            ArrayNode groups = u.putArray("groups");
            user.groups().forEach(groups::add);
        }
        e.putArray("sourceIPs").add(request.getRemoteAddr());
        if (request.getHeader("User-Agent") != null) {
            e.put("userAgent", request.getHeader("User-Agent"));
        }
        if (a.resourceRequest()) {
            ObjectNode ref = e.putObject("objectRef");
            ref.put("resource", a.resource());
            if (!a.namespace().isEmpty()) {
                ref.put("namespace", a.namespace());
            }
            if (!a.name().isEmpty()) {
                ref.put("name", a.name());
            }
            ref.put("apiGroup", a.apiGroup());
            ref.put("apiVersion", a.apiVersion());
            if (!a.subresource().isEmpty()) {
                ref.put("subresource", a.subresource());
            }
        }
        ObjectNode status = e.putObject("responseStatus");
        status.putObject("metadata");
        int code = response.getStatus();
        status.put("code", code);
        if (code >= 400) {
            status.put("status", "Failure");
        }
        if (level == AuditPolicy.Level.REQUEST && request instanceof ContentCachingRequestWrapper cached) {
            byte[] body = cached.getContentAsByteArray();
            String type = request.getContentType();
            if (body.length > 0 && (type == null || type.contains("json"))) {
                try {
                    e.set("requestObject", Json.MAPPER.readTree(body));
                } catch (RuntimeException notJson) {
                    // a body that is not JSON was refused anyway; the metadata says so
                }
            }
        }
        e.put("requestReceivedTimestamp", MICROS.format(received));
        e.put("stageTimestamp", MICROS.format(Instant.now()));
        Object decision = request.getAttribute(Authorizer.DECISION_REQUEST_ATTRIBUTE);
        if (decision != null) {
            ObjectNode ann = e.putObject("annotations");
            ann.put("authorization.k8s.io/decision", decision.toString());
            Object reason = request.getAttribute(Authorizer.REASON_REQUEST_ATTRIBUTE);
            ann.put("authorization.k8s.io/reason", reason == null ? "" : reason.toString());
        }
        log.append(Json.write(e));
    }
}

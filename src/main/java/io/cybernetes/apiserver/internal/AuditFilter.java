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
import tools.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

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
        String auditId = newAuditId();
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
        RequestAttributes a = request.getAttribute(RequestAttributes.REQUEST_ATTRIBUTE) instanceof RequestAttributes known
                ? known : resolver.resolve(request, user == null ? UserInfo.anonymous() : user);
        AuditPolicy.Level level = policy.levelFor(user == null ? a.withUser(null) : a);
        if (level == AuditPolicy.Level.NONE) {
            return;
        }
        int code = response.getStatus();
        StringWriter out = new StringWriter(512);
        try (JsonGenerator g = Json.MAPPER.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringProperty("kind", "Event");
            g.writeStringProperty("apiVersion", "audit.k8s.io/v1");
            g.writeStringProperty("level", level == AuditPolicy.Level.REQUEST ? "Request" : "Metadata");
            g.writeStringProperty("auditID", auditId);
            g.writeStringProperty("stage", request.isAsyncStarted() ? "ResponseStarted" : "ResponseComplete");
            String query = request.getQueryString();
            g.writeStringProperty("requestURI", request.getRequestURI() + (query == null ? "" : "?" + query));
            g.writeStringProperty("verb", a.verb());
            g.writeObjectPropertyStart("user");
            if (user != null) {
                g.writeStringProperty("username", user.name());
                if (!user.uid().isEmpty()) {
                    g.writeStringProperty("uid", user.uid());
                }
                g.writeArrayPropertyStart("groups");
                for (String group : user.groups()) {
                    g.writeString(group);
                }
                g.writeEndArray();
            }
            g.writeEndObject();
            g.writeArrayPropertyStart("sourceIPs");
            g.writeString(request.getRemoteAddr());
            g.writeEndArray();
            String agent = request.getHeader("User-Agent");
            if (agent != null) {
                g.writeStringProperty("userAgent", agent);
            }
            if (a.resourceRequest()) {
                g.writeObjectPropertyStart("objectRef");
                g.writeStringProperty("resource", a.resource());
                optional(g, "namespace", a.namespace());
                optional(g, "name", a.name());
                g.writeStringProperty("apiGroup", a.apiGroup());
                g.writeStringProperty("apiVersion", a.apiVersion());
                optional(g, "subresource", a.subresource());
                g.writeEndObject();
            }
            g.writeObjectPropertyStart("responseStatus");
            g.writeObjectPropertyStart("metadata");
            g.writeEndObject();
            g.writeNumberProperty("code", code);
            if (code >= 400) {
                g.writeStringProperty("status", "Failure");
            }
            g.writeEndObject();
            String body = level == AuditPolicy.Level.REQUEST ? jsonBody(request, code) : null;
            if (body != null) {
                g.writeName("requestObject");
                g.writeRawValue(body);
            }
            g.writeStringProperty("requestReceivedTimestamp", MICROS.format(received));
            g.writeStringProperty("stageTimestamp", MICROS.format(Instant.now()));
            Object decision = request.getAttribute(Authorizer.DECISION_REQUEST_ATTRIBUTE);
            if (decision != null) {
                g.writeObjectPropertyStart("annotations");
                g.writeStringProperty("authorization.k8s.io/decision", decision.toString());
                Object reason = request.getAttribute(Authorizer.REASON_REQUEST_ATTRIBUTE);
                g.writeStringProperty("authorization.k8s.io/reason", reason == null ? "" : reason.toString());
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        log.append(out.toString());
    }

    private static void optional(JsonGenerator g, String name, String value) {
        if (!value.isEmpty()) {
            g.writeStringProperty(name, value);
        }
    }

    /**
     * The request body as JSON text, copied as it came: a body the server answered with
     * anything but 400 or 415 was JSON it decoded; other bodies are checked first.
     */
    private static String jsonBody(HttpServletRequest request, int code) {
        if (!(request instanceof ContentCachingRequestWrapper cached)) {
            return null;
        }
        byte[] body = cached.getContentAsByteArray();
        String type = request.getContentType();
        if (body.length == 0 || (type != null && !type.contains("json"))) {
            return null;
        }
        if (code == 400 || code == 415 || body.length >= MAX_LOGGED_BODY) {
            try {
                Json.MAPPER.readTree(body);
            } catch (RuntimeException notJson) {
                return null;
            }
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Audit IDs need to be unique, not unguessable: no shared SecureRandom on every request. */
    static String newAuditId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long msb = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }
}

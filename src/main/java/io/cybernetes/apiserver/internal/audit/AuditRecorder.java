package io.cybernetes.apiserver.internal.audit;

import io.cybernetes.api.Json;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import tools.jackson.core.JsonGenerator;

import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Turns one answered request — over HTTP (from {@link AuditFilter}) or in-process (from
 * {@link io.cybernetes.apiserver.internal.LocalApiServer}) — into an audit.k8s.io/v1 Event line at the level the policy
 * gives it, and hands it to the log.
 */
public final class AuditRecorder {

    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);

    /**
     * What is known of a request once answered. {@code user} is the authenticated user,
     * null when no credentials were accepted; {@code impersonatedUser} the one it acted as,
     * or null; {@code body} gives the request body as JSON text (or null), asked only
     * at level Request; {@code decision} is null when authorization did not run.
     */
    public record Entry(String auditId, UserInfo user, UserInfo impersonatedUser, RequestAttributes attributes, String requestUri, String sourceIp,
                 String userAgent, int code, boolean streaming, Supplier<String> body, Instant received,
                 String decision, String reason, java.util.Map<String, String> annotations) {

        public Entry(String auditId, UserInfo user, UserInfo impersonatedUser, RequestAttributes attributes,
                     String requestUri, String sourceIp, String userAgent, int code, boolean streaming,
                     Supplier<String> body, Instant received, String decision, String reason) {
            this(auditId, user, impersonatedUser, attributes, requestUri, sourceIp, userAgent, code, streaming, body,
                    received, decision, reason, java.util.Map.of());
        }
    }

    private final AuditPolicy policy;
    private final AuditLog log;
    private final boolean enabled;

    AuditRecorder(AuditPolicy policy, AuditLog log, boolean enabled) {
        this.policy = policy;
        this.log = log;
        this.enabled = enabled;
    }

    public void record(Entry e) {
        if (!enabled) {
            return;
        }
        RequestAttributes a = e.attributes();
        AuditPolicy.Level level = policy.levelFor(a.withUser(e.user()));
        if (level == AuditPolicy.Level.NONE) {
            return;
        }
        StringWriter out = new StringWriter(512);
        try (JsonGenerator g = Json.MAPPER.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringProperty("kind", "Event");
            g.writeStringProperty("apiVersion", "audit.k8s.io/v1");
            g.writeStringProperty("level", level == AuditPolicy.Level.REQUEST ? "Request" : "Metadata");
            g.writeStringProperty("auditID", e.auditId());
            g.writeStringProperty("stage", e.streaming() ? "ResponseStarted" : "ResponseComplete");
            g.writeStringProperty("requestURI", e.requestUri());
            g.writeStringProperty("verb", a.verb());
            writeUser(g, "user", e.user());
            if (e.impersonatedUser() != null) {
                writeUser(g, "impersonatedUser", e.impersonatedUser());
            }
            g.writeArrayPropertyStart("sourceIPs");
            g.writeString(e.sourceIp());
            g.writeEndArray();
            if (e.userAgent() != null) {
                g.writeStringProperty("userAgent", e.userAgent());
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
            g.writeNumberProperty("code", e.code());
            if (e.code() >= 400) {
                g.writeStringProperty("status", "Failure");
            }
            g.writeEndObject();
            String body = level == AuditPolicy.Level.REQUEST && e.body() != null ? e.body().get() : null;
            if (body != null) {
                g.writeName("requestObject");
                // one event a line: line breaks in valid JSON are whitespace between tokens (inside strings they
                // are escaped), so they go
                g.writeRawValue(body.indexOf('\n') < 0 && body.indexOf('\r') < 0 ? body
                        : body.replace('\n', ' ').replace('\r', ' '));
            }
            g.writeStringProperty("requestReceivedTimestamp", MICROS.format(e.received()));
            g.writeStringProperty("stageTimestamp", MICROS.format(Instant.now()));
            if (e.decision() != null || !e.annotations().isEmpty()) {
                g.writeObjectPropertyStart("annotations");
                if (e.decision() != null) {
                    g.writeStringProperty("authorization.k8s.io/decision", e.decision());
                    g.writeStringProperty("authorization.k8s.io/reason", e.reason() == null ? "" : e.reason());
                }
                for (java.util.Map.Entry<String, String> note : e.annotations().entrySet()) {
                    g.writeStringProperty(note.getKey(), note.getValue());
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        log.append(out.toString());
    }

    private static void writeUser(JsonGenerator g, String field, UserInfo user) {
        g.writeObjectPropertyStart(field);
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
            if (!user.extra().isEmpty()) {
                g.writeObjectPropertyStart("extra");
                for (var entry : new java.util.TreeMap<>(user.extra()).entrySet()) {
                    g.writeArrayPropertyStart(entry.getKey());
                    for (String v : entry.getValue()) {
                        g.writeString(v);
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
        }
        g.writeEndObject();
    }

    private static void optional(JsonGenerator g, String name, String value) {
        if (!value.isEmpty()) {
            g.writeStringProperty(name, value);
        }
    }

    /** Audit IDs need to be unique, not unguessable: no shared SecureRandom on every request. */
    public static String newAuditId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long msb = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }
}

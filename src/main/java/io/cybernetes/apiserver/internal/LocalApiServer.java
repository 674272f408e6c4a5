package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.LocalCall;
import io.cybernetes.apiserver.internal.handlers.RequestReader;
import io.cybernetes.apiserver.internal.handlers.ResourceController;
import io.cybernetes.apiserver.internal.handlers.WatchStreamer;
import io.cybernetes.apiserver.internal.audit.AuditRecorder;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.LocalApi;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.TokenAuthenticator;
import io.cybernetes.auth.UserInfo;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The API server for components in this process: the bearer token is authenticated, the
 * request authorized (the same 401 and 403 as over HTTP), and then it takes the very
 * handler an HTTP request takes — admission, schema validation, the store — without
 * sockets, TLS or servlet threads; and each is written to the audit log as an HTTP request
 * would be (source 127.0.0.1, the component's user agent, else {@value #USER_AGENT}).
 */
@Component
class LocalApiServer implements LocalApi {

    private final ResourceController handler;
    private final TokenAuthenticator tokens;
    private final Authorizer authorizer;
    private final AuditRecorder recorder;

    /** What in-process requests show as their user agent in the audit log. */
    static final String USER_AGENT = "cybernetes/in-process";

    private final ResourceRegistry registry;

    LocalApiServer(ResourceController handler, TokenAuthenticator tokens, Authorizer authorizer,
                   AuditRecorder recorder, ResourceRegistry registry) {
        this.registry = registry;
        this.handler = handler;
        this.tokens = tokens;
        this.authorizer = authorizer;
        this.recorder = recorder;
    }

    @Override
    public ResourceRegistry registry() {
        return registry;
    }

    @Override
    public Response exchange(Request request) {
        Audited audited = new Audited(request);
        try {
            Map<String, String> query = LocalCall.parseQuery(request.query());
            LocalCall call = new LocalCall(request, query, admit(request, query, audited), null);
            ResponseEntity<?> answer = handle(call);
            audited.code = answer.getStatusCode().value();
            List<String> warnings = new ArrayList<>();
            for (String w : answer.getHeaders().getOrEmpty("Warning")) {
                warnings.add(warningText(w));
            }
            return new Response(answer.getStatusCode().value(), (byte[]) answer.getBody(), warnings);
        } catch (ApiException e) {
            audited.code = e.code();
            throw e;
        } finally {
            audit(audited, false);
        }
    }

    @Override
    public Watch watch(Request request, WatchSink sink) {
        Audited audited = new Audited(request);
        try {
            Map<String, String> query = LocalCall.parseQuery(request.query());
            LocalCall call = new LocalCall(request, query, admit(request, query, audited), sink);
            handle(call);
            WatchStreamer.Opened opened = call.opened();
            if (opened == null) {
                throw ApiException.badRequest("not a watch request: add watch=true to the query");
            }
            audited.code = 200;
            return opened::close;
        } catch (ApiException e) {
            audited.code = e.code();
            throw e;
        } finally {
            audit(audited, true);
        }
    }

    /** What the audit log needs to know of one in-process request, filled in as it is answered. */
    private static final class Audited {
        final Request request;
        final Instant received = Instant.now();
        UserInfo user;
        RequestAttributes attributes;
        String decision;
        String reason = "";
        int code = 500;

        Audited(Request request) {
            this.request = request;
        }
    }

    private void audit(Audited a, boolean watch) {
        RequestAttributes attrs = a.attributes != null ? a.attributes : KubeRequestAttributes.resolve(
                a.request.method(), a.request.path(), name -> name.equals("watch") ? String.valueOf(watch) : null,
                UserInfo.anonymous());
        Request r = a.request;
        String type = r.contentType();
        recorder.record(new AuditRecorder.Entry(AuditRecorder.newAuditId(), a.user, null, attrs,
                r.path() + (r.query() == null ? "" : "?" + r.query()), "127.0.0.1",
                r.userAgent() == null ? USER_AGENT : r.userAgent(), a.code,
                watch && a.code == 200, () -> r.body() == null || type == null || !type.contains("json") ? null
                : new String(r.body(), StandardCharsets.UTF_8), a.received, a.decision, a.reason));
    }

    /** Authentication and authorization, as the security filters do them for HTTP requests. */
    private UserInfo admit(Request request, Map<String, String> query, Audited audited) {
        String token = request.bearerToken();
        UserInfo user = token == null || token.isEmpty() ? null : tokens.authenticateToken(token).orElse(null);
        if (user == null) {
            throw ApiException.unauthorized();
        }
        audited.user = user;
        RequestAttributes attrs = KubeRequestAttributes.resolve(request.method(), request.path(), query::get, user);
        audited.attributes = attrs;
        if (!attrs.resourceRequest()) {
            throw ApiException.pathNotFound();
        }
        Authorizer.Decision decision = authorizer.authorize(attrs);
        audited.decision = decision.allowed() ? "allow" : "forbid";
        audited.reason = decision.reason();
        if (!decision.allowed()) {
            throw Authorizer.forbidden(attrs, decision.reason());
        }
        return user;
    }

    private ResponseEntity<?> handle(LocalCall call) {
        try {
            return handler.handle(call);
        } catch (ApiException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw ApiErrorHandler.unexpectedFailure(e);
        }
    }

    /** The text of a {@code 299 - "text"} Warning header value. */
    private static String warningText(String header) {
        int open = header.indexOf('"');
        int close = header.lastIndexOf('"');
        if (open < 0 || close <= open) {
            return header;
        }
        return header.substring(open + 1, close).replace("\\\"", "\"").replace("\\\\", "\\");
    }
}

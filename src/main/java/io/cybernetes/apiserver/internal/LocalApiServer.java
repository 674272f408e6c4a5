package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.LocalApi;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.TokenAuthenticator;
import io.cybernetes.auth.UserInfo;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The API server for components in this process: the bearer token is authenticated, the
 * request authorized (the same 401 and 403 as over HTTP), and then it takes the very
 * handler an HTTP request takes — admission, schema validation, the store — without
 * sockets, TLS or servlet threads. Requests from here are not written to the audit log.
 */
@Component
class LocalApiServer implements LocalApi {

    private final ResourceController handler;
    private final TokenAuthenticator tokens;
    private final Authorizer authorizer;
    private final WatchThreads watchThreads;

    LocalApiServer(ResourceController handler, TokenAuthenticator tokens, Authorizer authorizer,
                   WatchThreads watchThreads) {
        this.handler = handler;
        this.tokens = tokens;
        this.authorizer = authorizer;
        this.watchThreads = watchThreads;
    }

    @Override
    public Response exchange(Request request) {
        LocalCall call = new LocalCall(request, admit(request), watchThreads::execute, null);
        ResponseEntity<?> answer = handle(call);
        List<String> warnings = new ArrayList<>();
        for (String w : answer.getHeaders().getOrEmpty("Warning")) {
            warnings.add(warningText(w));
        }
        return new Response(answer.getStatusCode().value(), (byte[]) answer.getBody(), warnings);
    }

    @Override
    public Watch watch(Request request, WatchSink sink) {
        LocalCall call = new LocalCall(request, admit(request), watchThreads::execute, sink);
        handle(call);
        WatchStreamer.Opened opened = call.opened();
        if (opened == null) {
            throw ApiException.badRequest("not a watch request: add watch=true to the query");
        }
        return opened::close;
    }

    /** Authentication and authorization, as the security filters do them for HTTP requests. */
    private UserInfo admit(Request request) {
        String token = request.bearerToken();
        UserInfo user = token == null || token.isEmpty() ? null : tokens.authenticateToken(token).orElse(null);
        if (user == null) {
            throw ApiException.unauthorized();
        }
        boolean watch = RequestReader.isTrue(LocalCall.parseQuery(request.query()).get("watch"));
        RequestAttributes attrs = KubeRequestAttributes.resolve(request.method(), request.path(), watch, user);
        if (!attrs.resourceRequest()) {
            throw ApiException.notFound("the server could not find the requested resource");
        }
        Authorizer.Decision decision = authorizer.authorize(attrs);
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

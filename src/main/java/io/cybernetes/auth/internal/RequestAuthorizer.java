package io.cybernetes.auth.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RequestAttributesResolver;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;

import java.util.function.Supplier;

/**
 * Spring Security's authorization step for every API request: the request's attributes
 * (from the API server's resolver) go through the authorizer chain; a request nobody
 * allows is denied with the Forbidden Status Kubernetes would send.
 */
final class RequestAuthorizer implements AuthorizationManager<RequestAuthorizationContext> {

    private final RequestAttributesResolver resolver;
    private final Authorizer authorizer;

    RequestAuthorizer(RequestAttributesResolver resolver, Authorizer authorizer) {
        this.resolver = resolver;
        this.authorizer = authorizer;
    }

    @Override
    public AuthorizationResult authorize(Supplier<? extends Authentication> authentication,
                                         RequestAuthorizationContext context) {
        Authentication auth = authentication.get();
        if (!(auth instanceof UserAuthentication ua)) {
            return new Forbidden(ApiException.unauthorized());
        }
        RequestAttributes attrs = resolver.resolve(context.getRequest(), ua.getPrincipal());
        context.getRequest().setAttribute(RequestAttributes.REQUEST_ATTRIBUTE, attrs);
        Authorizer.Decision d = authorizer.authorize(attrs);
        context.getRequest().setAttribute(Authorizer.DECISION_REQUEST_ATTRIBUTE, d.allowed() ? "allow" : "forbid");
        context.getRequest().setAttribute(Authorizer.REASON_REQUEST_ATTRIBUTE, d.reason());
        return d.allowed() ? new AuthorizationDecision(true) : new Forbidden(Authorizer.forbidden(attrs, d.reason()));
    }

    /** A denial carrying the Status to send. */
    static final class Forbidden extends AuthorizationDecision {

        private final transient ApiException status;

        Forbidden(ApiException status) {
            super(false);
            this.status = status;
        }

        ApiException status() {
            return status;
        }
    }
}

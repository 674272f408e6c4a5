package io.cybernetes.apiserver.internal;

import io.cybernetes.admission.AccessChecker;
import io.cybernetes.admission.Attributes;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.Selectors;
import io.cybernetes.auth.UserInfo;
import org.springframework.stereotype.Component;

/** The server's authorizer chain, as admission plugins ask it (may this user approve for a signer?). */
@Component
class AdmissionAccessChecker implements AccessChecker {

    private final Authorizer authorizer;

    AdmissionAccessChecker(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    @Override
    public Verdict check(Attributes.User user, String verb, String group, String resource, String subresource,
                         String namespace, String name, String fieldSelector, String labelSelector) {
        return verdict(RequestAttributes.resource(who(user), verb, group, resource, subresource, namespace, name)
                .withSelectors(Selectors.parse(fieldSelector, labelSelector)));
    }

    @Override
    public Verdict checkPath(Attributes.User user, String verb, String path) {
        return verdict(RequestAttributes.nonResource(who(user), verb, path));
    }

    private Verdict verdict(RequestAttributes attributes) {
        Authorizer.Decision d = authorizer.authorize(attributes);
        return new Verdict(d.allowed(), d.reason() == null ? "" : d.reason(), d.error() == null ? "" : d.error());
    }

    private static UserInfo who(Attributes.User user) {
        return new UserInfo(user.name(), user.uid(), user.groups(), user.extra());
    }
}

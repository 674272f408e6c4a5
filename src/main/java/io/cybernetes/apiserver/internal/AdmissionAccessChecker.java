package io.cybernetes.apiserver.internal;

import io.cybernetes.admission.AccessChecker;
import io.cybernetes.admission.Attributes;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
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
    public boolean allowed(Attributes.User user, String verb, String group, String resource, String name) {
        UserInfo who = new UserInfo(user.name(), user.uid(), user.groups(), user.extra());
        return authorizer.authorize(RequestAttributes.resource(who, verb, group, resource, "", "", name)).outcome()
                == Authorizer.Decision.Outcome.ALLOW;
    }
}

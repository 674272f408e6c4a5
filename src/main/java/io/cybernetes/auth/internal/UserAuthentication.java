package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/** A Kubernetes identity as a Spring Security authentication; its authorities are the user's groups. */
final class UserAuthentication extends AbstractAuthenticationToken {

    private final transient UserInfo user;

    UserAuthentication(UserInfo user) {
        super(user.groups().stream().map(SimpleGrantedAuthority::new).toList());
        this.user = user;
        setAuthenticated(true);
    }

    @Override
    public Object getCredentials() {
        return "";
    }

    @Override
    public UserInfo getPrincipal() {
        return user;
    }

    @Override
    public String getName() {
        return user.name();
    }
}

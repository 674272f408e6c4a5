package io.cybernetes.auth.internal;

import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.UserInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * OpenID Connect ID tokens, as kube-apiserver's {@code --oidc-*} flags: signed by a key
 * of the issuer's JWKS (fetched and cached, refetched for an unknown key id), issued by
 * the configured issuer for the configured client, unexpired. The user is the
 * username claim (prefixed with {@code issuer#} unless it is the email claim or a
 * prefix is configured), the groups the groups claim.
 */
final class OidcAuthenticator {

    private static final Logger log = LoggerFactory.getLogger(OidcAuthenticator.class);

    private final AuthProperties.Oidc settings;
    private final NimbusJwtDecoder decoder;
    private final String usernamePrefix;

    OidcAuthenticator(AuthProperties.Oidc settings) {
        this.settings = settings;
        NimbusJwtDecoder d = settings.jwksUri() != null
                ? NimbusJwtDecoder.withJwkSetUri(settings.jwksUri().toString()).build()
                : NimbusJwtDecoder.withIssuerLocation(settings.issuerUrl()).build();
        d.setJwtValidator(new DelegatingOAuth2TokenValidator<>(JwtValidators.createDefaultWithIssuer(settings.issuerUrl()),
                new JwtClaimValidator<Collection<String>>("aud", aud -> aud != null && aud.contains(settings.clientId()))));
        this.decoder = d;
        if (settings.usernamePrefix().equals("-")) {
            usernamePrefix = "";
        } else if (settings.usernamePrefix().isEmpty()) {
            usernamePrefix = settings.usernameClaim().equals("email") ? "" : settings.issuerUrl() + "#";
        } else {
            usernamePrefix = settings.usernamePrefix();
        }
    }

    String issuer() {
        return settings.issuerUrl();
    }

    Optional<UserInfo> authenticate(String token) {
        Jwt jwt;
        try {
            jwt = decoder.decode(token);
        } catch (JwtException e) {
            log.debug("OIDC token refused: {}", e.getMessage());
            return Optional.empty();
        }
        Object name = jwt.getClaims().get(settings.usernameClaim());
        if (!(name instanceof String user) || user.isEmpty()) {
            return Optional.empty();
        }
        if (settings.usernameClaim().equals("email") && Boolean.FALSE.equals(jwt.getClaims().get("email_verified"))) {
            return Optional.empty();
        }
        List<String> groups = new ArrayList<>();
        Object g = jwt.getClaims().get(settings.groupsClaim());
        if (g instanceof String one) {
            groups.add(settings.groupsPrefix() + one);
        } else if (g instanceof Collection<?> many) {
            many.forEach(x -> groups.add(settings.groupsPrefix() + x));
        }
        return Optional.of(UserInfo.authenticated(usernamePrefix + user, "", groups));
    }
}

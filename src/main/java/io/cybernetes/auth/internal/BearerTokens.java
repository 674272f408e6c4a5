package io.cybernetes.auth.internal;

import com.nimbusds.jwt.SignedJWT;
import io.cybernetes.auth.TokenAuthenticator;
import io.cybernetes.auth.UserInfo;

import java.text.ParseException;
import java.util.Optional;

/**
 * Every kind of bearer token: this process's components, the admin token and the tokens file first, then JWTs,
 * which go to the authenticator of their issuer (ServiceAccount tokens or OIDC), so a
 * token is checked by the one party that can vouch for it; a token none of them knows goes
 * to the token webhook, when one is configured.
 */
final class BearerTokens implements TokenAuthenticator {

    private final ComponentTokens components;
    private final StaticTokens staticTokens;
    private final ServiceAccountTokenIssuer serviceAccounts;
    private final OidcAuthenticator oidc;
    private final WebhookTokenAuthenticator webhook;

    BearerTokens(ComponentTokens components, StaticTokens staticTokens, ServiceAccountTokenIssuer serviceAccounts,
                 OidcAuthenticator oidc, WebhookTokenAuthenticator webhook) {
        this.components = components;
        this.staticTokens = staticTokens;
        this.serviceAccounts = serviceAccounts;
        this.oidc = oidc;
        this.webhook = webhook;
    }

    @Override
    public Optional<UserInfo> authenticateToken(String token) {
        Optional<UserInfo> user = components.authenticate(token);
        if (user.isPresent()) {
            return user;
        }
        user = staticTokens.authenticate(token);
        if (user.isPresent()) {
            return user;
        }
        if (token.chars().filter(c -> c == '.').count() == 2) {
            try {
                SignedJWT jwt = SignedJWT.parse(token);
                String issuer = jwt.getJWTClaimsSet().getIssuer();
                if (serviceAccounts.issuer().equals(issuer)) {
                    return serviceAccounts.authenticate(jwt);
                }
                if (oidc != null && oidc.issuer().equals(issuer)) {
                    return oidc.authenticate(token);
                }
            } catch (ParseException notAJwt) {
                // then perhaps the webhook knows it
            }
        }
        return webhook == null ? Optional.empty() : webhook.authenticate(token);
    }
}

package io.cybernetes.auth;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Settings of authentication and the cluster PKI, documented in {@code config/application.yml}.
 *
 * @param dataDir        where {@code pki/} and {@code admin.kubeconfig} live
 * @param hostNames      extra names and addresses for the serving certificate
 * @param openPaths      paths served without credentials
 * @param authenticatedPaths paths served to every authenticated user, RBAC aside (the Swagger UI document, as
 *                       {@code /openapi} is every authenticated user's through system:discovery)
 * @param tokenFile      static bearer tokens, kube-apiserver's {@code --token-auth-file} format, re-read when it changes
 * @param anonymous      map requests without credentials to {@code system:anonymous} instead of answering 401
 * @param serviceAccount how ServiceAccount tokens are issued and checked
 * @param oidc           an OpenID Connect issuer whose ID tokens authenticate users (off when issuerUrl is empty)
 * @param authorizationMode the authorizers asked in turn, as kube-apiserver's {@code --authorization-mode}: Node,
 *                       RBAC, ABAC, Webhook, AlwaysAllow (every authenticated request is allowed: for benchmarks and
 *                       single-user experiments only), AlwaysDeny; the first to allow or deny decides
 * @param authorizationPolicyFile the ABAC policy file (one JSON policy per line), needed when ABAC is a mode
 * @param authenticationTokenWebhook a TokenReview webhook that vouches for bearer tokens nothing else knows
 * @param authorizationWebhook the SubjectAccessReview webhook of the Webhook mode
 */
@ConfigurationProperties("cybernetes.auth")
public record AuthProperties(
        @DefaultValue("./data") Path dataDir,
        @DefaultValue List<String> hostNames,
        @DefaultValue({"/healthz", "/livez", "/readyz", "/version", "/swagger-ui", "/v3/api-docs/swagger-config",
                "/error", "/dashboard", "/webjars"})
        List<String> openPaths,
        @DefaultValue("/v3/api-docs") List<String> authenticatedPaths,
        @DefaultValue("config/tokens.csv") Path tokenFile,
        @DefaultValue("false") boolean anonymous,
        @DefaultValue ServiceAccountSettings serviceAccount,
        @DefaultValue Oidc oidc,
        @DefaultValue({"Node", "RBAC"}) List<AuthorizationMode> authorizationMode,
        @DefaultValue("") String authorizationPolicyFile,
        @DefaultValue TokenWebhook authenticationTokenWebhook,
        @DefaultValue AuthorizationWebhook authorizationWebhook) {

    public enum AuthorizationMode { Node, RBAC, ABAC, Webhook, AlwaysAllow, AlwaysDeny }

    /**
     * @param issuer        the {@code iss} of issued tokens
     * @param apiAudiences  audiences accepted by this API server (empty: the issuer)
     * @param maxExpiration the longest lifetime a TokenRequest may ask for
     */
    public record ServiceAccountSettings(
            @DefaultValue("https://kubernetes.default.svc.cluster.local") String issuer,
            @DefaultValue List<String> apiAudiences,
            @DefaultValue("48h") Duration maxExpiration) {
    }

    /**
     * @param issuerUrl      the {@code iss} the ID tokens carry; empty turns OIDC off
     * @param jwksUri        where the signing keys are; empty: from the issuer's discovery document
     * @param clientId       the audience the tokens must carry
     * @param usernameClaim  the claim that names the user
     * @param usernamePrefix put before the user name; empty: {@code issuerUrl#} unless the claim is email; "-": none
     * @param groupsClaim    the claim holding the groups (a list or one string)
     * @param groupsPrefix   put before every group
     */
    public record Oidc(
            @DefaultValue("") String issuerUrl,
            URI jwksUri,
            @DefaultValue("") String clientId,
            @DefaultValue("sub") String usernameClaim,
            @DefaultValue("") String usernamePrefix,
            @DefaultValue("groups") String groupsClaim,
            @DefaultValue("") String groupsPrefix) {

        public boolean enabled() {
            return issuerUrl != null && !issuerUrl.isEmpty();
        }
    }

    /**
     * kube-apiserver's {@code --authentication-token-webhook-config-file} and {@code -cache-ttl}.
     *
     * @param configFile a kubeconfig naming the webhook (its first cluster and user); empty: off
     * @param cacheTtl   how long an answer about a token is kept
     */
    public record TokenWebhook(@DefaultValue("") String configFile, @DefaultValue("2m") Duration cacheTtl) {
    }

    /**
     * kube-apiserver's {@code --authorization-webhook-config-file} and its cache TTLs.
     *
     * @param configFile           a kubeconfig naming the webhook; needed when Webhook is a mode
     * @param cacheAuthorizedTtl   how long an allowing answer is kept
     * @param cacheUnauthorizedTtl how long any other answer is kept
     */
    public record AuthorizationWebhook(@DefaultValue("") String configFile,
                                       @DefaultValue("5m") Duration cacheAuthorizedTtl,
                                       @DefaultValue("30s") Duration cacheUnauthorizedTtl) {
    }
}

package io.cybernetes.auth.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.cybernetes.api.PrivateFiles;
import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.ClusterPki;
import io.cybernetes.auth.RequestAttributesResolver;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.DispatcherType;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authorization.AuthorizationDeniedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.AuthorizationFilter;

/**
 * Wires authentication and authorization into Spring Security: one stateless filter
 * chain (no sessions, no CSRF, no login pages) whose authentication filter produces the
 * Kubernetes identity and whose authorization step asks the authorizer chain. Errors
 * are Kubernetes Status bodies: 401 Unauthorized, 403 Forbidden.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
@EnableConfigurationProperties(AuthProperties.class)
class AuthConfiguration {

    @Bean
    Pki clusterPki(AuthProperties props) {
        return new Pki(props);
    }

    /** Once the database has made its files too, none of the data directory is left for others to read. */
    @Bean
    ApplicationListener<ApplicationReadyEvent> privateDataDirectory(AuthProperties props) {
        return event -> PrivateFiles.tree(props.dataDir());
    }

    /**
     * A request the security firewall refuses (a path with {@code ..}, {@code //}, {@code ;} or
     * an encoded dot or slash, which could mean one thing here and another to a proxy in
     * front) gets a 400 Status, as every refusal does.
     */
    @Bean
    RequestRejectedHandler requestRejectedHandler() {
        return (request, response, e) -> StatusResponses.write(request, response, ApiException.badRequest(
                "the request path is not in canonical form (it has \"..\", \"//\", \";\", or an encoded \".\" or"
                        + " \"/\"): " + GoStrings.quote(request.getRequestURI())));
    }

    @Bean
    ClusterPolicy clusterPolicy() {
        return new ClusterPolicy();
    }

    @Bean
    AuthorizerChain authorizerChain(ClusterPolicy policy, AuthProperties props) {
        return new AuthorizerChain(policy, props.authorizationMode(), props.authorizationPolicyFile(),
                props.authorizationWebhook());
    }

    @Bean
    ServiceAccountTokenIssuer serviceAccountTokens(AuthProperties props, Pki pki, ClusterPolicy policy) {
        return new ServiceAccountTokenIssuer(props.serviceAccount(), pki.serviceAccountKeys(), policy);
    }

    /** Tokens of the in-process components (controller manager, scheduler, node agents). */
    @Bean
    ComponentTokens componentTokens() {
        return new ComponentTokens();
    }

    @Bean
    BearerTokens bearerTokens(AuthProperties props, ClusterPki pki, ServiceAccountTokenIssuer serviceAccounts,
                              ComponentTokens components) {
        return new BearerTokens(components, new StaticTokens(pki.adminToken(), props.tokenFile()), serviceAccounts,
                props.oidc().enabled() ? new OidcAuthenticator(props.oidc()) : null,
                props.authenticationTokenWebhook().configFile().isEmpty() ? null : WebhookTokenAuthenticator.of(
                        props.authenticationTokenWebhook(), props.serviceAccount().apiAudiences()));
    }

    @Bean
    KubernetesAuthenticationFilter kubernetesAuthentication(AuthProperties props, ClusterPki pki, BearerTokens tokens,
                                                            AuthorizerChain authorizer) {
        return new KubernetesAuthenticationFilter(tokens, new X509Authenticator(pki.caCertificate()),
                new OpenPaths(props.openPaths()), props.anonymous(), new Impersonation(authorizer));
    }

    /** Keeps the authentication filter out of the servlet container's own chain: it runs inside Spring Security's. */
    @Bean
    org.springframework.boot.web.servlet.FilterRegistrationBean<KubernetesAuthenticationFilter> notAServletFilter(
            KubernetesAuthenticationFilter filter) {
        var reg = new org.springframework.boot.web.servlet.FilterRegistrationBean<>(filter);
        reg.setEnabled(false);
        return reg;
    }

    /** Every request passes about a dozen security filters; observing each one costs more than it tells. */
    @Bean
    SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }

    /**
     * Spring Security's strict firewall with rules of its own, checked by a loop rather than the regular expressions
     * it matches them with by default (every header a request reads is checked each time it is read, and with the
     * regular expressions that was about a twentieth of a create's CPU). Header and parameter names: Spring's rule,
     * assigned characters and no control characters. Header values: what kube-apiserver's HTTP server takes (Go's
     * {@code ValidHeaderFieldValue}): no control character but the tab, and any byte from 0x80 up (obs-text, which
     * the container reads as ISO-8859-1), where Spring's rule refused a value with a byte from 0x80 to 0x9F.
     */
    @Bean
    WebSecurityCustomizer firewall() {
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowedHeaderNames(AuthConfiguration::assignedAndNotControl);
        firewall.setAllowedHeaderValues(AuthConfiguration::validHeaderValue);
        firewall.setAllowedParameterNames(AuthConfiguration::assignedAndNotControl);
        return web -> web.httpFirewall(firewall);
    }

    /** Whether every code point of the text is assigned and no control character. */
    static boolean assignedAndNotControl(String s) {
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            if (cp < 0x7f) {
                if (cp < 0x20) {
                    return false;
                }
            } else if (Character.isISOControl(cp) || !Character.isDefined(cp)) {
                return false;
            }
            i += Character.charCount(cp);
        }
        return true;
    }

    /** Whether a header value has no control character but the tab (HTTP's field-value, obs-text included). */
    static boolean validHeaderValue(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return false;
            }
        }
        return true;
    }

    @Bean
    SecurityFilterChain apiSecurity(HttpSecurity http, KubernetesAuthenticationFilter authentication,
                                    RequestAttributesResolver resolver, AuthorizerChain authorizer,
                                    AuthProperties props) {
        RequestAuthorizer requests = new RequestAuthorizer(resolver, authorizer);
        // Only what an API server needs: no sessions, CSRF, login pages, browser security headers or
        // servlet API wrapping; the authentication filter sets (and clears) the security context itself.
        http.csrf(c -> c.disable())
                .formLogin(f -> f.disable())
                .httpBasic(b -> b.disable())
                .logout(l -> l.disable())
                .anonymous(a -> a.disable())
                .requestCache(r -> r.disable())
                .sessionManagement(s -> s.disable())
                .securityContext(c -> c.disable())
                .servletApi(s -> s.disable())
                .headers(h -> h.disable())
                .addFilterBefore(authentication, AuthorizationFilter.class)
                // A request dispatched again (its body read, a stream ended, its error rendered as a Status,
                // forwarded or included for that when its answer had begun) was authorized, or refused, when
                // it came in.
                .authorizeHttpRequests(a -> a
                        .dispatcherTypeMatchers(DispatcherType.ASYNC, DispatcherType.ERROR, DispatcherType.INCLUDE)
                        .permitAll()
                        .requestMatchers(new OpenPaths(props.openPaths())).permitAll()
                        .requestMatchers(new OpenPaths(props.authenticatedPaths())).hasAuthority(UserInfo.AUTHENTICATED)
                        .anyRequest().access(requests))
                .exceptionHandling(e -> e
                        .authenticationEntryPoint((req, res, ex) -> StatusResponses.write(req, res, ApiException.unauthorized()))
                        .accessDeniedHandler((req, res, ex) -> StatusResponses.write(req, res,
                                ex instanceof AuthorizationDeniedException denied
                                        && denied.getAuthorizationResult() instanceof RequestAuthorizer.Forbidden f
                                        ? f.status() : ApiException.forbidden("forbidden"))));
        return http.build();
    }
}

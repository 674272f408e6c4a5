package io.cybernetes.auth.internal;

import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.ClusterPki;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Wires the PKI and the authentication filter in front of everything. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AuthProperties.class)
class AuthConfiguration {

    @Bean
    Pki clusterPki(AuthProperties props) {
        return new Pki(props);
    }

    @Bean
    FilterRegistrationBean<AuthenticationFilter> authenticationFilter(ClusterPki pki, AuthProperties props) {
        AuthenticationFilter filter = new AuthenticationFilter(new TokenAuthenticator(pki.adminToken()),
                new X509Authenticator(pki.caCertificate()), props.openPaths());
        FilterRegistrationBean<AuthenticationFilter> reg = new FilterRegistrationBean<>(filter);
        reg.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return reg;
    }
}

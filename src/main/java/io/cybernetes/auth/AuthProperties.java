package io.cybernetes.auth;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.nio.file.Path;
import java.util.List;

/**
 * Settings of authentication and the cluster PKI, documented in {@code config/application.yml}.
 *
 * @param dataDir     where {@code pki/} and {@code admin.kubeconfig} live
 * @param hostNames   extra names and addresses for the serving certificate
 * @param openPaths   paths served without credentials
 */
@ConfigurationProperties("cybernetes.auth")
public record AuthProperties(
        @DefaultValue("./data") Path dataDir,
        @DefaultValue List<String> hostNames,
        @DefaultValue({"/healthz", "/livez", "/readyz", "/version", "/swagger-ui", "/v3/api-docs", "/error"})
        List<String> openPaths) {
}

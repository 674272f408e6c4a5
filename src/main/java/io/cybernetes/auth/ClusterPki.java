package io.cybernetes.auth;

import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;

/**
 * The cluster's certificate authority and the credentials made from it at first start:
 * the serving certificate, the admin client certificate and the admin bearer token.
 */
public interface ClusterPki extends io.cybernetes.api.CertificateAuthority {

    /** Key store holding the serving key and certificate chain (alias "apiserver", empty password). */
    KeyStore servingKeyStore();

    /** Trust store holding the cluster CA, for client certificates. */
    KeyStore clientTrustStore();

    @Override
    X509Certificate caCertificate();

    String adminToken();

    /** Writes {@code admin.kubeconfig} pointing at {@code serverUrl}; returns its path. */
    Path writeAdminKubeconfig(String serverUrl);
}

package io.cybernetes.client;

import io.cybernetes.api.LocalApi;
import io.cybernetes.client.internal.HttpApiClient;
import io.cybernetes.client.internal.LocalApiClient;
import io.cybernetes.client.internal.TlsContexts;

import javax.net.ssl.SSLContext;
import java.net.URI;
import java.nio.file.Path;

/** Where ApiClients come from. */
public final class ApiClients {

    private ApiClients() {
    }

    /** A client over HTTP(S) to {@code base} (for example {@code https://127.0.0.1:6443}) with a bearer token. */
    public static ApiClient http(URI base, SSLContext ssl, String token) {
        return new HttpApiClient(base, ssl, token);
    }

    /**
     * A client over HTTPS that authenticates with a client certificate (the cluster CA
     * signs it; CN is the user, O the groups), as a kubelet does: PEM files.
     */
    public static ApiClient https(URI base, Path caCert, Path clientCert, Path clientKey) {
        return new HttpApiClient(base, TlsContexts.of(caCert, clientCert, clientKey), null);
    }

    /** As above, with the certificates and key in memory (a node agent issues its nodes' own). */
    public static ApiClient https(URI base, java.security.cert.X509Certificate ca,
                                  java.security.cert.X509Certificate clientCert, java.security.PrivateKey clientKey) {
        return new HttpApiClient(base, TlsContexts.of(ca, clientCert, clientKey), null);
    }

    /** A client of this process's API server, authenticated by the token (see {@link io.cybernetes.api.InProcessCredentials}). */
    public static ApiClient local(LocalApi api, String token) {
        return new LocalApiClient(api, token, null);
    }

    /**
     * As above, for a component that names itself as its User-Agent would (for example
     * {@code kube-scheduler/v1.32.0}): the audit log shows it, managedFields record its
     * writes under its product.
     */
    public static ApiClient local(LocalApi api, String token, String userAgent) {
        return new LocalApiClient(api, token, userAgent);
    }
}

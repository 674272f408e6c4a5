package io.cybernetes.client.internal;

import io.cybernetes.api.X509Certificates;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;

/** TLS contexts from PEM files, as a kubeconfig names them: the cluster CA, and optionally a client certificate. */
public final class TlsContexts {

    private TlsContexts() {
    }

    /** Trusts {@code caCert}; presents {@code clientCert} with {@code clientKey} when they are not null. */
    public static SSLContext of(Path caCert, Path clientCert, Path clientKey) {
        try {
            return of(X509Certificates.readCertificate(caCert),
                    clientCert == null ? null : X509Certificates.readCertificate(clientCert),
                    clientKey == null ? null : X509Certificates.readPrivateKey(clientKey));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the certificates: " + e.getMessage(), e);
        }
    }

    /** Trusts {@code ca}; presents {@code clientCert} with {@code clientKey} when they are not null. */
    public static SSLContext of(X509Certificate ca, X509Certificate clientCert, PrivateKey clientKey) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (clientCert != null && clientKey != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", clientKey, new char[0], new Certificate[] {clientCert});
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, new char[0]);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the certificates: " + e.getMessage(), e);
        }
    }
}

package io.cybernetes.api;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.List;

/**
 * The cluster CA as the components that need certificates of their own see it: the API
 * server's client certificate for the kubelets, the kubelets' serving certificates. The
 * authentication module's PKI is one; the standalone node agent makes one from the CA files.
 */
public interface CertificateAuthority {

    /** The alias of the key entry in the key stores {@link #issue} makes (empty password). */
    String KEY_ALIAS = "key";

    X509Certificate caCertificate();

    /**
     * A key store holding a fresh EC key and a certificate for {@code subject} that this CA
     * signs, for the purpose and names (DNS names and IP addresses), the CA in its chain.
     */
    KeyStore issue(String subject, X509Certificates.Purpose purpose, List<String> sans, Duration validity);

    /** A certificate this CA signs for a certificate signing request, with the key usages named. */
    X509Certificate sign(CertificateRequests.Request request, List<String> usages, Duration validity);

    /** A CA from its certificate and key. */
    static CertificateAuthority of(X509Certificate ca, PrivateKey caKey) {
        return new CertificateAuthority() {
            @Override
            public X509Certificate caCertificate() {
                return ca;
            }

            @Override
            public KeyStore issue(String subject, X509Certificates.Purpose purpose, List<String> sans,
                                  Duration validity) {
                try {
                    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
                    g.initialize(new ECGenParameterSpec("secp256r1"));
                    KeyPair kp = g.generateKeyPair();
                    X509Certificate cert = X509Certificates.sign(subject, kp.getPublic(), caKey, ca, validity, purpose,
                            sans);
                    KeyStore ks = KeyStore.getInstance("PKCS12");
                    ks.load(null, null);
                    ks.setKeyEntry(KEY_ALIAS, kp.getPrivate(), new char[0], new Certificate[] {cert, ca});
                    return ks;
                } catch (GeneralSecurityException | IOException e) {
                    throw new IllegalStateException("could not issue a certificate for " + subject, e);
                }
            }

            @Override
            public X509Certificate sign(CertificateRequests.Request request, List<String> usages, Duration validity) {
                return CertificateRequests.sign(request, usages, validity, ca, caKey);
            }
        };
    }

    /** A TLS context presenting the key store's key and trusting only this CA (for either side of a connection). */
    default SSLContext tls(KeyStore keys) {
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCertificate());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not set up TLS", e);
        }
    }
}

package io.cybernetes.apiserver.internal;

import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.apache.tomcat.util.net.SSLUtil;
import org.apache.tomcat.util.net.jsse.JSSEImplementation;
import org.apache.tomcat.util.net.jsse.JSSEUtil;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The HTTPS connector's TLS, taking client certificates as kube-apiserver's does: one is
 * asked for, naming the cluster CA (the trust store's certificates) as the issuer wanted,
 * and whatever the client sends is accepted in the handshake — the x509 authenticator
 * judges it (signature, validity, client-auth usage), so a certificate that does not check
 * out gets a 401 Status, as from kube-apiserver, rather than a TLS alert the client can
 * only report as a broken connection. Named as the connector's {@code sslImplementationName}.
 */
public final class ClientCertificatesJudgedLater extends JSSEImplementation {

    @Override
    public SSLUtil getSSLUtil(SSLHostConfigCertificate certificate) {
        return new JSSEUtil(certificate) {
            @Override
            public TrustManager[] getTrustManagers() throws Exception {
                KeyStore store = certificate.getSSLHostConfig().getTruststore();
                List<X509Certificate> issuers = new ArrayList<>();
                if (store != null) {
                    for (String alias : Collections.list(store.aliases())) {
                        if (store.getCertificate(alias) instanceof X509Certificate ca) {
                            issuers.add(ca);
                        }
                    }
                }
                return new TrustManager[] {new TakeAnyClientCertificate(issuers.toArray(X509Certificate[]::new))};
            }
        };
    }

    /** Accepts any client chain in the handshake; never used for a server's chain (this side is the server). */
    static final class TakeAnyClientCertificate extends X509ExtendedTrustManager {

        private final X509Certificate[] issuers;

        TakeAnyClientCertificate(X509Certificate[] issuers) {
            this.issuers = issuers;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("the API server's connector trusts no server");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return issuers.clone();
        }
    }
}

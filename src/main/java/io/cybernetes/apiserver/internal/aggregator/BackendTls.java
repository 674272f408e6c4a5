package io.cybernetes.apiserver.internal.aggregator;

import io.cybernetes.api.X509Certificates;
import io.cybernetes.auth.ClusterPki;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * How the aggregator talks TLS to an extension API server, as kube-apiserver does: it
 * presents the front-proxy client certificate ({@value #PROXY_CLIENT}, from the cluster CA,
 * which {@code extension-apiserver-authentication} names as the request-header CA), and
 * trusts the server when its certificate chains to the APIService's {@code caBundle} and
 * names the service ({@code <service>.<namespace>.svc}), or at all with
 * {@code insecureSkipTLSVerify}.
 */
final class BackendTls {

    static final String PROXY_CLIENT = "front-proxy-client";

    private final KeyStore clientKeys;

    BackendTls(ClusterPki pki) {
        this.clientKeys = pki.issue("CN=" + PROXY_CLIENT, X509Certificates.Purpose.CLIENT, List.of(),
                Duration.ofDays(365));
    }

    /** A TLS context for one service: its CA bundle (base64 PEM or DER, empty: the JVM's roots) and its name. */
    SSLContext context(String caBundle, boolean insecure, String serverName) throws GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        try {
            kmf.init(clientKeys, new char[0]);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the front-proxy client key cannot be read", e);
        }
        X509TrustManager roots = roots(caBundle);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), new javax.net.ssl.TrustManager[] {new Verifier(roots, insecure,
                serverName)}, null);
        return context;
    }

    private static X509TrustManager roots(String caBundle) throws GeneralSecurityException {
        KeyStore trust = null;
        if (caBundle != null && !caBundle.isEmpty()) {
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(caBundle);
            } catch (IllegalArgumentException e) {
                throw new CertificateException("caBundle is not base64");
            }
            trust = KeyStore.getInstance("PKCS12");
            try {
                trust.load(null, null);
            } catch (java.io.IOException e) {
                throw new GeneralSecurityException(e);
            }
            int i = 0;
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))) {
                trust.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new CertificateException("caBundle holds no certificate");
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        for (var tm : tmf.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 trust manager");
    }

    /** Chains to the roots and names the service (not the address dialled), or nothing at all when insecure. */
    private static final class Verifier extends X509ExtendedTrustManager {
        private final X509TrustManager roots;
        private final boolean insecure;
        private final String serverName;

        Verifier(X509TrustManager roots, boolean insecure, String serverName) {
            this.roots = roots;
            this.insecure = insecure;
            this.serverName = serverName;
        }

        private void check(X509Certificate[] chain, String authType) throws CertificateException {
            if (insecure) {
                return;
            }
            roots.checkServerTrusted(chain, authType);
            List<String> names = new java.util.ArrayList<>();
            if (chain[0].getSubjectAlternativeNames() != null) {
                for (List<?> san : chain[0].getSubjectAlternativeNames()) {
                    names.add(String.valueOf(san.get(1)));
                }
            }
            if (names.stream().noneMatch(n -> n.equals(serverName) || wildcard(n, serverName))) {
                throw new CertificateException("x509: certificate is valid for " + String.join(", ", names) + ", not "
                        + serverName);
            }
        }

        /** {@code *.ns.svc} names one label more, as Go's hostname check allows. */
        private static boolean wildcard(String pattern, String host) {
            return pattern.startsWith("*.") && host.indexOf('.') > 0
                    && host.substring(host.indexOf('.')).equals(pattern.substring(1));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("not a server");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            throw new CertificateException("not a server");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("not a server");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return roots.getAcceptedIssuers();
        }
    }
}

package io.cybernetes;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/** A CA of a test's own and a serving certificate for 127.0.0.1 it signed, for HTTPS servers tests start. */
public final class TestCertificates {

    /** The CA's certificate, and a TLS context serving the certificate it issued. */
    public record Served(X509Certificate ca, SSLContext server) {

        /** The CA as base64 of its PEM, as a caBundle or certificate-authority-data holds it. */
        public String caBase64Pem() {
            return Base64.getEncoder().encodeToString(("-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder().encodeToString(encoded()) + "\n-----END CERTIFICATE-----\n")
                    .getBytes(StandardCharsets.US_ASCII));
        }

        private byte[] encoded() {
            try {
                return ca.getEncoded();
            } catch (java.security.cert.CertificateEncodingException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private TestCertificates() {
    }

    public static Served forLocalhost() throws GeneralSecurityException, java.io.IOException,
            org.bouncycastle.operator.OperatorCreationException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair caKeys = g.generateKeyPair();
        X500Name caName = new X500Name("CN=test-ca");
        X509Certificate ca = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(caName,
                BigInteger.ONE, Date.from(Instant.now().minusSeconds(60)), Date.from(Instant.now().plusSeconds(3600)),
                caName, caKeys.getPublic()).addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                .build(new JcaContentSignerBuilder("SHA256withRSA").build(caKeys.getPrivate())));
        KeyPair serverKeys = g.generateKeyPair();
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(caName,
                BigInteger.TWO, Date.from(Instant.now().minusSeconds(60)), Date.from(Instant.now().plusSeconds(3600)),
                new X500Name("CN=webhook"), serverKeys.getPublic())
                .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName(
                        GeneralName.iPAddress, "127.0.0.1")))
                .build(new JcaContentSignerBuilder("SHA256withRSA").build(caKeys.getPrivate())));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("server", serverKeys.getPrivate(), new char[0], new Certificate[] {cert, ca});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
        return new Served(ca, ssl);
    }
}

package io.cybernetes.api;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/** X.509 certificates as the cluster PKI issues them, and PEM in and out. */
public final class X509Certificates {

    /** What a leaf certificate is for. */
    public enum Purpose { SERVER, CLIENT }

    private X509Certificates() {
    }

    /**
     * A certificate for {@code subject} (for example {@code CN=system:node:n1,O=system:nodes})
     * with the public key, signed by the issuer's key ({@code issuer} null: self-signed).
     * A CA when {@code purpose} is null; else a leaf for the purpose, with the names given
     * (DNS names and IP addresses) as subject alternative names.
     */
    public static X509Certificate sign(String subject, PublicKey subjectKey, PrivateKey issuerKey,
                                       X509Certificate issuer, Duration validity, Purpose purpose, List<String> sans) {
        try {
            Instant now = Instant.now();
            X500Name subjectName = new X500Name(subject);
            X500Name issuerName = issuer == null ? subjectName
                    : new X500Name(issuer.getSubjectX500Principal().getName());
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuerName,
                    new BigInteger(127, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))),
                    Date.from(now.plus(validity)), subjectName, subjectKey);
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            boolean isCa = purpose == null;
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
            b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(subjectKey));
            if (isCa) {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign
                        | KeyUsage.digitalSignature));
            } else {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature
                        | KeyUsage.keyEncipherment));
                b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose == Purpose.SERVER
                        ? KeyPurposeId.id_kp_serverAuth : KeyPurposeId.id_kp_clientAuth));
                b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(issuer));
            }
            if (!sans.isEmpty()) {
                List<GeneralName> names = new ArrayList<>();
                for (String s : sans) {
                    boolean ip = s.matches("[0-9.]+") || s.contains(":");
                    names.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, s));
                }
                b.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(names.toArray(GeneralName[]::new)));
            }
            String algorithm = issuerKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            return new JcaX509CertificateConverter().getCertificate(b.build(
                    new JcaContentSignerBuilder(algorithm).build(issuerKey)));
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("could not issue a certificate for " + subject + ": " + e.getMessage(), e);
        }
    }

    /** A certificate, private key (PKCS#8) or public key as PEM. */
    public static String pem(Object o) {
        StringWriter sw = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(sw)) {
            if (o instanceof PrivateKey k) {
                w.writeObject(new org.bouncycastle.util.io.pem.PemObject("PRIVATE KEY", k.getEncoded()));
            } else {
                w.writeObject(o);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return sw.toString();
    }

    public static X509Certificate readCertificate(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** A private key from PEM, PKCS#8 or a traditional key pair. */
    public static PrivateKey readPrivateKey(Path pem) throws IOException {
        try (PEMParser p = new PEMParser(new StringReader(Files.readString(pem)))) {
            Object o = p.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair pair) {
                return converter.getKeyPair(pair).getPrivate();
            }
            if (o instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            throw new IOException(pem + " holds no private key");
        }
    }
}

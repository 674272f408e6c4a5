package io.cybernetes.api;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERIA5String;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;

/**
 * PKCS#10 certificate signing requests as a CertificateSigningRequest carries them
 * ({@code spec.request}: the PEM in base64), and the certificates a signer issues for them
 * with the key usages the request names, as Kubernetes' signers do.
 */
public final class CertificateRequests {

    /** What a request asks for: its subject and names, and the key to certify. */
    public record Request(String commonName, List<String> organizations, List<String> dnsNames,
                          List<String> ipAddresses, List<String> emails, List<String> uris, PublicKey publicKey,
                          X500Name subject) {
    }

    private static final Map<String, Integer> KEY_USAGES = Map.ofEntries(
            Map.entry("signing", KeyUsage.digitalSignature),
            Map.entry("digital signature", KeyUsage.digitalSignature),
            Map.entry("content commitment", KeyUsage.nonRepudiation),
            Map.entry("key encipherment", KeyUsage.keyEncipherment),
            Map.entry("key agreement", KeyUsage.keyAgreement),
            Map.entry("data encipherment", KeyUsage.dataEncipherment),
            Map.entry("cert sign", KeyUsage.keyCertSign),
            Map.entry("crl sign", KeyUsage.cRLSign),
            Map.entry("encipher only", KeyUsage.encipherOnly),
            Map.entry("decipher only", KeyUsage.decipherOnly));
    private static final Map<String, KeyPurposeId> EXT_KEY_USAGES = Map.ofEntries(
            Map.entry("any", KeyPurposeId.anyExtendedKeyUsage),
            Map.entry("server auth", KeyPurposeId.id_kp_serverAuth),
            Map.entry("client auth", KeyPurposeId.id_kp_clientAuth),
            Map.entry("code signing", KeyPurposeId.id_kp_codeSigning),
            Map.entry("email protection", KeyPurposeId.id_kp_emailProtection),
            Map.entry("s/mime", KeyPurposeId.id_kp_emailProtection),
            Map.entry("ipsec end system", KeyPurposeId.id_kp_ipsecEndSystem),
            Map.entry("ipsec tunnel", KeyPurposeId.id_kp_ipsecTunnel),
            Map.entry("ipsec user", KeyPurposeId.id_kp_ipsecUser),
            Map.entry("timestamping", KeyPurposeId.id_kp_timeStamping),
            Map.entry("ocsp signing", KeyPurposeId.id_kp_OCSPSigning),
            Map.entry("microsoft sgc", KeyPurposeId.getInstance(new ASN1ObjectIdentifier("1.3.6.1.4.1.311.10.3.3"))),
            Map.entry("netscape sgc", KeyPurposeId.getInstance(new ASN1ObjectIdentifier("2.16.840.1.113730.4.1"))));

    private CertificateRequests() {
    }

    /** Why {@code spec.request} is not a request whose signature holds, in Kubernetes' words; null when it is. */
    public static String problem(String base64Pem) {
        try {
            parse(base64Pem);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** The request; IllegalArgumentException saying what is wrong with it. */
    public static Request parse(String base64Pem) {
        byte[] pem;
        try {
            pem = Base64.getDecoder().decode(base64Pem);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("illegal base64 data: " + e.getMessage());
        }
        PKCS10CertificationRequest csr;
        try (PEMParser p = new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
            Object o = p.readObject();
            if (!(o instanceof PKCS10CertificationRequest r)) {
                throw new IllegalArgumentException("PEM block type must be CERTIFICATE REQUEST");
            }
            csr = r;
        } catch (IOException | RuntimeException e) {
            if (e instanceof IllegalArgumentException iae) {
                throw iae;
            }
            throw new IllegalArgumentException("PEM block type must be CERTIFICATE REQUEST");
        }
        PublicKey key;
        try {
            JcaPKCS10CertificationRequest jca = new JcaPKCS10CertificationRequest(csr);
            key = jca.getPublicKey();
            if (!csr.isSignatureValid(new JcaContentVerifierProviderBuilder().build(key))) {
                throw new IllegalArgumentException("x509: the request's signature does not verify");
            }
        } catch (GeneralSecurityException | OperatorCreationException | PKCSException e) {
            throw new IllegalArgumentException("x509: cannot check the request's signature: " + e.getMessage());
        }
        X500Name subject = csr.getSubject();
        List<String> dns = new ArrayList<>();
        List<String> ips = new ArrayList<>();
        List<String> emails = new ArrayList<>();
        List<String> uris = new ArrayList<>();
        for (org.bouncycastle.asn1.pkcs.Attribute a : csr.getAttributes(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest)) {
            for (ASN1Encodable v : a.getAttributeValues()) {
                GeneralNames names = GeneralNames.fromExtensions(Extensions.getInstance(v),
                        Extension.subjectAlternativeName);
                if (names == null) {
                    continue;
                }
                for (GeneralName n : names.getNames()) {
                    switch (n.getTagNo()) {
                        case GeneralName.dNSName -> dns.add(DERIA5String.getInstance(n.getName()).getString());
                        case GeneralName.iPAddress -> ips.add(ip(n));
                        case GeneralName.rfc822Name -> emails.add(DERIA5String.getInstance(n.getName()).getString());
                        case GeneralName.uniformResourceIdentifier ->
                                uris.add(DERIA5String.getInstance(n.getName()).getString());
                        default -> { }
                    }
                }
            }
        }
        return new Request(first(subject, BCStyle.CN), all(subject, BCStyle.O), dns, ips, emails, uris, key, subject);
    }

    private static String ip(GeneralName n) {
        try {
            return InetAddress.getByAddress(org.bouncycastle.asn1.ASN1OctetString.getInstance(n.getName()).getOctets())
                    .getHostAddress();
        } catch (IOException e) {
            return "";
        }
    }

    private static String first(X500Name name, ASN1ObjectIdentifier type) {
        List<String> all = all(name, type);
        return all.isEmpty() ? "" : all.get(0);
    }

    /** Every value of the attribute, in multi-valued RDNs ({@code ST=x+O=system:masters}) too. */
    private static List<String> all(X500Name name, ASN1ObjectIdentifier type) {
        List<String> out = new ArrayList<>();
        for (RDN rdn : name.getRDNs()) {
            for (org.bouncycastle.asn1.x500.AttributeTypeAndValue atv : rdn.getTypesAndValues()) {
                if (atv.getType().equals(type)) {
                    out.add(IETFUtils.valueToString(atv.getValue()));
                }
            }
        }
        return out;
    }

    /** Why {@code status.certificate} (base64 of PEM) is not a chain of certificates; null when it is, or empty. */
    public static String certificateProblem(String base64Pem) {
        if (base64Pem.isEmpty()) {
            return null;
        }
        String pem;
        try {
            pem = new String(Base64.getDecoder().decode(base64Pem), StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            return "illegal base64 data: " + e.getMessage();
        }
        int blocks = 0;
        try (PEMParser p = new PEMParser(new StringReader(pem))) {
            org.bouncycastle.util.io.pem.PemObject o;
            while ((o = p.readPemObject()) != null) {
                if (!o.getType().equals("CERTIFICATE")) {
                    return "only CERTIFICATE PEM blocks are allowed, found \"" + o.getType() + "\"";
                }
                if (!o.getHeaders().isEmpty()) {
                    return "no PEM block headers are permitted";
                }
                CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(o.getContent()));
                blocks++;
            }
        } catch (IOException | GeneralSecurityException e) {
            return "x509: " + e.getMessage();
        }
        return blocks == 0 ? "must contain at least one CERTIFICATE PEM block" : null;
    }

    /**
     * A certificate for the request signed by the CA: its subject and names, the key usages and
     * extended key usages named, valid from five minutes ago (for clocks behind ours) for
     * {@code validity}, never past the CA's own expiry.
     */
    public static X509Certificate sign(Request request, List<String> usages, Duration validity, X509Certificate ca,
                                       PrivateKey caKey) {
        try {
            Instant now = Instant.now();
            Date notAfter = Date.from(now.plus(validity));
            if (notAfter.after(ca.getNotAfter())) {
                notAfter = ca.getNotAfter();
            }
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                    X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()), new BigInteger(127, new SecureRandom()),
                    Date.from(now.minus(Duration.ofMinutes(5))), notAfter, request.subject(), request.publicKey());
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            int keyUsage = 0;
            List<KeyPurposeId> purposes = new ArrayList<>();
            for (String u : usages) {
                keyUsage |= KEY_USAGES.getOrDefault(u, 0);
                KeyPurposeId p = EXT_KEY_USAGES.get(u);
                if (p != null && !purposes.contains(p)) {
                    purposes.add(p);
                }
            }
            if (keyUsage != 0) {
                b.addExtension(Extension.keyUsage, true, new KeyUsage(keyUsage));
            }
            if (!purposes.isEmpty()) {
                b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes.toArray(KeyPurposeId[]::new)));
            }
            b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca));
            List<GeneralName> names = new ArrayList<>();
            request.dnsNames().forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
            request.ipAddresses().forEach(n -> names.add(new GeneralName(GeneralName.iPAddress, n)));
            request.emails().forEach(n -> names.add(new GeneralName(GeneralName.rfc822Name, n)));
            request.uris().forEach(n -> names.add(new GeneralName(GeneralName.uniformResourceIdentifier, n)));
            if (!names.isEmpty()) {
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
            }
            String algorithm = caKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder(algorithm)
                    .build(caKey)));
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("could not sign a certificate for " + request.subject() + ": "
                    + e.getMessage(), e);
        }
    }
}

package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;

import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Client certificates, judged as kube-apiserver's x509 authenticator judges them (the
 * handshake takes any): a chain from the certificate through the intermediates the client
 * sent to the cluster CA (PKIX: signatures, validity periods, CA constraints, no critical
 * extension left unknown, no algorithm the JDK has disabled), and the certificate meant for
 * client authentication when it limits its use; then CN is the user name and each O a
 * group. A certificate that checks out without a CN names nobody: the next authenticator
 * has its turn, as in kube.
 */
final class X509Authenticator {

    /** Extended key usages that allow client authentication: clientAuth, and any. */
    private static final List<String> CLIENT_USAGES = List.of("1.3.6.1.5.5.7.3.2", "2.5.29.37.0");

    private final X509Certificate ca;
    private final Set<TrustAnchor> anchors;

    X509Authenticator(X509Certificate ca) {
        this.ca = ca;
        this.anchors = Set.of(new TrustAnchor(ca, null));
    }

    /**
     * The user of the chain's first certificate, or empty when the chain checks out but names nobody (no CN).
     *
     * @param chain the certificate the client presented, then the intermediates it sent (the CA's own, if sent
     *              too, is left out: the cluster CA is the only anchor)
     * @throws CertificateException when it does not check out: no chain to the cluster CA, a certificate expired or
     *                              not yet valid, or one meant for other uses than client authentication
     */
    Optional<UserInfo> authenticate(X509Certificate... chain) throws CertificateException {
        try {
            X509Certificate cert = chain[0];
            List<X509Certificate> path = new ArrayList<>();
            for (X509Certificate c : chain) {
                if (!c.equals(ca)) {
                    path.add(c);
                }
            }
            PKIXParameters parameters = new PKIXParameters(anchors);
            parameters.setRevocationEnabled(false);
            CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509")
                    .generateCertPath(path), parameters);
            List<String> usages = cert.getExtendedKeyUsage();
            if (usages != null && usages.stream().noneMatch(CLIENT_USAGES::contains)) {
                throw new CertificateException("certificate specifies an incompatible key usage");
            }
            String cn = null;
            List<String> groups = new ArrayList<>();
            // every attribute of every RDN, a multi-valued one (O=a+ST=b) included, as Go's pkix.Name reads them
            for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                javax.naming.NamingEnumeration<? extends javax.naming.directory.Attribute> attributes =
                        rdn.toAttributes().getAll();
                while (attributes.hasMoreElements()) {
                    javax.naming.directory.Attribute attribute = attributes.nextElement();
                    for (int i = 0; i < attribute.size(); i++) {
                        String value = String.valueOf(attribute.get(i));
                        if (attribute.getID().equalsIgnoreCase("CN")) {
                            cn = value;
                        } else if (attribute.getID().equalsIgnoreCase("O")) {
                            groups.add(value);
                        }
                    }
                }
            }
            if (cn == null || cn.isEmpty()) {
                return Optional.empty();
            }
            if (!groups.contains(UserInfo.AUTHENTICATED)) {
                groups.add(UserInfo.AUTHENTICATED);
            }
            return Optional.of(new UserInfo(cn, "", List.copyOf(groups), Map.of()));
        } catch (CertificateException e) {
            throw e;
        } catch (GeneralSecurityException | javax.naming.NamingException | RuntimeException e) {
            // whatever a certificate the client chose makes of the checks, it does not check out: never a 500
            throw new CertificateException(String.valueOf(e.getMessage()), e);
        }
    }
}

package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;

import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Client certificates, judged as kube-apiserver's x509 authenticator judges them (the
 * handshake takes any): signed by the cluster CA, valid now and, when the certificate
 * limits its use, meant for client authentication; then CN is the user name and each O a
 * group. A certificate that checks out without a CN names nobody: the next authenticator
 * has its turn, as in kube.
 */
final class X509Authenticator {

    /** Extended key usages that allow client authentication: clientAuth, and any. */
    private static final List<String> CLIENT_USAGES = List.of("1.3.6.1.5.5.7.3.2", "2.5.29.37.0");

    private final PublicKey caKey;

    X509Authenticator(X509Certificate ca) {
        this.caKey = ca.getPublicKey();
    }

    /**
     * The certificate's user, or empty when it checks out but names nobody (no CN).
     *
     * @throws CertificateException when it does not check out: not the cluster CA's, expired or not yet valid,
     *                              or meant for other uses than client authentication
     */
    Optional<UserInfo> authenticate(X509Certificate cert) throws CertificateException {
        try {
            cert.checkValidity();
            cert.verify(caKey);
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
            groups.add(UserInfo.AUTHENTICATED);
            return Optional.of(new UserInfo(cn, "", List.copyOf(groups), Map.of()));
        } catch (CertificateException e) {
            throw e;
        } catch (GeneralSecurityException | javax.naming.NamingException e) {
            throw new CertificateException(e.getMessage(), e);
        }
    }
}

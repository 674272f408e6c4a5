package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;

import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Client certificates: the handshake verified the chain against the cluster CA; this
 * checks the signature and validity again (the HTTP port has no handshake) and maps
 * CN to the user name and each O to a group, as kube-apiserver does.
 */
final class X509Authenticator {

    private final PublicKey caKey;

    X509Authenticator(X509Certificate ca) {
        this.caKey = ca.getPublicKey();
    }

    Optional<UserInfo> authenticate(X509Certificate cert) {
        try {
            cert.checkValidity();
            cert.verify(caKey);
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
        } catch (java.security.GeneralSecurityException | javax.naming.NamingException e) {
            return Optional.empty();
        }
    }
}

package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The x509 authenticator judges a client certificate as kube-apiserver's does: a chain to
 * the cluster CA (through intermediates the client sent), the validity period, no unknown
 * critical extension and the client-auth usage (when the certificate limits its usages); CN
 * and O make the user; without a CN it names nobody, which is no error.
 */
class X509AuthenticatorTest {

    private static final KeyPair CA_KEY = rsa();
    private static final X509Certificate CA = certificate("CN=cluster-ca", "CN=cluster-ca", CA_KEY, CA_KEY, 0, true,
            null);
    private final X509Authenticator authenticator = new X509Authenticator(CA);

    private static KeyPair rsa() {
        try {
            return KeyPairGenerator.getInstance("RSA").generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A certificate for {@code subject}, signed with {@code signer}, valid from {@code shift} seconds from now on. */
    private static X509Certificate certificate(String subject, String issuer, KeyPair own, KeyPair signer, long shift,
                                               boolean ca, KeyPurposeId[] usages) {
        try {
            var builder = new JcaX509v3CertificateBuilder(new X500Name(issuer), BigInteger.valueOf(System.nanoTime()),
                    Date.from(Instant.now().plusSeconds(shift - 60)), Date.from(Instant.now().plusSeconds(shift + 3600)),
                    new X500Name(subject), own.getPublic());
            if (ca) {
                builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            }
            if (usages != null) {
                builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usages));
            }
            return new JcaX509CertificateConverter().getCertificate(builder.build(
                    new JcaContentSignerBuilder("SHA256withRSA").build(signer.getPrivate())));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate client(String subject, KeyPurposeId... usages) {
        return certificate(subject, "CN=cluster-ca", rsa(), CA_KEY, 0, false, usages.length == 0 ? null : usages);
    }

    @Test
    void theCommonNameIsTheUserAndEachOrganizationAGroup() throws Exception {
        UserInfo user = authenticator.authenticate(client("CN=jane,O=dev,O=ops", KeyPurposeId.id_kp_clientAuth))
                .orElseThrow();
        assertThat(user.name()).isEqualTo("jane");
        assertThat(user.groups()).containsExactly("dev", "ops", UserInfo.AUTHENTICATED);
    }

    @Test
    void aCertificateWithoutUsagesOrForAnyUsageMayAuthenticateAClient() throws Exception {
        assertThat(authenticator.authenticate(client("CN=plain"))).isPresent();
        assertThat(authenticator.authenticate(client("CN=any", KeyPurposeId.anyExtendedKeyUsage))).isPresent();
        assertThat(authenticator.authenticate(client("CN=both", KeyPurposeId.id_kp_serverAuth,
                KeyPurposeId.id_kp_clientAuth))).isPresent();
    }

    @Test
    void oneForServingOnlyFromAnotherCaOrOutOfItsPeriodDoesNotCheckOut() {
        assertThatThrownBy(() -> authenticator.authenticate(client("CN=server", KeyPurposeId.id_kp_serverAuth)))
                .isInstanceOf(CertificateException.class).hasMessageContaining("incompatible key usage");
        KeyPair other = rsa();
        assertThatThrownBy(() -> authenticator.authenticate(certificate("CN=jane", "CN=cluster-ca", rsa(), other, 0,
                false, null))).isInstanceOf(CertificateException.class);
        assertThatThrownBy(() -> authenticator.authenticate(certificate("CN=late", "CN=cluster-ca", rsa(), CA_KEY,
                -7200, false, null))).isInstanceOf(CertificateException.class);
        assertThatThrownBy(() -> authenticator.authenticate(certificate("CN=early", "CN=cluster-ca", rsa(), CA_KEY,
                7200, false, null))).isInstanceOf(CertificateException.class);
    }

    @Test
    void aChainThroughAnIntermediateTheClientSentChecksOutAndOneThroughANonCaDoesNot() throws Exception {
        KeyPair intermediateKey = rsa();
        X509Certificate intermediate = certificate("CN=team-ca", "CN=cluster-ca", intermediateKey, CA_KEY, 0, true,
                null);
        X509Certificate leaf = certificate("CN=sam,O=team", "CN=team-ca", rsa(), intermediateKey, 0, false,
                new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth});
        assertThat(authenticator.authenticate(leaf, intermediate).orElseThrow().name()).isEqualTo("sam");
        assertThat(authenticator.authenticate(leaf, intermediate, CA)).as("the CA sent along").isPresent();
        assertThatThrownBy(() -> authenticator.authenticate(leaf)).as("the intermediate not sent")
                .isInstanceOf(CertificateException.class);
        KeyPair notCaKey = rsa();
        X509Certificate notCa = certificate("CN=not-a-ca", "CN=cluster-ca", notCaKey, CA_KEY, 0, false, null);
        X509Certificate underIt = certificate("CN=mallory", "CN=not-a-ca", rsa(), notCaKey, 0, false, null);
        assertThatThrownBy(() -> authenticator.authenticate(underIt, notCa)).isInstanceOf(CertificateException.class);
    }

    @Test
    void anUnknownCriticalExtensionDoesNotCheckOutAndAnAuthenticatedGroupIsNotRepeated() throws Exception {
        var builder = new JcaX509v3CertificateBuilder(new X500Name("CN=cluster-ca"), BigInteger.ONE,
                Date.from(Instant.now().minusSeconds(60)), Date.from(Instant.now().plusSeconds(3600)),
                new X500Name("CN=odd"), rsa().getPublic());
        builder.addExtension(new ASN1ObjectIdentifier("1.3.6.1.4.1.99999.1"), true, new DEROctetString(new byte[1]));
        X509Certificate odd = new JcaX509CertificateConverter().getCertificate(builder.build(
                new JcaContentSignerBuilder("SHA256withRSA").build(CA_KEY.getPrivate())));
        assertThatThrownBy(() -> authenticator.authenticate(odd)).isInstanceOf(CertificateException.class);
        assertThat(authenticator.authenticate(client("CN=dup,O=system:authenticated")).orElseThrow().groups())
                .containsExactly(UserInfo.AUTHENTICATED);
    }

    @Test
    void withoutACommonNameItNamesNobodyWithoutError() throws Exception {
        assertThat(authenticator.authenticate(client("O=system:masters", KeyPurposeId.id_kp_clientAuth))).isEmpty();
    }

    @Test
    void theBearerTokenIsTheSecondWordAndAnEmptyOneIsNone() {
        assertThat(KubernetesAuthenticationFilter.bearerToken("Bearer abc")).isEqualTo("abc");
        assertThat(KubernetesAuthenticationFilter.bearerToken("  bearer abc trailing words ")).isEqualTo("abc");
        assertThat(KubernetesAuthenticationFilter.bearerToken("Bearer  abc")).isNull();
        assertThat(KubernetesAuthenticationFilter.spaceBeforeToken("Bearer  abc")).isTrue();
        assertThat(KubernetesAuthenticationFilter.spaceBeforeToken("Bearer abc")).isFalse();
        assertThat(KubernetesAuthenticationFilter.bearerToken("Bearer")).isNull();
        assertThat(KubernetesAuthenticationFilter.spaceBeforeToken("Bearer ")).isFalse();
        assertThat(KubernetesAuthenticationFilter.bearerToken("Basic abc")).isNull();
        assertThat(KubernetesAuthenticationFilter.bearerToken(null)).isNull();
    }
}

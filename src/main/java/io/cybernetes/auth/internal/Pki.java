package io.cybernetes.auth.internal;

import io.cybernetes.auth.AuthProperties;
import io.cybernetes.api.PrivateFiles;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.auth.ClusterPki;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Creates the cluster PKI under {@code <dataDir>/pki} on first start and loads it
 * afterwards: a CA, a serving certificate for localhost, 127.0.0.1 and the host name,
 * an admin client certificate (CN admin, O system:masters), an admin token and the
 * key pair that signs ServiceAccount tokens.
 */
final class Pki implements ClusterPki {

    private static final Duration CA_VALIDITY = Duration.ofDays(3650);
    private static final Duration CERT_VALIDITY = Duration.ofDays(365);

    private final Path dir;
    private final Path dataDir;
    private final X509Certificate ca;
    private final PrivateKey caKey;
    private final X509Certificate serving;
    private final PrivateKey servingKey;
    private final X509Certificate adminCert;
    private final PrivateKey adminKey;
    private final String adminToken;
    private final KeyPair serviceAccountKeys;

    Pki(AuthProperties props) {
        this.dataDir = props.dataDir();
        this.dir = dataDir.resolve("pki");
        PrivateFiles.directory(dataDir);
        PrivateFiles.directory(dir);
        PrivateFiles.tree(dataDir);
        // Replicas sharing a data directory may start together: one creates, the others wait and load.
        try (java.nio.channels.FileChannel lockFile = java.nio.channels.FileChannel.open(dir.resolve(".lock"),
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
             java.nio.channels.FileLock lock = lockFile.lock()) {
            if (!Files.exists(dir.resolve("ca.crt"))) {
                KeyPair caPair = rsa();
                X509Certificate caCert = X509Certificates.sign("CN=cybernetes-ca", caPair.getPublic(),
                        caPair.getPrivate(), null, CA_VALIDITY, null, List.of());
                write("ca.crt", pem(caCert));
                write("ca.key", pem(caPair.getPrivate()));
            }
            this.ca = readCert("ca.crt");
            this.caKey = readKey("ca.key");
            if (!Files.exists(dir.resolve("apiserver.crt"))) {
                KeyPair kp = rsa();
                write("apiserver.crt", pem(X509Certificates.sign("CN=cybernetes-apiserver", kp.getPublic(), caKey, ca,
                        CERT_VALIDITY, X509Certificates.Purpose.SERVER, hostNames(props.hostNames()))));
                write("apiserver.key", pem(kp.getPrivate()));
            }
            if (!Files.exists(dir.resolve("admin.crt"))) {
                KeyPair kp = rsa();
                write("admin.crt", pem(X509Certificates.sign("CN=admin,O=system:masters", kp.getPublic(), caKey, ca,
                        CERT_VALIDITY, X509Certificates.Purpose.CLIENT, List.of())));
                write("admin.key", pem(kp.getPrivate()));
            }
            if (!Files.exists(dir.resolve("admin.token"))) {
                byte[] raw = new byte[32];
                new SecureRandom().nextBytes(raw);
                write("admin.token", HexFormat.of().formatHex(raw) + "\n");
            }
            if (!Files.exists(dir.resolve("sa.key"))) {
                KeyPair kp = rsa();
                write("sa.key", pem(kp.getPrivate()));
                write("sa.pub", pem(kp.getPublic()));
            }
            this.serviceAccountKeys = new KeyPair(readPublicKey("sa.pub"), readKey("sa.key"));
            this.serving = readCert("apiserver.crt");
            this.servingKey = readKey("apiserver.key");
            this.adminCert = readCert("admin.crt");
            this.adminKey = readKey("admin.key");
            this.adminToken = Files.readString(dir.resolve("admin.token")).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("could not create or read the cluster PKI under " + dir, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not create the cluster PKI", e);
        }
    }

    private static List<String> hostNames(List<String> extra) {
        Set<String> names = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        try {
            names.add(InetAddress.getLocalHost().getHostName());
        } catch (IOException e) {
            // no resolvable host name: localhost and loopback still work
        }
        names.addAll(extra);
        return new ArrayList<>(names);
    }

    private static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    private void write(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content, StandardCharsets.UTF_8);
        PrivateFiles.file(p);
    }

    private static String pem(Object o) {
        return X509Certificates.pem(o);
    }

    private X509Certificate readCert(String name) throws IOException, GeneralSecurityException {
        return X509Certificates.readCertificate(dir.resolve(name));
    }

    private PrivateKey readKey(String name) throws IOException {
        return X509Certificates.readPrivateKey(dir.resolve(name));
    }

    private java.security.PublicKey readPublicKey(String name) throws IOException {
        try (PEMParser p = new PEMParser(new StringReader(Files.readString(dir.resolve(name))))) {
            return new JcaPEMKeyConverter().getPublicKey((org.bouncycastle.asn1.x509.SubjectPublicKeyInfo) p.readObject());
        }
    }

    /** The key pair that signs and verifies ServiceAccount tokens ({@code sa.key}, {@code sa.pub}). */
    KeyPair serviceAccountKeys() {
        return serviceAccountKeys;
    }

    @Override
    public KeyStore servingKeyStore() {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("apiserver", servingKey, new char[0], new java.security.cert.Certificate[] {serving, ca});
            return ks;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not build the serving key store", e);
        }
    }

    @Override
    public KeyStore clientTrustStore() {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setCertificateEntry("cybernetes-ca", ca);
            return ks;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not build the client trust store", e);
        }
    }

    @Override
    public X509Certificate caCertificate() {
        return ca;
    }

    @Override
    public KeyStore issue(String subject, X509Certificates.Purpose purpose, List<String> sans, Duration validity) {
        return io.cybernetes.api.CertificateAuthority.of(ca, caKey).issue(subject, purpose, sans, validity);
    }

    @Override
    public X509Certificate sign(io.cybernetes.api.CertificateRequests.Request request, List<String> usages,
                                Duration validity) {
        return io.cybernetes.api.CertificateRequests.sign(request, usages, validity, ca, caKey);
    }

    @Override
    public String adminToken() {
        return adminToken;
    }

    @Override
    public Path writeAdminKubeconfig(String serverUrl) {
        Base64.Encoder b64 = Base64.getEncoder();
        try {
            String caData = b64.encodeToString(pem(ca).getBytes(StandardCharsets.UTF_8));
            String certData = b64.encodeToString(pem(adminCert).getBytes(StandardCharsets.UTF_8));
            String keyData = b64.encodeToString(pem(adminKey).getBytes(StandardCharsets.UTF_8));
            String yaml = """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: cybernetes
                      cluster:
                        server: %s
                        certificate-authority-data: %s
                    users:
                    - name: admin
                      user:
                        token: %s
                    - name: admin-x509
                      user:
                        client-certificate-data: %s
                        client-key-data: %s
                    contexts:
                    - name: cybernetes
                      context:
                        cluster: cybernetes
                        user: admin
                        namespace: default
                    - name: cybernetes-x509
                      context:
                        cluster: cybernetes
                        user: admin-x509
                        namespace: default
                    current-context: cybernetes
                    """.formatted(serverUrl, caData, adminToken, certData, keyData);
            Path p = dataDir.resolve("admin.kubeconfig");
            Files.writeString(p, yaml, StandardCharsets.UTF_8);
            PrivateFiles.file(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the admin kubeconfig", e);
        }
    }
}

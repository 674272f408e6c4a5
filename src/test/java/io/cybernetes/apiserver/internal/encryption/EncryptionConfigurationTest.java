package io.cybernetes.apiserver.internal.encryption;

import io.cybernetes.store.StorageException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EncryptionConfigurationTest {

    static String key(int bytes, int fill) {
        byte[] k = new byte[bytes];
        java.util.Arrays.fill(k, (byte) fill);
        return Base64.getEncoder().encodeToString(k);
    }

    static EncryptionConfiguration parse(String yaml) {
        return EncryptionConfiguration.parse(yaml.getBytes(StandardCharsets.UTF_8));
    }

    static String config(String resources, String providers) {
        return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                + "  - resources: [" + resources + "]\n    providers:\n" + providers;
    }

    @Test
    void secretboxSealsAsNaClDoes() {
        // the test vector of Go's nacl/secretbox, made with NaCl's C implementation
        byte[] key = new byte[32];
        java.util.Arrays.fill(key, (byte) 1);
        byte[] nonce = new byte[24];
        java.util.Arrays.fill(nonce, (byte) 2);
        byte[] message = new byte[64];
        java.util.Arrays.fill(message, (byte) 3);
        assertThat(HexFormat.of().formatHex(new Provider.Secretbox("k", key).box(nonce, message))).isEqualTo(
                "8442bc313f4626f1359e3b50122b6ce6fe66ddfe7d39d14e637eb4fd5b45beadab55198df6ab5368439792a23c87db70ac"
                        + "b6156dc5ef957ac04f6276cf6093b84be77ff0849cc33e34b7254d5a8f65ad");
    }

    @Test
    void everyProviderOpensWhatItSealedAndNothingTamperedWith() throws Exception {
        byte[] plain = "{\"data\":{\"password\":\"c2VjcmV0\"}}".getBytes(StandardCharsets.UTF_8);
        byte[] k = "core/secrets/default/db".getBytes(StandardCharsets.UTF_8);
        for (Provider p : new Provider[] {new Provider.AesGcm("a", new byte[32]), new Provider.AesCbc("b", new byte[16]),
                new Provider.Secretbox("c", new byte[32])}) {
            byte[] sealed = p.seal(plain, k);
            assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("password");
            assertThat(p.open(sealed, k)).isEqualTo(plain);
            assertThat(p.seal(plain, k)).as("a fresh nonce every time").isNotEqualTo(sealed);
            byte[] tampered = sealed.clone();
            tampered[tampered.length - 1] ^= 1;
            assertThatThrownBy(() -> p.open(tampered, k)).isInstanceOf(Provider.OpenFailed.class);
            assertThatThrownBy(() -> p.open(new byte[3], k)).hasMessage("the stored data was shorter than the required size");
        }
        Provider gcm = new Provider.AesGcm("a", new byte[32]);
        byte[] sealed = gcm.seal(plain, k);
        assertThatThrownBy(() -> gcm.open(sealed, "core/secrets/default/other".getBytes(StandardCharsets.UTF_8)))
                .as("AES-GCM binds the value to its key").hasMessage("cipher: message authentication failed");
        assertThatThrownBy(() -> new Provider.Identity().open("k8s:enc:aescbc:v1:x:abc".getBytes(StandardCharsets.UTF_8), k))
                .hasMessage("identity transformer tried to read encrypted data");
    }

    @Test
    void theFirstEntryNamingAResourceDecidesAndItsFirstProviderWrites() {
        EncryptionConfiguration c = parse("""
                apiVersion: apiserver.config.k8s.io/v1
                kind: EncryptionConfiguration
                resources:
                  - resources: [secrets, deployments.apps]
                    providers:
                      - aesgcm: {keys: [{name: new, secret: %s}, {name: old, secret: %s}]}
                      - identity: {}
                  - resources: ["*.apps"]
                    providers:
                      - aescbc: {keys: [{name: k, secret: %s}]}
                  - resources: ["*.*"]
                    providers:
                      - identity: {}
                """.formatted(key(32, 1), key(32, 2), key(16, 3)));
        EncryptingTransformer t = new EncryptingTransformer(c);
        assertThat(t.toStorage("core/secrets/ns/a", "{}")).startsWith("k8s:enc:aesgcm:v1:new:");
        assertThat(t.toStorage("apps/deployments/ns/a", "{}")).startsWith("k8s:enc:aesgcm:v1:new:");
        assertThat(t.toStorage("apps/replicasets/ns/a", "{}")).startsWith("k8s:enc:aescbc:v1:k:");
        assertThat(t.toStorage("core/configmaps/ns/a", "{}")).isEqualTo("{}");
        assertThat(t.fromStorage("core/secrets/ns/a", "{\"plain\":1}")).as("identity reads what was stored before")
                .isEqualTo("{\"plain\":1}");

        // what the old key wrote is read as long as the old key is configured
        EncryptingTransformer before = new EncryptingTransformer(parse(config("secrets",
                "      - aesgcm: {keys: [{name: old, secret: " + key(32, 2) + "}]}\n")));
        String old = before.toStorage("core/secrets/ns/a", "{\"v\":1}");
        assertThat(old).startsWith("k8s:enc:aesgcm:v1:old:");
        assertThat(t.fromStorage("core/secrets/ns/a", old)).isEqualTo("{\"v\":1}");
        assertThatThrownBy(() -> before.fromStorage("core/secrets/ns/a", t.toStorage("core/secrets/ns/a", "{}")))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("unable to transform key \"core/secrets/ns/a\": no matching prefix found"));
        EncryptingTransformer wrongSecret = new EncryptingTransformer(parse(config("secrets",
                "      - aesgcm: {keys: [{name: old, secret: " + key(32, 9) + "}]}\n")));
        assertThatThrownBy(() -> wrongSecret.fromStorage("core/secrets/ns/a", old)).hasMessage(
                "unable to transform key \"core/secrets/ns/a\": cipher: message authentication failed");
        EncryptingTransformer none = new EncryptingTransformer(parse(config("configmaps", "      - identity: {}\n")));
        assertThatThrownBy(() -> none.fromStorage("core/secrets/ns/a", old)).hasMessage(
                "unable to transform key \"core/secrets/ns/a\": identity transformer tried to read encrypted data");
    }

    @Test
    void identityFirstDecryptsAwayFromEncryption() {
        String sealed = new EncryptingTransformer(parse(config("secrets",
                "      - secretbox: {keys: [{name: k, secret: " + key(32, 4) + "}]}\n"))).toStorage("core/secrets/n/s", "{}");
        EncryptingTransformer away = new EncryptingTransformer(parse(config("secrets",
                "      - identity: {}\n      - secretbox: {keys: [{name: k, secret: " + key(32, 4) + "}]}\n")));
        assertThat(away.fromStorage("core/secrets/n/s", sealed)).isEqualTo("{}");
        assertThat(away.toStorage("core/secrets/n/s", "{}")).isEqualTo("{}");
    }

    @Test
    void badConfigurationsAreRefusedWithKubernetesWords() {
        assertThatThrownBy(() -> parse(config("secrets", "      - aesgcm: {keys: [{name: k, secret: " + key(10, 1) + "}]}\n")))
                .hasMessage("resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secret is not"
                        + " of the expected length, got 10, expected one of [16 24 32]");
        assertThatThrownBy(() -> parse(config("secrets", "      - secretbox: {keys: [{name: k, secret: " + key(16, 1) + "}]}\n")))
                .hasMessageContaining("got 16, expected one of [32]");
        assertThatThrownBy(() -> parse(config("secrets", "      - aescbc: {keys: [{name: k, secret: \"not base64!\"}]}\n")))
                .hasMessage("resources[0].providers[0].aescbc.keys[0].secret: Invalid value: \"REDACTED\": secrets must"
                        + " be base64 encoded");
        assertThatThrownBy(() -> parse(config("secrets", "      - identity: {}\n        aescbc: {keys: []}\n")))
                .hasMessage("resources[0].providers[0]: Invalid value: more than one provider specified in a single"
                        + " element, should split into different list elements");
        assertThatThrownBy(() -> parse(config("secrets", "      - aesgmc: {}\n")))
                .hasMessageContaining("provider does not contain any of the expected providers");
        assertThatThrownBy(() -> parse(config("\"*\"", "      - identity: {}\n")))
                .hasMessageContaining("use '*.' to encrypt all the resources from core API group or *.* to encrypt all");
        assertThatThrownBy(() -> parse(config("Secrets", "      - identity: {}\n")))
                .hasMessageContaining("resource name should not contain capital letters");
        assertThatThrownBy(() -> parse(config("secrets, \"*.\"", "      - identity: {}\n")))
                .hasMessageContaining("using overlapping resources such as 'secrets' and '*.' in the same resource list");
        assertThatThrownBy(() -> parse(config("secrets", "      - aescbc: {keys: []}\n")))
                .hasMessage("resources[0].providers[0].aescbc.keys: Required value: at least one keys is required");
        assertThatThrownBy(() -> parse("apiVersion: v1\nkind: Config\n"))
                .hasMessageStartingWith("got unexpected config type: v1, Kind=Config");
        assertThatThrownBy(() -> parse(config("secrets", "      - kms: {name: vault, endpoint: unix:///kms.sock}\n")))
                .hasMessageContaining("this server has no KMS plugin");
    }
}

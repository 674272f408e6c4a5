package io.cybernetes.apiserver;

import io.cybernetes.CybernetesApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.FileSystemUtils;

import javax.sql.DataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secrets encrypted at rest, through restarts of one server on one database: the key generated
 * at first start, then Kubernetes' documented rotation (a new key first, every Secret rewritten
 * with kubectl, the old key removed), and a configuration without the key that wrote them.
 */
class EncryptionAtRestTest {

    private static final Path DIR = Path.of("target/test-data/encryption-at-rest");
    private static final String DB = "jdbc:h2:retry:" + DIR.toAbsolutePath() + "/db;WRITE_DELAY=0";

    private static ConfigurableApplicationContext start(Path encryptionConfig) {
        List<String> args = new ArrayList<>(List.of("--spring.datasource.url=" + DB, "--server.port=0",
                "--cybernetes.apiserver.https-port=0", "--cybernetes.apiserver.https-address=127.0.0.1",
                "--cybernetes.auth.data-dir=" + DIR.resolve("data"), "--cybernetes.controllers.enabled=false",
                "--cybernetes.scheduler.enabled=false", "--cybernetes.nodes.count=0", "--spring.main.banner-mode=off"));
        if (encryptionConfig != null) {
            args.add("--cybernetes.apiserver.encryption-provider-config=" + encryptionConfig.toAbsolutePath());
        }
        return new SpringApplicationBuilder(CybernetesApplication.class).run(args.toArray(String[]::new));
    }

    private static Path config(String name, String... secretboxKeys) throws Exception {
        StringBuilder keys = new StringBuilder();
        for (String k : secretboxKeys) {
            keys.append("            - ").append(k).append('\n');
        }
        Path p = DIR.resolve(name + ".yaml");
        Files.writeString(p, """
                apiVersion: apiserver.config.k8s.io/v1
                kind: EncryptionConfiguration
                resources:
                  - resources: [secrets]
                    providers:
                      - secretbox:
                          keys:
                %s      - identity: {}
                """.formatted(keys));
        return p;
    }

    private static String stored(ConfigurableApplicationContext server, String key) {
        return new JdbcTemplate(server.getBean(DataSource.class))
                .queryForObject("SELECT l.obj_value FROM kv_current c JOIN kv_log l ON l.revision = c.mod_revision"
                        + " WHERE c.obj_key = ?", String.class, key);
    }

    private static List<String> logged(ConfigurableApplicationContext server, String key) {
        return new JdbcTemplate(server.getBean(DataSource.class))
                .queryForList("SELECT obj_value FROM kv_log WHERE obj_key = ?", String.class, key);
    }

    private static Kubectl kubectl() throws Exception {
        Path home = Files.createDirectories(DIR.resolve("kubectl"));
        return new Kubectl(DIR.resolve("data/admin.kubeconfig").toAbsolutePath(), home);
    }

    @Test
    void secretsAreCiphertextInTheDatabaseTheirKeyRotatesAndAMissingKeyIsAClear500() throws Exception {
        FileSystemUtils.deleteRecursively(DIR);
        Files.createDirectories(DIR);
        String password = Base64.getEncoder().encodeToString("hunter2".getBytes());
        String key1;
        try (ConfigurableApplicationContext server = start(null)) {
            Path generated = DIR.resolve("data/pki/encryption-config.yaml");
            assertThat(generated).as("a key generated at first start").exists();
            tools.jackson.databind.JsonNode keys = io.cybernetes.api.Json.YAML.readTree(generated.toFile())
                    .at("/resources/0/providers/0/secretbox/keys/0");
            assertThat(keys.path("name").asString()).isEqualTo("key1");
            assertThat(Base64.getDecoder().decode(keys.path("secret").asString())).hasSize(32);
            key1 = "{name: key1, secret: " + keys.path("secret").asString() + "}";
            Kubectl k = kubectl();
            for (String name : List.of("s1", "s2")) {
                assertThat(k.run("create", "secret", "generic", name, "--from-literal=password=hunter2").exit())
                        .isZero();
            }
            assertThat(k.run("create", "configmap", "c1", "--from-literal=color=blue").exit()).isZero();
            assertThat(stored(server, "core/secrets/default/s1")).startsWith("k8s:enc:secretbox:v1:key1:")
                    .doesNotContain(password).doesNotContain("hunter2");
            assertThat(logged(server, "core/secrets/default/s1")).isNotEmpty()
                    .allSatisfy(v -> assertThat(v).startsWith("k8s:enc:").doesNotContain(password));
            assertThat(stored(server, "core/configmaps/default/c1")).as("only Secrets, by default").contains("blue");
            Kubectl.Run yaml = k.run("get", "secret", "s1", "-o", "yaml");
            assertThat(yaml.out()).contains("password: " + password);
        }

        // rotation: the new key first (it writes), the old one still reads; every Secret rewritten; the old key gone
        String key2 = "{name: key2, secret: " + EncryptionKeys.random() + "}";
        try (ConfigurableApplicationContext server = start(config("rotating", key2, key1))) {
            Kubectl k = kubectl();
            assertThat(k.run("get", "secret", "s1", "-o", "jsonpath={.data.password}").out()).isEqualTo(password);
            Kubectl.Run all = k.run("get", "secrets", "--all-namespaces", "-o", "json");
            assertThat(all.exit()).isZero();
            Kubectl.Run replaced = k.runWithInput(all.out(), "replace", "-f", "-");
            assertThat(replaced.exit()).as(replaced.all()).isZero();
            for (String name : List.of("s1", "s2")) {
                assertThat(stored(server, "core/secrets/default/" + name)).startsWith("k8s:enc:secretbox:v1:key2:");
            }
        }
        try (ConfigurableApplicationContext server = start(config("rotated", key2))) {
            Kubectl k = kubectl();
            assertThat(k.run("get", "secret", "s2", "-o", "jsonpath={.data.password}").out()).isEqualTo(password);
            assertThat(k.run("get", "secrets", "-o", "name").out()).contains("secret/s1", "secret/s2");
        }

        // a key that did not write them: a 500 naming the object, never garbage; the server serves on
        String key3 = "{name: key3, secret: " + EncryptionKeys.random() + "}";
        try (ConfigurableApplicationContext server = start(config("lost", key3))) {
            Kubectl k = kubectl();
            Kubectl.Run get = k.run("get", "secret", "s1");
            assertThat(get.exit()).isNotZero();
            assertThat(get.err()).contains("Error from server (InternalError): Internal error occurred: unable to"
                    + " transform key \"core/secrets/default/s1\": no matching prefix found");
            assertThat(k.run("get", "secrets", "-o", "name").out()).doesNotContain("secret/s1");
            assertThat(k.run("get", "configmap", "c1", "-o", "jsonpath={.data.color}").out()).isEqualTo("blue");
            assertThat(k.run("create", "secret", "generic", "s3", "--from-literal=a=b").exit()).isZero();
            assertThat(stored(server, "core/secrets/default/s3")).startsWith("k8s:enc:secretbox:v1:key3:");
        }
    }

    /** Keys as an EncryptionConfiguration holds them. */
    static final class EncryptionKeys {
        static String random() {
            byte[] k = new byte[32];
            new java.security.SecureRandom().nextBytes(k);
            return Base64.getEncoder().encodeToString(k);
        }
    }
}

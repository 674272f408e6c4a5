package io.cybernetes.apiserver.internal.encryption;

import io.cybernetes.api.PrivateFiles;
import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.auth.AuthProperties;
import io.cybernetes.store.ValueTransformer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * Encryption at rest: the EncryptionConfiguration named by
 * {@code cybernetes.apiserver.encryption-provider-config}, or else {@code <data>/pki/encryption-config.yaml},
 * written at first start with a new secretbox key for Secrets (identity still reads what was stored
 * before). The store seals and opens values with it.
 */
@Configuration(proxyBeanMethods = false)
class EncryptionSetup {

    private static final Logger log = LoggerFactory.getLogger(EncryptionSetup.class);

    @Bean
    ValueTransformer encryptionAtRest(ApiServerProperties apiserver, AuthProperties auth) {
        Path file = apiserver.encryptionProviderConfig();
        if (file == null) {
            file = PrivateFiles.directory(auth.dataDir().resolve("pki")).resolve("encryption-config.yaml");
            generateIfMissing(file);
        } else if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("the encryption provider configuration " + file + " does not exist");
        }
        EncryptionConfiguration config = EncryptionConfiguration.load(file);
        log.info("Encryption at rest from {}: {}", file, config.rules().stream()
                .map(r -> String.join(",", r.resources()) + " written with " + describe(r.providers().get(0)))
                .collect(Collectors.joining("; ")));
        return new EncryptingTransformer(config);
    }

    private static String describe(Provider p) {
        return p instanceof Provider.Identity ? "identity (not encrypted)" : p.prefix().replaceAll("^k8s:enc:|:$", "");
    }

    /** Writes a configuration with a new key unless there is one; two replicas starting at once keep the first. */
    private static void generateIfMissing(Path file) {
        if (Files.exists(file)) {
            return;
        }
        byte[] key = new byte[32];
        Provider.RANDOM.nextBytes(key);
        try {
            Path tmp = Files.createTempFile(file.getParent(), "encryption-config", ".tmp");
            try {
                PrivateFiles.file(tmp);
                Files.writeString(tmp, EncryptionConfiguration.generated(key), StandardCharsets.UTF_8);
                Files.move(tmp, file);
                log.info("Generated a key for encrypting Secrets at rest: {}", file);
            } catch (FileAlreadyExistsException another) {
                // another replica wrote it first
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }
}

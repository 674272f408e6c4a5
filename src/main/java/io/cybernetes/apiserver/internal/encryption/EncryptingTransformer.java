package io.cybernetes.apiserver.internal.encryption;

import io.cybernetes.store.StorageException;
import io.cybernetes.store.ValueTransformer;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Encryption at rest as an EncryptionConfiguration orders it: a store key's resource picks the
 * first entry that names it; that entry's first provider writes and every one of them reads,
 * each recognised by its prefix. The database holds the prefix and the sealed value in base64
 * ({@code k8s:enc:secretbox:v1:key1:...}); resources no entry names are stored as they are.
 */
final class EncryptingTransformer implements ValueTransformer {

    private static final List<Provider> PLAIN = List.of(new Provider.Identity());

    private final EncryptionConfiguration config;
    /** Providers by the key's "group/resource/" head. */
    private final Map<String, List<Provider>> byResource = new ConcurrentHashMap<>();

    EncryptingTransformer(EncryptionConfiguration config) {
        this.config = config;
    }

    @Override
    public String toStorage(String key, String json) {
        Provider writer = providers(key).get(0);
        if (writer instanceof Provider.Identity) {
            return json;
        }
        try {
            byte[] sealed = writer.seal(json.getBytes(StandardCharsets.UTF_8), key.getBytes(StandardCharsets.UTF_8));
            return writer.prefix() + Base64.getEncoder().encodeToString(sealed);
        } catch (GeneralSecurityException e) {
            throw new StorageException(StorageException.Code.INTERNAL, key, "unable to transform key \"" + key
                    + "\": " + e.getMessage(), e);
        }
    }

    @Override
    public String fromStorage(String key, String stored) {
        List<Provider> providers = providers(key);
        if (providers == PLAIN) {
            return IDENTITY.fromStorage(key, stored);
        }
        for (Provider p : providers) {
            if (p instanceof Provider.Identity) {
                if (!stored.startsWith(ENCRYPTED)) {
                    return stored;
                }
                // identity may come first to move away from encryption: the providers after it read then
                continue;
            }
            if (!stored.startsWith(p.prefix())) {
                continue;
            }
            try {
                byte[] sealed = Base64.getDecoder().decode(stored.substring(p.prefix().length()));
                return new String(p.open(sealed, key.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw ValueTransformer.unreadable(key, "the stored data is not base64");
            } catch (Provider.OpenFailed e) {
                throw ValueTransformer.unreadable(key, e.getMessage());
            }
        }
        throw ValueTransformer.unreadable(key, "no matching prefix found");
    }

    @Override
    public boolean stale(String key, String stored) {
        Provider writer = providers(key).get(0);
        return writer instanceof Provider.Identity ? stored.startsWith(ENCRYPTED) : !stored.startsWith(writer.prefix());
    }

    private List<Provider> providers(String key) {
        int first = key.indexOf('/');
        int second = first < 0 ? -1 : key.indexOf('/', first + 1);
        if (second < 0) {
            return PLAIN;
        }
        return byResource.computeIfAbsent(key.substring(0, second + 1), head -> {
            String group = head.substring(0, first);
            String resource = head.substring(first + 1, head.length() - 1);
            for (EncryptionConfiguration.Rule r : config.rules()) {
                if (r.covers(group.equals("core") ? "" : group, resource)) {
                    return r.providers();
                }
            }
            return PLAIN;
        });
    }
}

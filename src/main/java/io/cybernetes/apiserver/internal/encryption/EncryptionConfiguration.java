package io.cybernetes.apiserver.internal.encryption;

import io.cybernetes.api.Json;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An {@code apiserver.config.k8s.io/v1} EncryptionConfiguration, as kube-apiserver's
 * {@code --encryption-provider-config} reads it: for each list of resources, the providers
 * in order (the first writes, all read). Checked as Kubernetes checks it; every problem is
 * reported with its field path, and a secret's value never.
 */
record EncryptionConfiguration(List<Rule> rules) {

    static final String API_VERSION = "apiserver.config.k8s.io/v1";
    private static final int[] AES_SIZES = {16, 24, 32};
    private static final int[] SECRETBOX_SIZES = {32};

    /** Resources as the file names them ({@code secrets}, {@code deployments.apps}, {@code *.}, {@code *.*}). */
    record Rule(List<String> resources, List<Provider> providers) {

        /** Whether this rule covers the resource of the group ("" for the core group). */
        boolean covers(String group, String resource) {
            for (String r : resources) {
                int dot = r.indexOf('.');
                String rr = dot < 0 ? r : r.substring(0, dot);
                String rg = dot < 0 ? "" : r.substring(dot + 1);
                if ((rg.equals("*") || rg.equals(group)) && (rr.equals("*") || rr.equals(resource))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Reads and checks the file; an IllegalStateException says everything that is wrong with it. */
    static EncryptionConfiguration load(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the encryption provider configuration " + file + ": " + e, e);
        }
        try {
            return parse(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the encryption provider configuration " + file + " is invalid: "
                    + e.getMessage(), e);
        }
    }

    static EncryptionConfiguration parse(byte[] bytes) {
        JsonNode root;
        try {
            root = Json.YAML.readTree(bytes);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("it is not YAML or JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("it is not an EncryptionConfiguration object");
        }
        String kind = root.path("kind").asString("");
        String apiVersion = root.path("apiVersion").asString("");
        if (!kind.equals("EncryptionConfiguration") || !apiVersion.equals(API_VERSION)) {
            throw new IllegalArgumentException("got unexpected config type: " + apiVersion + ", Kind="
                    + kind + " (want " + API_VERSION + ", Kind=EncryptionConfiguration)");
        }
        List<String> errors = new ArrayList<>();
        List<Rule> rules = new ArrayList<>();
        JsonNode resources = root.path("resources");
        if (!resources.isArray() || resources.isEmpty()) {
            errors.add("resources: Required value: at least one resources is required");
        } else {
            for (int i = 0; i < resources.size(); i++) {
                rules.add(rule(resources.get(i), "resources[" + i + "]", errors));
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", errors));
        }
        return new EncryptionConfiguration(List.copyOf(rules));
    }

    private static Rule rule(JsonNode entry, String path, List<String> errors) {
        List<String> names = new ArrayList<>();
        JsonNode resources = entry.path("resources");
        if (!resources.isArray() || resources.isEmpty()) {
            errors.add(path + ".resources: Required value: at least one " + path + ".resources is required");
        } else {
            for (int j = 0; j < resources.size(); j++) {
                String r = resources.get(j).asString("");
                String problem = resourceProblem(r);
                if (problem != null) {
                    errors.add(path + ".resources[" + j + "]: Invalid value: \"" + r + "\": " + problem);
                }
                names.add(r);
            }
            overlap(names, path + ".resources", errors);
        }
        List<Provider> providers = new ArrayList<>();
        JsonNode list = entry.path("providers");
        if (!list.isArray() || list.isEmpty()) {
            errors.add(path + ".providers: Required value: at least one " + path + ".providers is required");
        } else {
            Set<String> keyNames = new HashSet<>();
            for (int j = 0; j < list.size(); j++) {
                providers.addAll(providers(list.get(j), path + ".providers[" + j + "]", keyNames, errors));
            }
        }
        return new Rule(List.copyOf(names), List.copyOf(providers));
    }

    private static String resourceProblem(String r) {
        if (!r.toLowerCase(Locale.ROOT).equals(r)) {
            return "resource name should not contain capital letters";
        }
        if (r.equals("*")) {
            return "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
        }
        int dot = r.indexOf('.');
        String group = dot < 0 ? "" : r.substring(dot + 1);
        String resource = dot < 0 ? r : r.substring(0, dot);
        if (group.equals("events.k8s.io")) {
            return "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead"
                    + " in the config file";
        }
        if (group.equals("extensions")) {
            return "'extensions' group has been removed and cannot be used for encryption";
        }
        if (group.equals("*") && !resource.equals("*")) {
            return "encrypting the same resource across groups is not supported";
        }
        if (resource.isEmpty()) {
            return "a resource name is required";
        }
        return null;
    }

    private static void overlap(List<String> names, String path, List<String> errors) {
        Set<String> seen = new HashSet<>();
        boolean duplicate = false;
        boolean overlap = false;
        for (String a : names) {
            duplicate |= !seen.add(a);
            for (String b : names) {
                if (a == b) {
                    continue;
                }
                String ga = a.indexOf('.') < 0 ? "" : a.substring(a.indexOf('.') + 1);
                String gb = b.indexOf('.') < 0 ? "" : b.substring(b.indexOf('.') + 1);
                boolean wildA = a.startsWith("*.");
                boolean wildB = b.startsWith("*.");
                overlap |= a.equals("*.*") || ga.equals(gb) && !a.equals(b) && (wildA || wildB);
            }
        }
        String value = "[" + String.join(" ", names) + "]";
        if (duplicate) {
            errors.add(path + ": Invalid value: " + value + ": the same resource cannot be specified multiple times");
        }
        if (overlap) {
            errors.add(path + ": Invalid value: " + value + ": using overlapping resources such as 'secrets' and '*.'"
                    + " in the same resource list is not allowed as they will be masked");
        }
    }

    private static List<Provider> providers(JsonNode element, String path, Set<String> keyNames, List<String> errors) {
        List<String> kinds = new ArrayList<>();
        element.propertyNames().forEach(kinds::add);
        List<String> known = kinds.stream()
                .filter(k -> List.of("aesgcm", "aescbc", "secretbox", "identity", "kms").contains(k)).toList();
        if (known.isEmpty()) {
            errors.add(path + ": Invalid value: provider does not contain any of the expected providers: KMS, AESGCM,"
                    + " AESCBC, Secretbox, Identity");
            return List.of();
        }
        if (known.size() > 1) {
            errors.add(path + ": Invalid value: more than one provider specified in a single element, should split"
                    + " into different list elements");
            return List.of();
        }
        String kind = known.get(0);
        switch (kind) {
            case "identity":
                return List.of(new Provider.Identity());
            case "kms":
                errors.add(path + ".kms: Unsupported value: this server has no KMS plugin; use aesgcm, aescbc,"
                        + " secretbox or identity");
                return List.of();
            default:
                break;
        }
        JsonNode keys = element.path(kind).path("keys");
        String keysPath = path + "." + kind + ".keys";
        if (!keys.isArray() || keys.isEmpty()) {
            errors.add(keysPath + ": Required value: at least one keys is required");
            return List.of();
        }
        List<Provider> out = new ArrayList<>();
        for (int k = 0; k < keys.size(); k++) {
            String keyPath = keysPath + "[" + k + "]";
            String name = keys.get(k).path("name").asString("");
            String secret = keys.get(k).path("secret").asString("");
            if (name.isEmpty()) {
                errors.add(keyPath + ".name: Required value: name is a mandatory field for a key");
            } else if (name.contains(":")) {
                errors.add(keyPath + ".name: Invalid value: \"" + name + "\": a key's name must not contain ':'");
            } else if (!keyNames.add(kind + ":" + name)) {
                errors.add(keyPath + ".name: Duplicate value: \"" + name + "\"");
            }
            if (secret.isEmpty()) {
                errors.add(keyPath + ".secret: Required value: secret is a mandatory field for a key");
                continue;
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(secret);
            } catch (IllegalArgumentException e) {
                errors.add(keyPath + ".secret: Invalid value: \"REDACTED\": secrets must be base64 encoded");
                continue;
            }
            int[] sizes = kind.equals("secretbox") ? SECRETBOX_SIZES : AES_SIZES;
            if (java.util.Arrays.stream(sizes).noneMatch(n -> n == bytes.length)) {
                errors.add(keyPath + ".secret: Invalid value: \"REDACTED\": secret is not of the expected length, got "
                        + bytes.length + ", expected one of " + java.util.Arrays.toString(sizes).replace(",", ""));
                continue;
            }
            out.add(switch (kind) {
                case "aesgcm" -> new Provider.AesGcm(name, bytes);
                case "aescbc" -> new Provider.AesCbc(name, bytes);
                default -> new Provider.Secretbox(name, bytes);
            });
        }
        return out;
    }

    /** The text of a configuration that encrypts Secrets with a new secretbox key, still reading plain ones. */
    static String generated(byte[] secretboxKey) {
        return "# Encryption at rest (kube-apiserver's EncryptionConfiguration), generated at first start.\n"
                + "# The first provider of each entry writes; all of them read. To rotate the key: add a new key\n"
                + "# first in the list, restart, rewrite every Secret (kubectl get secrets -A -o json | kubectl\n"
                + "# replace -f -), then remove the old key and restart again.\n"
                + "apiVersion: " + API_VERSION + "\n"
                + "kind: EncryptionConfiguration\n"
                + "resources:\n"
                + "  - resources:\n"
                + "      - secrets\n"
                + "    providers:\n"
                + "      - secretbox:\n"
                + "          keys:\n"
                + "            - name: key1\n"
                + "              secret: " + Base64.getEncoder().encodeToString(secretboxKey) + "\n"
                + "      - identity: {}\n";
    }
}

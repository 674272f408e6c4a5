package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.StrictDecoder;
import io.cybernetes.auth.UserInfo;

import java.util.List;
import java.util.Map;

/**
 * Options every write carries: dryRun=All, fieldValidation, the field manager asked for,
 * who is writing, the fields its body repeated (which field validation reports), and the
 * manager managedFields records: the one asked for, else the product of the User-Agent
 * ({@code kubectl} of {@code kubectl/v1.32.0 (linux/amd64)}), as Kubernetes names it.
 */
public record WriteOptions(boolean dryRun, StrictDecoder.FieldValidation fieldValidation, String fieldManager, UserInfo user,
                    List<String> duplicateFields, String manager, boolean force,
                    tools.jackson.databind.node.ObjectNode appliedConfig) {

    public WriteOptions(boolean dryRun, StrictDecoder.FieldValidation fieldValidation, String fieldManager, UserInfo user) {
        this(dryRun, fieldValidation, fieldManager, user, List.of(), fieldManager, false, null);
    }

    public WriteOptions(boolean dryRun, StrictDecoder.FieldValidation fieldValidation, String fieldManager, UserInfo user,
                        List<String> duplicateFields, String manager, boolean force) {
        this(dryRun, fieldValidation, fieldManager, user, duplicateFields, manager, force, null);
    }

    /** These options for a body that repeated the fields given. */
    public WriteOptions withDuplicateFields(List<String> duplicates) {
        return new WriteOptions(dryRun, fieldValidation, fieldManager, user, List.copyOf(duplicates), manager, force,
                appliedConfig);
    }

    /** These options for a server-side apply of the configuration (managedFields follow the apply, not an update). */
    public WriteOptions applying(tools.jackson.databind.node.ObjectNode config) {
        return new WriteOptions(dryRun, fieldValidation, fieldManager, user, duplicateFields, manager, force, config);
    }

    /** The manager a request with this User-Agent (and no fieldManager) is recorded under. */
    public static String managerOf(String userAgent) {
        if (userAgent == null || userAgent.isBlank()) {
            return "unknown";
        }
        String product = userAgent.split("/", 2)[0].trim();
        return product.length() > 128 ? product.substring(0, 128) : product;
    }

    /** The API server's own identity for the writes it makes itself (bootstrap), a member of system:masters. */
    public static final UserInfo SERVER = new UserInfo("system:apiserver", "", List.of(UserInfo.MASTERS,
            UserInfo.AUTHENTICATED), Map.of());

    public static WriteOptions server(String fieldManager) {
        return new WriteOptions(false, StrictDecoder.FieldValidation.STRICT, fieldManager, SERVER);
    }
}

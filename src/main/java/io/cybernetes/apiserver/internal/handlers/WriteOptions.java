package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.StrictDecoder;
import io.cybernetes.auth.UserInfo;

import java.util.List;
import java.util.Map;

/**
 * Options every write carries: dryRun=All, fieldValidation, the field manager, who is
 * writing, and the fields its body repeated (which field validation reports).
 */
public record WriteOptions(boolean dryRun, StrictDecoder.FieldValidation fieldValidation, String fieldManager, UserInfo user,
                    List<String> duplicateFields) {

    public WriteOptions(boolean dryRun, StrictDecoder.FieldValidation fieldValidation, String fieldManager, UserInfo user) {
        this(dryRun, fieldValidation, fieldManager, user, List.of());
    }

    /** These options for a body that repeated the fields given. */
    public WriteOptions withDuplicateFields(List<String> duplicates) {
        return new WriteOptions(dryRun, fieldValidation, fieldManager, user, List.copyOf(duplicates));
    }

    /** The API server's own identity for the writes it makes itself (bootstrap), a member of system:masters. */
    public static final UserInfo SERVER = new UserInfo("system:apiserver", "", List.of(UserInfo.MASTERS,
            UserInfo.AUTHENTICATED), Map.of());

    public static WriteOptions server(String fieldManager) {
        return new WriteOptions(false, StrictDecoder.FieldValidation.STRICT, fieldManager, SERVER);
    }
}

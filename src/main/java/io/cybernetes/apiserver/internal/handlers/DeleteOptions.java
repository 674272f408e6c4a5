package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.StrictDecoder;

/** The parts of a delete request's DeleteOptions (body or query) that the server acts on. */
public record DeleteOptions(String propagationPolicy, Long gracePeriodSeconds, String preconditionUid,
                     String preconditionResourceVersion, boolean dryRun, io.cybernetes.auth.UserInfo user) {

    /** The options admission sees for this delete. */
    public WriteOptions writeOptions() {
        return new WriteOptions(dryRun, StrictDecoder.FieldValidation.IGNORE, null, user);
    }
}

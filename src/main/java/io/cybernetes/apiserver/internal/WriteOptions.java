package io.cybernetes.apiserver.internal;

/** Options every write carries: dryRun=All, fieldValidation and the field manager. */
record WriteOptions(boolean dryRun, StrictDecoder.FieldValidation fieldValidation, String fieldManager) {
}

package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.FieldSelector;
import io.cybernetes.api.LabelSelector;

/** The query of a list or watch request, parsed. */
public record ListOptions(LabelSelector labels, FieldSelector fields, int limit, String continueToken,
                   String resourceVersion, String resourceVersionMatch) {
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;

/** The patch formats, by their Content-Type. */
enum PatchType {
    MERGE, JSON, STRATEGIC, APPLY;

    static PatchType fromContentType(String contentType) {
        String ct = contentType == null ? "" : contentType.split(";")[0].trim().toLowerCase();
        return switch (ct) {
            case "application/merge-patch+json" -> MERGE;
            case "application/json-patch+json" -> JSON;
            case "application/strategic-merge-patch+json" -> STRATEGIC;
            case "application/apply-patch+yaml", "application/apply-patch+json" -> APPLY;
            default -> throw ApiException.unsupportedMediaType(contentType);
        };
    }
}

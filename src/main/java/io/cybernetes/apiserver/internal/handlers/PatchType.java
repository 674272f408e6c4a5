package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;

import java.util.List;

/** The patch formats, by their Content-Type. */
public enum PatchType {
    MERGE, JSON, STRATEGIC, APPLY;

    public static PatchType fromContentType(String contentType) {
        return switch (RequestReader.mediaType(contentType)) {
            case "application/merge-patch+json" -> MERGE;
            case "application/json-patch+json" -> JSON;
            case "application/strategic-merge-patch+json" -> STRATEGIC;
            case "application/apply-patch+yaml", "application/apply-patch+json" -> APPLY;
            default -> throw ApiException.unsupportedMediaType(List.of("application/json-patch+json",
                    "application/merge-patch+json", "application/apply-patch+yaml",
                    "application/strategic-merge-patch+json"));
        };
    }
}

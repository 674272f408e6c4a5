package io.cybernetes.api;

import tools.jackson.databind.JsonNode;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which StorageClass is the default, as Kubernetes decides it for DefaultStorageClass
 * admission and the persistent volume controller's retroactive assignment: of the classes
 * annotated {@value #DEFAULT_ANNOTATION}{@code : "true"}, the newest, by name when as new.
 */
public final class StorageClasses {

    public static final String DEFAULT_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

    private StorageClasses() {
    }

    public static boolean isDefault(JsonNode storageClass) {
        return "true".equals(storageClass.path("metadata").path("annotations").path(DEFAULT_ANNOTATION).asString(""));
    }

    /** The default class's name among these classes (as JSON), if one is marked default. */
    public static Optional<String> defaultOf(List<? extends JsonNode> classes) {
        return classes.stream().filter(StorageClasses::isDefault)
                .max(Comparator.comparing((JsonNode c) -> c.path("metadata").path("creationTimestamp").asString(""))
                        .thenComparing(c -> c.path("metadata").path("name").asString(""), Comparator.reverseOrder()))
                .map(c -> c.path("metadata").path("name").asString());
    }
}

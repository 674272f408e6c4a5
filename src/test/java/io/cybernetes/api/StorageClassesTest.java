package io.cybernetes.api;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The default StorageClass as Kubernetes picks it: the newest marked default, by name when as new. */
class StorageClassesTest {

    private static JsonNode sc(String name, String created, String isDefault) {
        return Json.MAPPER.readTree("{\"metadata\":{\"name\":\"" + name + "\",\"creationTimestamp\":\"" + created
                + "\",\"annotations\":{\"" + StorageClasses.DEFAULT_ANNOTATION + "\":\"" + isDefault + "\"}}}");
    }

    @Test
    void theNewestDefaultWinsThenTheFirstByName() {
        assertThat(StorageClasses.defaultOf(List.of(sc("old", "2026-01-01T00:00:00Z", "true"),
                sc("new", "2026-02-01T00:00:00Z", "true"), sc("newer", "2026-03-01T00:00:00Z", "false"))))
                .contains("new");
        assertThat(StorageClasses.defaultOf(List.of(sc("b", "2026-01-01T00:00:00Z", "true"),
                sc("a", "2026-01-01T00:00:00Z", "true")))).contains("a");
        assertThat(StorageClasses.defaultOf(List.of(sc("x", "2026-01-01T00:00:00Z", "false")))).isEmpty();
    }
}

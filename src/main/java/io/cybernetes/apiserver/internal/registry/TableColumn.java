package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

/**
 * One column of a kind's Table ({@code kubectl get}): its name, type and format as
 * {@code columnDefinitions} show them, its priority (1: only with {@code -o wide}) and
 * how to compute its cell from an object.
 */
public record TableColumn(String name, String type, String format, int priority, Function<JsonNode, Object> cell) {

    public static final TableColumn NAME = new TableColumn("Name", "string", "name", 0, o -> Json.text(o, "metadata.name"));
    public static final TableColumn AGE = new TableColumn("Age", "string", "", 0, TableColumn::age);
    public static final TableColumn CREATED_AT = new TableColumn("Created At", "date", "", 0,
            o -> Json.text(o, "metadata.creationTimestamp"));

    /** A string column. */
    public static TableColumn text(String name, int priority, Function<JsonNode, Object> cell) {
        return new TableColumn(name, "string", "", priority, cell);
    }

    /** An integer column. */
    public static TableColumn integer(String name, Function<JsonNode, Object> cell) {
        return new TableColumn(name, "integer", "", 0, cell);
    }

    private static String age(JsonNode o) {
        String ts = Json.text(o, "metadata.creationTimestamp");
        if (ts == null) {
            return "<unknown>";
        }
        return HumanDuration.format(Duration.between(Instant.parse(ts), Instant.now()));
    }
}

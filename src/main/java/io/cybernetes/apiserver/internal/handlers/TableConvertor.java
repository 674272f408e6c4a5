package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.TableColumn;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * Server-side printing: the {@code meta.k8s.io/v1 Table} that {@code kubectl get}
 * asks for, with the columns of the object's kind (its definition's; priority 1
 * columns appear with {@code -o wide}), and the PartialObjectMetadata form.
 */
public final class TableConvertor {

    private TableConvertor() {
    }

    /** {@code includeObject}: None, Metadata (the default) or Object. */
    public enum Include { NONE, METADATA, OBJECT }

    /** The Table of the objects with the kind's columns. */
    public static ObjectNode table(List<TableColumn> columns, List<? extends JsonNode> objects, String resourceVersion,
                            String continueToken, Include include) {
        ObjectNode table = Json.object();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/v1");
        ObjectNode meta = table.putObject("metadata");
        if (resourceVersion != null) {
            meta.put("resourceVersion", resourceVersion);
        }
        if (continueToken != null && !continueToken.isEmpty()) {
            meta.put("continue", continueToken);
        }
        ArrayNode defs = table.putArray("columnDefinitions");
        for (TableColumn c : columns) {
            ObjectNode d = defs.addObject();
            d.put("name", c.name());
            d.put("type", c.type());
            d.put("format", c.format());
            d.put("description", c.name());
            d.put("priority", c.priority());
        }
        ArrayNode rows = table.putArray("rows");
        for (JsonNode o : objects) {
            rows.add(row(columns, o, include));
        }
        return table;
    }

    /** One object's row: its cells, and the object as {@code include} asks. */
    public static ObjectNode row(List<TableColumn> columns, JsonNode o, Include include) {
        ObjectNode row = Json.object();
        ArrayNode cells = row.putArray("cells");
        for (TableColumn c : columns) {
            Object v = c.cell().apply(o);
            if (v instanceof Integer i) {
                cells.add(i);
            } else if (v instanceof JsonNode n) {
                cells.add(n);
            } else {
                cells.add(v == null ? "" : v.toString());
            }
        }
        switch (include) {
            case OBJECT -> row.set("object", o);
            case METADATA -> row.set("object", partial(o));
            case NONE -> { }
        }
        return row;
    }

    public static ObjectNode partial(JsonNode o) {
        ObjectNode p = Json.object();
        p.put("kind", "PartialObjectMetadata");
        p.put("apiVersion", "meta.k8s.io/v1");
        p.set("metadata", o.get("metadata"));
        return p;
    }

}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ResourceType;

import java.util.List;

/**
 * Everything the API server knows about one kind, as Kubernetes' generic registry store
 * and the kind's strategy together know it: its names and scope ({@link ResourceType}),
 * how creates, updates and deletes of it proceed ({@link KindStrategy}), the columns of
 * its Table, its subresources, and whether admission reads it as policy (so a write of
 * it waits until the watch cache has it, for the next request's admission to see).
 *
 * @param type    names, scope, verbs and subresources
 * @param strategy defaulting, validation and delete behaviour
 * @param columns the Table's columns ({@code kubectl get})
 * @param policy  whether admission decides by objects of this kind
 * @param subresources what discovery reports of its subresources
 * @param schema  how written objects are decoded, normalised and validated
 * @param scale   where its scale subresource reads and writes replicas (null without one)
 * @param conversion how objects move between its versions (null when it has one version only)
 */
public record KindDefinition(ResourceType type, KindStrategy strategy, List<TableColumn> columns, boolean policy,
                      List<Subresource> subresources, KindSchema schema, ScalePaths scale, Conversion conversion) {

    /** The columns of a kind that names none: its name and age. */
    public static final List<TableColumn> DEFAULT_COLUMNS = List.of(TableColumn.NAME, TableColumn.AGE);

    public KindDefinition {
        columns = List.copyOf(columns);
        subresources = List.copyOf(subresources);
    }

    /** This kind with another strategy (one that needs what only the running server has: a store, settings). */
    public KindDefinition withStrategy(KindStrategy other) {
        return new KindDefinition(type, other, columns, policy, subresources, schema, scale, conversion);
    }

    /**
     * A kind with nothing of its own: the generic strategy, name and age columns, not
     * policy; the subresources it declares; the schema of its model.
     */
    public static KindDefinition generic(ResourceType type, Schema schema) {
        return new KindDefinition(type, KindStrategy.DEFAULT, DEFAULT_COLUMNS, false, Subresource.of(type),
                new TypedSchema(schema), type.hasSubresource("scale") ? ScalePaths.WORKLOAD : null, null);
    }
}

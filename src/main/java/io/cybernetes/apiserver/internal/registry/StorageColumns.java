package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import static io.cybernetes.apiserver.internal.registry.TableColumn.AGE;
import static io.cybernetes.apiserver.internal.registry.TableColumn.NAME;
import static io.cybernetes.apiserver.internal.registry.TableColumn.text;

/** The Table columns of claims, volumes and storage classes, as kube-apiserver prints them. */
final class StorageColumns {

    static final String DEFAULT_CLASS = io.cybernetes.api.StorageClasses.DEFAULT_ANNOTATION;

    private StorageColumns() {
    }

    static final Map<String, List<TableColumn>> BY_KIND = Map.of(
            "PersistentVolumeClaim", List.of(NAME,
                    text("Status", 0, o -> o.path("status").path("phase").asString("")),
                    text("Volume", 0, o -> o.path("spec").path("volumeName").asString("")),
                    text("Capacity", 0, o -> o.path("status").path("capacity").path("storage").asString("")),
                    text("Access Modes", 0, o -> modes(o.path("status").path("accessModes"))),
                    text("StorageClass", 0, o -> o.path("spec").path("storageClassName").asString("")),
                    text("VolumeAttributesClass", 0, o -> unset(o.path("spec").path("volumeAttributesClassName"))),
                    AGE,
                    text("VolumeMode", 1, o -> o.path("spec").path("volumeMode").asString(""))),
            "PersistentVolume", List.of(NAME,
                    text("Capacity", 0, o -> o.path("spec").path("capacity").path("storage").asString("")),
                    text("Access Modes", 0, o -> modes(o.path("spec").path("accessModes"))),
                    text("Reclaim Policy", 0, o -> o.path("spec").path("persistentVolumeReclaimPolicy").asString("")),
                    text("Status", 0, o -> o.path("status").path("phase").asString("")),
                    text("Claim", 0, StorageColumns::claim),
                    text("StorageClass", 0, o -> o.path("spec").path("storageClassName").asString("")),
                    text("VolumeAttributesClass", 0, o -> unset(o.path("spec").path("volumeAttributesClassName"))),
                    text("Reason", 0, o -> o.path("status").path("reason").asString("")),
                    AGE,
                    text("VolumeMode", 1, o -> o.path("spec").path("volumeMode").asString(""))),
            "StorageClass", List.of(
                    new TableColumn("Name", "string", "name", 0, StorageColumns::className),
                    text("Provisioner", 0, o -> o.path("provisioner").asString("")),
                    text("ReclaimPolicy", 0, o -> o.path("reclaimPolicy").asString("Delete")),
                    text("VolumeBindingMode", 0, o -> o.path("volumeBindingMode").asString("Immediate")),
                    text("AllowVolumeExpansion", 0, o -> Boolean.toString(o.path("allowVolumeExpansion")
                            .asBoolean(false))),
                    AGE));

    /** Access modes as kubectl abbreviates them: RWO, ROX, RWX, RWOP. */
    private static String modes(JsonNode modes) {
        StringJoiner j = new StringJoiner(",");
        for (JsonNode m : modes) {
            j.add(switch (m.asString("")) {
                case "ReadWriteOnce" -> "RWO";
                case "ReadOnlyMany" -> "ROX";
                case "ReadWriteMany" -> "RWX";
                case "ReadWriteOncePod" -> "RWOP";
                default -> m.asString("");
            });
        }
        return j.toString();
    }

    private static String unset(JsonNode v) {
        return v.isMissingNode() || v.isNull() || v.asString("").isEmpty() ? "<unset>" : v.asString();
    }

    private static String claim(JsonNode o) {
        JsonNode ref = o.path("spec").path("claimRef");
        return ref.isMissingNode() ? "" : ref.path("namespace").asString("") + "/" + ref.path("name").asString("");
    }

    /** A class's name, marked {@code (default)} as kubectl marks the default class. */
    private static String className(JsonNode o) {
        String name = Json.text(o, "metadata.name");
        boolean isDefault = "true".equals(o.path("metadata").path("annotations").path(DEFAULT_CLASS).asString(""));
        return isDefault ? name + " (default)" : name;
    }
}

package io.cybernetes.apiserver.internal.fieldmanager;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.apiserver.internal.registry.SchemaRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Field sets in Kubernetes' FieldsV1 form, their set algebra, and comparisons over a built-in kind's schema. */
class FieldSetTest {

    private static ObjectNode json(String text) {
        return (ObjectNode) Json.MAPPER.readTree(text.replace('\'', '"'));
    }

    private static final FieldType POD = TypedFieldType.of(new SchemaRegistry().of(
            ResourceRegistry.builtIn().byPath("", "v1", "pods").orElseThrow()));

    @Test
    void fieldsV1RoundTripsInKubernetesOrder() {
        String v1 = "{'f:metadata':{'f:labels':{'.':{},'f:app':{}}},'f:spec':{'f:containers':{"
                + "'k:{\\'name\\':\\'a\\'}':{'.':{},'f:image':{}},'k:{\\'name\\':\\'b\\'}':{}}}}";
        JsonNode node = json(v1);
        FieldSet s = FieldSet.fromFieldsV1(node);
        assertThat(s.toFieldsV1()).isEqualTo(node);
        FieldSet other = FieldSet.fromFieldsV1(json("{'f:metadata':{'f:labels':{'f:app':{}}}}"));
        assertThat(s.intersection(other).toFieldsV1()).isEqualTo(json("{'f:metadata':{'f:labels':{'f:app':{}}}}"));
        assertThat(s.difference(other).toFieldsV1().path("f:metadata").path("f:labels")).isEqualTo(json("{}"));
        assertThat(s.difference(s).isEmpty()).isTrue();
        assertThat(s.recursiveDifference(FieldSet.fromFieldsV1(json("{'f:spec':{}}"))).toFieldsV1())
                .isEqualTo(json("{'f:metadata':{'f:labels':{'.':{},'f:app':{}}}}"));
        assertThat(other.union(s)).isEqualTo(s);
    }

    @Test
    void aComparisonTellsAddedModifiedAndRemovedByListKeys() {
        ObjectNode before = json("{'metadata':{'labels':{'app':'x'}},'spec':{'containers':[{'name':'a','image':'1'},"
                + "{'name':'b','image':'1'}]}}");
        ObjectNode after = json("{'metadata':{'labels':{'app':'x','tier':'web'}},'spec':{'containers':["
                + "{'name':'b','image':'2'},{'name':'c','image':'1'}]}}");
        ManagedFields.Comparison c = ManagedFields.compare(before, after, POD);
        assertThat(c.added().toFieldsV1()).isEqualTo(json("{'f:metadata':{'f:labels':{'f:tier':{}}},'f:spec':{"
                + "'f:containers':{'k:{\\'name\\':\\'c\\'}':{'.':{},'f:image':{},'f:name':{}}}}}"));
        assertThat(c.modified().toFieldsV1()).isEqualTo(json("{'f:spec':{'f:containers':{"
                + "'k:{\\'name\\':\\'b\\'}':{'f:image':{}}}}}"));
        assertThat(c.removed().toFieldsV1()).isEqualTo(json("{'f:spec':{'f:containers':{"
                + "'k:{\\'name\\':\\'a\\'}':{'.':{},'f:image':{},'f:name':{}}}}}"));
        assertThat(ManagedFields.compare(after, after, POD).isSame()).isTrue();
    }

    @Test
    void anUpdateMovesOwnershipAndDropsEmptyManagers() {
        ObjectNode created = json("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','labels':{'a':'1'}},"
                + "'spec':{'nodeName':'n1'}}");
        Json.child(created, "metadata").set("managedFields", ManagedFields.update(null, created, POD, "alice", null,
                "2026-12-02T00:00:00Z", Set.of("status")));
        ObjectNode changed = created.deepCopy();
        Json.child(changed, "spec").put("nodeName", "n2");
        Json.child(Json.child(changed, "metadata"), "labels").remove("a");
        JsonNode entries = ManagedFields.update(created, changed, POD, "bob", null, "2026-12-02T00:01:00Z",
                Set.of("status"));
        assertThat(entries).hasSize(2);
        assertThat(entries.get(0).path("manager").asString()).isEqualTo("alice");
        // a path with nothing below it is written {} (".": {} only beside children)
        assertThat(entries.get(0).path("fieldsV1")).isEqualTo(json("{'f:metadata':{'f:labels':{}}}"));
        assertThat(entries.get(1).path("fieldsV1")).isEqualTo(json("{'f:spec':{'f:nodeName':{}}}"));
        assertThat(entries.get(1).path("time").asString()).isEqualTo("2026-12-02T00:01:00Z");
        ObjectNode taken = changed.deepCopy();
        Json.child(taken, "metadata").set("managedFields", entries);
        ObjectNode cleared = taken.deepCopy();
        Json.child(cleared, "metadata").remove("labels");
        JsonNode after = ManagedFields.update(taken, cleared, POD, "bob", null, "2026-12-02T00:02:00Z",
                Set.of("status"));
        assertThat(after).singleElement().satisfies(e -> assertThat(e.path("manager").asString()).isEqualTo("bob"));
    }

    @Test
    void whatAnApplierDropsGoesUnlessSomethingBelowItIsStillOwned() {
        ObjectNode obj = json("{'metadata':{'labels':{'a':'1','b':'2'}},'spec':{'containers':[{'name':'a','image':'1'},"
                + "{'name':'b','image':'1'}]}}");
        // the labels map itself (as a client-side apply's fields moved to an Apply entry own it) and container b
        FieldSet dropped = FieldSet.fromFieldsV1(json("{'f:metadata':{'f:labels':{'.':{},'f:b':{}}},'f:spec':{"
                + "'f:containers':{'k:{\\'name\\':\\'b\\'}':{'.':{},'f:image':{},'f:name':{}}}}}"));
        FieldSet kept = FieldSet.fromFieldsV1(json("{'f:metadata':{'f:labels':{'f:a':{}}}}"));
        Apply.remove(obj, dropped, kept, POD);
        assertThat(obj).isEqualTo(json("{'metadata':{'labels':{'a':'1'}},'spec':{'containers':[{'name':'a',"
                + "'image':'1'}]}}"));
    }
}

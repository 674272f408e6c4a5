package io.cybernetes.apiserver.internal.apiextensions;

import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Pruning, defaulting, validation and the JSONPath of printer columns on structural schemas, without a server. */
class StructuralSchemaTest {

    private static ObjectNode json(String text) {
        return (ObjectNode) Json.MAPPER.readTree(text.replace('\'', '"'));
    }

    private static List<String> causes(ObjectNode obj, StructuralSchema schema) {
        List<StatusCause> causes = new ArrayList<>();
        CustomResourceValues.validate(obj, schema, causes);
        return causes.stream().map(c -> c.getField() + ": " + c.getMessage()).toList();
    }

    @Test
    void pruningKeepsWhatTheSchemaKnowsAndWhatItPreserves() {
        StructuralSchema schema = StructuralSchema.of(json("{'type':'object','properties':{'spec':{'type':'object',"
                + "'properties':{'a':{'type':'string'},'free':{'type':'object','x-kubernetes-preserve-unknown-fields':"
                + "true},'pod':{'type':'object','x-kubernetes-embedded-resource':true,'properties':{}},"
                + "'items':{'type':'array','items':{'type':'object','properties':{'n':{'type':'integer'}}}}}}}}"));
        ObjectNode obj = json("{'apiVersion':'x/v1','kind':'K','metadata':{'name':'n'},'spec':{'a':'x','b':1,"
                + "'free':{'anything':{'deep':true}},'pod':{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},"
                + "'extra':1},'items':[{'n':1,'m':2}]},'status':{}}");
        List<String> unknown = CustomResourceValues.prune(obj, schema);
        assertThat(unknown).containsExactly("spec.b", "spec.pod.extra", "spec.items[0].m", "status");
        assertThat(obj.path("spec").path("free").path("anything").path("deep").asBoolean()).isTrue();
        assertThat(obj.path("spec").path("pod").path("kind").asString()).isEqualTo("Pod");
        assertThat(obj.path("metadata").path("name").asString()).isEqualTo("n");
    }

    @Test
    void nullsWhereNoneIsAllowedGiveWayToDefaults() {
        StructuralSchema schema = StructuralSchema.of(json("{'type':'object','properties':{'spec':{'type':'object',"
                + "'properties':{'size':{'type':'string','default':'m'},'note':{'type':'string','nullable':true},"
                + "'gone':{'type':'string'},'list':{'type':'array','items':{'type':'string'}}}}}}"));
        ObjectNode obj = json("{'spec':{'size':null,'note':null,'gone':null,'list':['a',null]}}");
        CustomResourceValues.prune(obj, schema);
        CustomResourceValues.applyDefaults(obj, schema);
        assertThat(obj.path("spec").path("size").asString()).isEqualTo("m");
        assertThat(obj.path("spec").has("note")).isTrue();
        assertThat(obj.path("spec").has("gone")).isFalse();
        assertThat(causes(obj, schema)).containsExactly("spec.list[1]: Invalid value: \"null\": spec.list[1] in body"
                + " must be of type string: \"null\"");
    }

    @Test
    void boundsFormatsAndListTypes() {
        StructuralSchema schema = StructuralSchema.of(json("{'type':'object','properties':{'spec':{'type':'object',"
                + "'minProperties':1,'properties':{'n':{'type':'number','exclusiveMinimum':true,'minimum':0,"
                + "'multipleOf':0.5},'when':{'type':'string','format':'date-time'},'id':{'type':'string','format':"
                + "'uuid'},'short':{'type':'string','minLength':3},'port':{'x-kubernetes-int-or-string':true},"
                + "'ports':{'type':'array','x-kubernetes-list-type':'map','x-kubernetes-list-map-keys':['name'],"
                + "'minItems':1,'items':{'type':'object','properties':{'name':{'type':'string'}}}}}}}}"));
        ObjectNode bad = json("{'spec':{'n':0,'when':'yesterday','id':'x','short':'ab','port':true,"
                + "'ports':[{'name':'a'},{'name':'a'}]}}");
        assertThat(causes(bad, schema)).containsExactlyInAnyOrder(
                "spec.n: Invalid value: 0: spec.n in body should be greater than 0",
                "spec.when: Invalid value: \"yesterday\": spec.when in body must be of type date-time: \"yesterday\"",
                "spec.id: Invalid value: \"x\": spec.id in body must be of type uuid: \"x\"",
                "spec.short: Invalid value: \"ab\": spec.short in body should be at least 3 chars long",
                "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer or string:"
                        + " \"boolean\"",
                "spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"a\"}");
        ObjectNode good = json("{'spec':{'n':1.5,'when':'2026-12-02T01:00:00Z','id':"
                + "'5e3c9a2a-2f4b-4c8e-9d2a-1b2c3d4e5f60','short':'abc','port':8080,'ports':[{'name':'a'}]}}");
        assertThat(causes(good, schema)).isEmpty();
        assertThat(causes(json("{'spec':{'n':0.7}}"), schema)).containsExactly(
                "spec.n: Invalid value: 0.7: spec.n in body should be a multiple of 0.5");
    }

    @Test
    void celRulesSeeSelfAndOldSelf() {
        StructuralSchema schema = StructuralSchema.of(json("{'type':'object','properties':{'spec':{'type':'object',"
                + "'x-kubernetes-validations':[{'rule':'self.replicas <= self.max','message':'too many'},"
                + "{'rule':'self.replicas >= oldSelf.replicas','message':'may not shrink'}],"
                + "'properties':{'replicas':{'type':'integer'},'max':{'type':'integer'},"
                + "'names':{'type':'array','items':{'type':'string','x-kubernetes-validations':[{'rule':"
                + "'self.startsWith(\\\"n-\\\")'}]}}}}}}"));
        CelRules rules = CelRules.of(schema);
        List<StatusCause> causes = new ArrayList<>();
        rules.validate(json("{'spec':{'replicas':5,'max':3,'names':['n-a','b']}}"), null, schema, causes);
        assertThat(causes.stream().map(c -> c.getField() + ": " + c.getMessage())).containsExactly(
                "spec.names[1]: Invalid value: \"string\": failed rule: self.startsWith(\"n-\")",
                "spec: Invalid value: \"object\": too many");
        causes.clear();
        rules.validate(json("{'spec':{'replicas':1,'max':3}}"), json("{'spec':{'replicas':2,'max':3}}"), schema,
                causes);
        assertThat(causes).singleElement().satisfies(c -> assertThat(c.getMessage()).endsWith("may not shrink"));
        assertThat(CelRules.errors(json("{'type':'object','x-kubernetes-validations':[{'rule':'self.'}]}"),
                "spec.validation.openAPIV3Schema")).singleElement().satisfies(c -> {
                    assertThat(c.getField()).isEqualTo("spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule");
                    assertThat(c.getMessage()).contains("compilation failed");
                });
    }

    @Test
    void jsonPathsOfPrinterColumns() {
        JsonNode obj = json("{'metadata':{'labels':{'app.kubernetes.io/name':'web'}},'status':{'conditions':["
                + "{'type':'Ready','status':'True'},{'type':'Synced','status':'False'}],'nodes':['a','b']}}");
        assertThat(JsonPath.parse(".status.conditions[?(@.type==\"Synced\")].status").first(obj).asString())
                .isEqualTo("False");
        assertThat(JsonPath.parse(".metadata.labels['app.kubernetes.io/name']").first(obj).asString()).isEqualTo("web");
        assertThat(JsonPath.parse(".status.nodes[-1]").first(obj).asString()).isEqualTo("b");
        assertThat(JsonPath.parse(".status.nodes[*]").find(obj)).hasSize(2);
        assertThat(JsonPath.parse(".spec.missing").first(obj)).isNull();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JsonPath.parse("status"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

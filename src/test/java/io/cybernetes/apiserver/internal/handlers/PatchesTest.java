package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Strategic merge patch as kubectl apply sends it, one directive per row. */
class PatchesTest {

    private static ObjectNode json(String s) {
        return (ObjectNode) Json.MAPPER.readTree(s.replace('\'', '"'));
    }

    static Stream<Arguments> strategic() {
        return Stream.of(
                arguments("containers merge by name, untouched fields stay",
                        "{'spec':{'containers':[{'name':'a','image':'x','ports':[{'containerPort':80}]}]}}",
                        "{'spec':{'containers':[{'name':'a','image':'y'}]}}",
                        "{'spec':{'containers':[{'name':'a','image':'y','ports':[{'containerPort':80}]}]}}"),
                arguments("a new element is appended",
                        "{'spec':{'containers':[{'name':'a'}]}}",
                        "{'spec':{'containers':[{'name':'b'}]}}",
                        "{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}"),
                arguments("$patch delete removes one element by its key",
                        "{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
                        "{'spec':{'containers':[{'name':'a','$patch':'delete'}]}}",
                        "{'spec':{'containers':[{'name':'b'}]}}"),
                arguments("$setElementOrder puts the elements in the given order",
                        "{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
                        "{'spec':{'$setElementOrder/containers':[{'name':'b'},{'name':'a'}]}}",
                        "{'spec':{'containers':[{'name':'b'},{'name':'a'}]}}"),
                arguments("$retainKeys drops the keys not listed",
                        "{'spec':{'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxSurge':1}}}}",
                        "{'spec':{'strategy':{'$retainKeys':['type'],'type':'Recreate'}}}",
                        "{'spec':{'strategy':{'type':'Recreate'}}}"),
                arguments("$deleteFromPrimitiveList removes values from a list of scalars",
                        "{'metadata':{'finalizers':['a','b','c']}}",
                        "{'metadata':{'$deleteFromPrimitiveList/finalizers':['b']}}",
                        "{'metadata':{'finalizers':['a','c']}}"),
                arguments("a Service's ports merge by port, as kubectl apply sends them",
                        "{'spec':{'ports':[{'name':'http','port':80,'targetPort':8080}]}}",
                        "{'spec':{'$setElementOrder/ports':[{'port':443},{'port':80}],"
                                + "'ports':[{'name':'https','port':443,'targetPort':8443}]}}",
                        "{'spec':{'ports':[{'name':'https','port':443,'targetPort':8443},"
                                + "{'name':'http','port':80,'targetPort':8080}]}}"),
                arguments("a container's ports merge by containerPort",
                        "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80,'name':'web'}]}]}}",
                        "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80,'protocol':'TCP'}]}]}}",
                        "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80,'name':'web',"
                                + "'protocol':'TCP'}]}]}}"),
                arguments("an EndpointSlice's ports are replaced whole",
                        "{'ports':[{'name':'a','port':80}]}",
                        "{'ports':[{'name':'b','port':443}]}",
                        "{'ports':[{'name':'b','port':443}]}"),
                arguments("a ServiceAccount's secrets merge by name, its imagePullSecrets are replaced whole",
                        "{'secrets':[{'name':'a'}],'imagePullSecrets':[{'name':'x'}]}",
                        "{'secrets':[{'name':'b'}],'imagePullSecrets':[{'name':'y'}]}",
                        "{'secrets':[{'name':'a'},{'name':'b'}],'imagePullSecrets':[{'name':'y'}]}"),
                arguments("a pod spec's imagePullSecrets merge by name",
                        "{'spec':{'imagePullSecrets':[{'name':'x'}]}}",
                        "{'spec':{'imagePullSecrets':[{'name':'y'}]}}",
                        "{'spec':{'imagePullSecrets':[{'name':'x'},{'name':'y'}]}}"),
                arguments("a node's podCIDRs merge as a set",
                        "{'spec':{'podCIDRs':['10.0.0.0/24']}}",
                        "{'spec':{'podCIDRs':['fd00::/64']}}",
                        "{'spec':{'podCIDRs':['10.0.0.0/24','fd00::/64']}}"),
                arguments("a Namespace's spec.finalizers are replaced whole, its metadata.finalizers merge",
                        "{'metadata':{'finalizers':['a']},'spec':{'finalizers':['kubernetes']}}",
                        "{'metadata':{'finalizers':['b']},'spec':{'finalizers':['other']}}",
                        "{'metadata':{'finalizers':['a','b']},'spec':{'finalizers':['other']}}"),
                arguments("a pod's podIPs merge by ip",
                        "{'status':{'podIPs':[{'ip':'10.0.0.5'}]}}",
                        "{'status':{'podIPs':[{'ip':'fd00::5'}]}}",
                        "{'status':{'podIPs':[{'ip':'10.0.0.5'},{'ip':'fd00::5'}]}}"),
                arguments("an admission webhook configuration's webhooks merge by name",
                        "{'webhooks':[{'name':'a.example.com','timeoutSeconds':5},{'name':'b.example.com'}]}",
                        "{'$setElementOrder/webhooks':[{'name':'a.example.com'},{'name':'b.example.com'}],"
                                + "'webhooks':[{'name':'a.example.com','timeoutSeconds':10}]}",
                        "{'webhooks':[{'name':'a.example.com','timeoutSeconds':10},{'name':'b.example.com'}]}"),
                arguments("finalizers merge as a set",
                        "{'metadata':{'finalizers':['a']}}",
                        "{'metadata':{'finalizers':['b','a']}}",
                        "{'metadata':{'finalizers':['a','b']}}"),
                arguments("a list without a merge key is replaced",
                        "{'spec':{'tolerations':[{'key':'a'}]}}",
                        "{'spec':{'tolerations':[{'key':'b'}]}}",
                        "{'spec':{'tolerations':[{'key':'b'}]}}"),
                arguments("$patch replace on a map replaces it whole",
                        "{'metadata':{'labels':{'a':'1','b':'2'}}}",
                        "{'metadata':{'labels':{'$patch':'replace','c':'3'}}}",
                        "{'metadata':{'labels':{'c':'3'}}}"),
                arguments("null deletes a field",
                        "{'metadata':{'labels':{'a':'1','b':'2'}}}",
                        "{'metadata':{'labels':{'a':null}}}",
                        "{'metadata':{'labels':{'b':'2'}}}"),
                arguments("env merges by name inside a merged container",
                        "{'spec':{'containers':[{'name':'a','env':[{'name':'X','value':'1'},{'name':'Y','value':'2'}]}]}}",
                        "{'spec':{'containers':[{'name':'a','env':[{'name':'Y','value':'3'}]}]}}",
                        "{'spec':{'containers':[{'name':'a','env':[{'name':'X','value':'1'},{'name':'Y','value':'3'}]}]}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategic")
    void strategicMergePatch(String why, String original, String patch, String expected) {
        assertThat((JsonNode) Patches.strategicMerge(json(original), json(patch))).isEqualTo(json(expected));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jsonPatches")
    void jsonPatch(String why, String original, String patch, String expected) {
        assertThat(Patches.jsonPatch(json(original), Json.MAPPER.readTree(patch.replace('\'', '"'))))
                .isEqualTo(json(expected));
    }

    static Stream<Arguments> jsonPatches() {
        return Stream.of(
                arguments("add appends with -", "{'a':[1]}", "[{'op':'add','path':'/a/-','value':2}]", "{'a':[1,2]}"),
                arguments("add inserts at an index", "{'a':[1,3]}", "[{'op':'add','path':'/a/1','value':2}]", "{'a':[1,2,3]}"),
                arguments("remove", "{'a':1,'b':2}", "[{'op':'remove','path':'/a'}]", "{'b':2}"),
                arguments("replace", "{'a':1}", "[{'op':'replace','path':'/a','value':5}]", "{'a':5}"),
                arguments("move", "{'a':1}", "[{'op':'move','from':'/a','path':'/b'}]", "{'b':1}"),
                arguments("copy", "{'a':{'x':1}}", "[{'op':'copy','from':'/a','path':'/b'}]", "{'a':{'x':1},'b':{'x':1}}"),
                arguments("escaped keys", "{'m':{'a/b':1}}", "[{'op':'replace','path':'/m/a~1b','value':2}]", "{'m':{'a/b':2}}"),
                arguments("test passes", "{'a':1}", "[{'op':'test','path':'/a','value':1}]", "{'a':1}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failing")
    void aPatchThatCannotApplyIs422(String why, String patch) {
        assertThatThrownBy(() -> Patches.jsonPatch(json("{'a':1}"), Json.MAPPER.readTree(patch.replace('\'', '"'))))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(422));
    }

    static Stream<Arguments> failing() {
        return Stream.of(
                arguments("a failing test", "[{'op':'test','path':'/a','value':2}]"),
                arguments("removing what is not there", "[{'op':'remove','path':'/b'}]"),
                arguments("a path through a missing parent", "[{'op':'add','path':'/x/y','value':1}]"));
    }

    @ParameterizedTest(name = "merge patch: {0}")
    @MethodSource("mergePatches")
    void mergePatch(String why, String original, String patch, String expected) {
        assertThat(Patches.mergePatch(json(original), json(patch))).isEqualTo(json(expected));
    }

    static Stream<Arguments> mergePatches() {
        return Stream.of(
                arguments("nested maps merge", "{'a':{'b':1,'c':2}}", "{'a':{'c':3}}", "{'a':{'b':1,'c':3}}"),
                arguments("lists are replaced", "{'a':[1,2]}", "{'a':[3]}", "{'a':[3]}"),
                arguments("null removes", "{'a':1,'b':2}", "{'a':null}", "{'b':2}"));
    }
}

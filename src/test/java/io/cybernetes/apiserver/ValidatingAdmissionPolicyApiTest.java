package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ValidatingAdmissionPolicies and their bindings: CEL validations with messages, parameters from a
 * ConfigMap, variables and match conditions, the binding's Deny, Warn and Audit actions, failure
 * policies, and the refusals of malformed policies. Every policy here matches only namespaces
 * labelled for its own test, so the shared server's other tests are not affected.
 */
class ValidatingAdmissionPolicyApiTest extends ApiTestSupport {

    private static final String POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
    private static final String BINDINGS = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";

    @TempDir
    Path dir;

    String id;
    String ns;

    @BeforeEach
    void namespace() {
        id = UUID.randomUUID().toString().substring(0, 8);
        ns = "vap-" + id;
        assertThat(post("/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\",\"labels\":{\"vap-test\":\"" + id
                + "\"}}}").code()).isEqualTo(201);
    }

    private String policy(String name, String extra) {
        return """
                {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
                 "metadata":{"name":"%s"},
                 "spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
                   "operations":["CREATE","UPDATE"],"resources":["deployments"]}]},%s}}""".formatted(name, extra);
    }

    private String binding(String name, String policy, String actions, String extra) {
        return """
                {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
                 "metadata":{"name":"%s"},
                 "spec":{"policyName":"%s","validationActions":[%s],
                  "matchResources":{"namespaceSelector":{"matchLabels":{"vap-test":"%s"}}}%s}}"""
                .formatted(name, policy, actions, id, extra);
    }

    private Response deployment(String name, int replicas) {
        return post("/apis/apps/v1/namespaces/" + ns + "/deployments", """
                {"metadata":{"name":"%s"},"spec":{"replicas":%d,"selector":{"matchLabels":{"app":"%s"}},
                 "template":{"metadata":{"labels":{"app":"%s"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}"""
                .formatted(name, replicas, name, name));
    }

    private void install(String policy, String binding) {
        Response p = post(POLICIES, policy);
        assertThat(p.code()).as(p.body()).isEqualTo(201);
        Response b = post(BINDINGS, binding);
        assertThat(b.code()).as(b.body()).isEqualTo(201);
    }

    @Test
    void aFailedValidationDeniesTheWriteInKubernetesWordsAndOnlyWhereTheBindingApplies() {
        String name = "max-replicas-" + id;
        install(policy(name, "\"validations\":[{\"expression\":\"object.spec.replicas <= 5\"}]"),
                binding(name, name, "\"Deny\"", ""));
        Response denied = deployment("big", 6);
        assertThat(denied.code()).isEqualTo(422);
        assertThat(denied.text("reason")).isEqualTo("Invalid");
        assertThat(denied.text("message")).isEqualTo("deployments.apps \"big\" is forbidden: ValidatingAdmissionPolicy '"
                + name + "' with binding '" + name + "' denied request: failed expression: object.spec.replicas <= 5");
        assertThat(get("/apis/apps/v1/namespaces/" + ns + "/deployments/big").code()).isEqualTo(404);
        assertThat(deployment("small", 3).code()).isEqualTo(201);
        // kubectl shows the same
        Kubectl.Run kubectl = new Kubectl(endpoints.adminKubeconfig(), dir).run("-n", ns, "create", "deployment", "wide",
                "--image=nginx", "--replicas=9");
        assertThat(kubectl.err()).contains("ValidatingAdmissionPolicy '" + name + "' with binding '" + name
                + "' denied request: failed expression: object.spec.replicas <= 5");
        // elsewhere the binding does not apply
        String other = "vap-other-" + id;
        assertThat(createNamespace(other).code()).isEqualTo(201);
        assertThat(post("/apis/apps/v1/namespaces/" + other + "/deployments", """
                {"metadata":{"name":"big"},"spec":{"replicas":6,"selector":{"matchLabels":{"app":"b"}},
                 "template":{"metadata":{"labels":{"app":"b"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}""")
                .code()).isEqualTo(201);
    }

    @Test
    void parametersComeFromTheBindingsConfigMapAndAMissingOneDenies() {
        String name = "param-" + id;
        install(policy(name, """
                "paramKind":{"apiVersion":"v1","kind":"ConfigMap"},
                "variables":[{"name":"limit","expression":"int(params.data.maxReplicas)"}],
                "validations":[{"expression":"object.spec.replicas <= variables.limit",
                  "messageExpression":"'at most ' + params.data.maxReplicas + ' replicas, not ' + string(object.spec.replicas)",
                  "reason":"Forbidden"}]"""),
                binding(name, name, "\"Deny\"", ",\"paramRef\":{\"name\":\"limits\",\"parameterNotFoundAction\":\"Deny\"}"));
        Response missing = deployment("a", 1);
        assertThat(missing.code()).isEqualTo(422);
        assertThat(missing.text("message")).endsWith("denied request: failed to configure binding: no params found for"
                + " policy binding with `Deny` parameterNotFoundAction");
        assertThat(post("/api/v1/namespaces/" + ns + "/configmaps",
                "{\"metadata\":{\"name\":\"limits\"},\"data\":{\"maxReplicas\":\"2\"}}").code()).isEqualTo(201);
        eventually(() -> assertThat(deployment("b", 2).code()).isEqualTo(201));
        Kubectl.Run table = new Kubectl(endpoints.adminKubeconfig(), dir).run("get",
                "validatingadmissionpolicy,validatingadmissionpolicybinding", name);
        assertThat(table.out()).as(table.all()).containsPattern(name + " +1 +v1/ConfigMap")
                .containsPattern(name + " +" + name + " +\\*/limits");
        Response tooMany = deployment("c", 3);
        assertThat(tooMany.code()).as("the validation's reason decides the code").isEqualTo(403);
        assertThat(tooMany.text("message")).endsWith("denied request: at most 2 replicas, not 3");
    }

    @Test
    void warnAndAuditActionsLetTheWriteThroughAndSayWhy() {
        String name = "soft-" + id;
        install(policy(name, """
                "matchConditions":[{"name":"not-exempt","expression":"!has(object.metadata.labels) || !('exempt' in object.metadata.labels)"}],
                "validations":[{"expression":"object.spec.replicas % 2 == 1","message":"use an odd number of replicas"}],
                "auditAnnotations":[{"key":"replicas","valueExpression":"string(object.spec.replicas)"}]"""),
                binding(name, name, "\"Warn\",\"Audit\"", ""));
        Response warned = deployment("even", 4);
        assertThat(warned.code()).isEqualTo(201);
        assertThat(warned.headers().allValues("Warning")).contains("299 - \"Validation failed for"
                + " ValidatingAdmissionPolicy '" + name + "' with binding '" + name + "': use an odd number of replicas\"");
        JsonNode annotations = auditEvent(warned).path("annotations");
        assertThat(annotations.path(name + "/replicas").asString()).isEqualTo("4");
        JsonNode failures = Json.MAPPER.readTree(annotations.path("validation.policy.admission.k8s.io/validation_failure")
                .asString());
        assertThat(failures.get(0).path("message").asString()).isEqualTo("use an odd number of replicas");
        assertThat(failures.get(0).path("policy").asString()).isEqualTo(name);
        assertThat(Json.strings(failures.get(0).path("validationActions"))).containsExactly("Warn", "Audit");
        Response odd = deployment("odd", 3);
        assertThat(odd.headers().allValues("Warning")).isEmpty();
        Response exempt = post("/apis/apps/v1/namespaces/" + ns + "/deployments", """
                {"metadata":{"name":"exempt","labels":{"exempt":"yes"}},"spec":{"replicas":2,"selector":{"matchLabels":
                 {"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c",
                 "image":"nginx"}]}}}}""");
        assertThat(exempt.headers().allValues("Warning")).as("the match condition leaves it out").isEmpty();
    }

    @Test
    void anExpressionThatFailsFollowsTheFailurePolicy() {
        String closed = "closed-" + id;
        install(policy(closed, "\"validations\":[{\"expression\":\"object.spec.paused\"}]"),
                binding(closed, closed, "\"Deny\"", ""));
        Response failed = deployment("x", 1);
        assertThat(failed.code()).isEqualTo(422);
        assertThat(failed.text("message")).contains("denied request: expression 'object.spec.paused' resulted in error:"
                , "paused");
        assertThat(delete(BINDINGS + "/" + closed).code()).isEqualTo(200);
        String open = "open-" + id;
        install(policy(open, "\"failurePolicy\":\"Ignore\",\"validations\":[{\"expression\":\"object.spec.paused\"}]"),
                binding(open, open, "\"Deny\"", ""));
        eventually(() -> assertThat(deployment("y", 1).code()).isEqualTo(201));
    }

    @Test
    void theStatusReportsFieldsTheMatchedKindsDoNotHave() {
        String typo = "typo-" + id;
        assertThat(post(POLICIES, policy(typo, """
                "validations":[{"expression":"object.spec.replicas > 0"},
                  {"expression":"object.spec.replicass > 1 && object.metadata.name.startsWith('a')"}]""")).code())
                .isEqualTo(201);
        eventually(() -> {
            JsonNode status = get(POLICIES + "/" + typo).json().path("status");
            assertThat(status.path("observedGeneration").asLong()).isEqualTo(1);
            JsonNode warnings = status.path("typeChecking").path("expressionWarnings");
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0).path("fieldRef").asString()).isEqualTo("spec.validations[1].expression");
            assertThat(warnings.get(0).path("warning").asString())
                    .isEqualTo("apps/v1, Kind=Deployment: ERROR: <input>:1:13: undefined field 'replicass'");
        });
        JsonNode fixed = get(POLICIES + "/" + typo).json();
        ((tools.jackson.databind.node.ObjectNode) fixed.path("spec").path("validations").get(1))
                .put("expression", "object.spec.replicas > 1");
        assertThat(put(POLICIES + "/" + typo, Json.write(fixed)).code()).isEqualTo(200);
        eventually(() -> {
            JsonNode status = get(POLICIES + "/" + typo).json().path("status");
            assertThat(status.path("observedGeneration").asLong()).isEqualTo(2);
            assertThat(status.path("typeChecking").path("expressionWarnings")).isEmpty();
        });
    }

    @Test
    void aPolicyThatDeniesEverythingCannotLockItselfIn() {
        String name = "deny-all-" + id;
        Response p = post(POLICIES, """
                {"metadata":{"name":"%s"},"spec":{"matchConstraints":{"resourceRules":[
                 {"apiGroups":["apps"],"apiVersions":["v1"],"operations":["*"],"resources":["deployments"]},
                 {"apiGroups":["admissionregistration.k8s.io"],"apiVersions":["*"],"operations":["*"],
                  "resources":["validatingadmissionpolicies","validatingadmissionpolicybindings"]}]},
                 "validations":[{"expression":"false","message":"nothing passes"}]}}""".formatted(name));
        assertThat(p.code()).isEqualTo(201);
        assertThat(post(BINDINGS, binding(name, name, "\"Deny\"", "")).code()).isEqualTo(201);
        eventually(() -> assertThat(deployment("blocked", 1).code()).isEqualTo(422));
        assertThat(delete(BINDINGS + "/" + name).code()).as("policies and bindings are not judged by policies")
                .isEqualTo(200);
        assertThat(delete(POLICIES + "/" + name).code()).isEqualTo(200);
    }

    @Test
    void theAuthorizerAsksTheServersAuthorizersAboutTheRequesterAndAServiceAccount() {
        String name = "readers-deploy-" + id;
        install(policy(name, """
                "validations":[
                 {"expression":"authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()",
                  "message":"only readers of secrets deploy here"},
                 {"expression":"authorizer.requestResource.check('create').allowed() && authorizer.path('/healthz').check('GET').allowed()"},
                 {"expression":"!authorizer.group('apps').resource('deployments').subresource('scale').name('x').check('update').errored()"},
                 {"expression":"authorizer.serviceAccount(object.metadata.namespace, 'deployer').group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()",
                  "messageExpression":"'the deployer may not read secrets: ' + authorizer.serviceAccount(object.metadata.namespace, 'deployer').group('').resource('secrets').namespace(object.metadata.namespace).check('get').reason()"}]"""),
                binding(name, name, "\"Deny\"", ""));
        String rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns;
        assertThat(post(rbac + "/roles", """
                {"metadata":{"name":"deployer"},"rules":[{"apiGroups":["apps"],"resources":["deployments"],
                 "verbs":["create"]}]}""").code()).isEqualTo(201);
        assertThat(post(rbac + "/rolebindings", """
                {"metadata":{"name":"carol-deploys"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role",
                 "name":"deployer"},"subjects":[{"kind":"User","name":"carol"}]}""").code()).isEqualTo(201);
        String deployments = "/apis/apps/v1/namespaces/" + ns + "/deployments";
        String body = """
                {"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}""";
        eventually(() -> {
            Response denied = callAs("carol-token", "POST", deployments, "application/json", body, "application/json");
            assertThat(denied.code()).as(denied.body()).isEqualTo(422);
            assertThat(denied.text("message")).endsWith("denied request: only readers of secrets deploy here");
        });
        assertThat(post(rbac + "/roles", """
                {"metadata":{"name":"secret-reader"},"rules":[{"apiGroups":[""],"resources":["secrets"],
                 "verbs":["get"]}]}""").code()).isEqualTo(201);
        assertThat(post(rbac + "/rolebindings", """
                {"metadata":{"name":"carol-reads"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role",
                 "name":"secret-reader"},"subjects":[{"kind":"User","name":"carol"}]}""").code()).isEqualTo(201);
        eventually(() -> {
            Response denied = callAs("carol-token", "POST", deployments, "application/json", body, "application/json");
            assertThat(denied.text("message")).as("the first check passes now, the service account's does not")
                    .contains("denied request: the deployer may not read secrets: ");
        });
        assertThat(post(rbac + "/rolebindings", """
                {"metadata":{"name":"deployer-reads"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role",
                 "name":"secret-reader"},"subjects":[{"kind":"ServiceAccount","name":"deployer","namespace":"%s"}]}"""
                .formatted(ns)).code()).isEqualTo(201);
        eventually(() -> assertThat(callAs("carol-token", "POST", deployments, "application/json", body,
                "application/json").code()).isEqualTo(201));
    }

    @Test
    void expressionsSpendWithinKubernetesCostLimitsPerExpressionAndPerEvaluation() {
        // an authorization check costs 350,000: an expression may make two, an evaluation of a policy about 28
        String check = "authorizer.path('/%s').check('get').errored()";
        String three = String.join(" || ", check.formatted("a"), check.formatted("b"), check.formatted("c"));
        String perCall = "per-call-" + id;
        install(policy(perCall, "\"validations\":[{\"expression\":\"" + three + " || true\"}]"),
                binding(perCall, perCall, "\"Deny\"", ""));
        eventually(() -> assertThat(deployment("costly", 1).text("message")).endsWith("denied request: expression '"
                + three + " || true' resulted in error: operation cancelled: actual cost limit exceeded"));
        assertThat(delete(BINDINGS + "/" + perCall).code()).isEqualTo(200);

        String two = "!(" + check.formatted("a") + " || " + check.formatted("b") + ")";
        String validations = String.join(",", java.util.Collections.nCopies(15, "{\"expression\":\"" + two + "\"}"));
        String budget = "budget-" + id;
        install(policy(budget, "\"validations\":[" + validations + "]"), binding(budget, budget, "\"Deny\"", ""));
        eventually(() -> assertThat(deployment("spent", 1).text("message")).endsWith("denied request: validation"
                + " failed due to running out of cost budget, no further validation rules will be run"));
        assertThat(delete(BINDINGS + "/" + budget).code()).isEqualTo(200);
        // match conditions have a budget of their own, a quarter of that: four such conditions overrun it
        String conditions = String.join(",", java.util.Collections.nCopies(4, "{\"name\":\"c%d\",\"expression\":\""
                + two + "\"}"));
        conditions = conditions.formatted(1, 2, 3, 4);
        String gated = "gated-" + id;
        install(policy(gated, "\"matchConditions\":[" + conditions + "],\"validations\":[{\"expression\":\"true\"}]"),
                binding(gated, gated, "\"Deny\"", ""));
        eventually(() -> assertThat(deployment("gated", 1).text("message")).endsWith("denied request: validation"
                + " failed due to running out of cost budget, no further validation rules will be run"));
        assertThat(delete(BINDINGS + "/" + gated).code()).isEqualTo(200);
        String lenient = "lenient-" + id;
        install(policy(lenient, "\"failurePolicy\":\"Ignore\",\"validations\":[" + validations + "]"),
                binding(lenient, lenient, "\"Deny\"", ""));
        eventually(() -> assertThat(deployment("spent", 1).code()).as("Ignore lets the write through").isEqualTo(201));
    }

    @Test
    void variablesAreEvaluatedWhenReadAndOneThatFailsFailsWhatReadsIt() {
        // "costly" would overrun an expression's limit, but nothing reads it; "missing" fails when read
        String name = "lazy-vars-" + id;
        String check = "authorizer.path('/%s').check('get').errored()";
        install(policy(name, """
                "variables":[{"name":"costly","expression":"%s || %s || %s"},
                             {"name":"replicas","expression":"object.spec.replicas"},
                             {"name":"missing","expression":"object.spec.nothing"}],
                "validations":[{"expression":"variables.replicas <= 3","message":"at most 3"},
                               {"expression":"object.metadata.name != 'strict' || variables.missing == 1"}]"""
                .formatted(check.formatted("a"), check.formatted("b"), check.formatted("c"))),
                binding(name, name, "\"Deny\"", ""));
        eventually(() -> assertThat(deployment("many", 4).text("message")).endsWith("denied request: at most 3"));
        assertThat(deployment("few", 2).code()).as("the unread costly variable costs nothing").isEqualTo(201);
        Response strict = deployment("strict", 1);
        assertThat(strict.code()).isEqualTo(422);
        assertThat(strict.text("message")).contains("denied request: expression 'object.metadata.name != 'strict' ||"
                + " variables.missing == 1' resulted in error: no such key: nothing");
    }

    @Test
    void malformedPoliciesAndBindingsAreRefused() {
        Response badCel = post(POLICIES, policy("bad-" + id, "\"validations\":[{\"expression\":\"object.spec.replicas <=\"}]"));
        assertThat(badCel.code()).isEqualTo(422);
        assertThat(badCel.text("message")).contains("spec.validations[0].expression: Invalid value:",
                "compilation failed: ERROR: <input>:1:");
        Response notBool = post(POLICIES, policy("nb-" + id, "\"validations\":[{\"expression\":\"'yes'\"}]"));
        assertThat(notBool.text("message")).contains("spec.validations[0].expression", "must evaluate to bool");
        Response empty = post(POLICIES, policy("empty-" + id, "\"failurePolicy\":\"Sometimes\""));
        assertThat(empty.text("message")).contains("spec.failurePolicy: Unsupported value: \"Sometimes\"",
                "spec.validations: Required value: validations or auditAnnotations must contain at least one item");
        Response both = post(BINDINGS, binding("both-" + id, "p", "\"Deny\",\"Warn\"", ""));
        assertThat(both.text("message")).contains("spec.validationActions: Invalid value: [\"Deny\",\"Warn\"]: must not"
                + " contain both Deny and Warn");
        Response ref = post(BINDINGS, binding("ref-" + id, "p", "\"Deny\"",
                ",\"paramRef\":{\"name\":\"a\",\"selector\":{},\"parameterNotFoundAction\":\"Maybe\"}"));
        assertThat(ref.text("message")).contains("spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
                "spec.paramRef.parameterNotFoundAction: Unsupported value: \"Maybe\"");
        Response selector = post(BINDINGS, binding("sel-" + id, "p", "\"Deny\"",
                ",\"paramRef\":{\"selector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Sometimes\"}]},"
                        + "\"parameterNotFoundAction\":\"Allow\"}"));
        assertThat(selector.code()).isEqualTo(422);
        assertThat(selector.text("message")).contains("spec.paramRef.selector: Invalid value:");
        for (String n : List.of("bad-", "nb-", "empty-")) {
            assertThat(get(POLICIES + "/" + n + id).code()).isEqualTo(404);
        }
    }
}

package io.cybernetes.admission;

import io.cybernetes.api.CelPrograms;
import io.cybernetes.api.CelValues;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The authorizer of CEL expressions: what it asks the authorizers, and how their answers read. */
class CelAuthorizerTest {

    private static final CelPrograms CEL = new CelPrograms(CelAuthorizer.declare(CelValues.builder()).build(),
            1_000_000);

    /** Answers from a table, and remembers what it was asked. */
    private static final class Recording implements AccessChecker {
        final List<String> asked = new ArrayList<>();

        @Override
        public Verdict check(Attributes.User user, String verb, String group, String resource, String subresource,
                             String namespace, String name, String fieldSelector, String labelSelector) {
            asked.add(String.join("|", user.name(), String.join(",", user.groups()), verb, group, resource,
                    subresource, namespace, name) + (fieldSelector + labelSelector).transform(s -> s.isEmpty() ? ""
                    : "|" + fieldSelector + "|" + labelSelector));
            return resource.equals("secrets") ? new Verdict(true, "RBAC: allowed") : new Verdict(false, "no rule");
        }

        @Override
        public Verdict checkPath(Attributes.User user, String verb, String path) {
            asked.add(String.join("|", user.name(), verb, path));
            return new Verdict(false, "", "Post \"https://authz.example\": connection refused");
        }
    }

    private static Object eval(String expression, Recording access) throws Exception {
        Attributes request = new Attributes(Attributes.Operation.UPDATE, "apps", "v1", "Deployment", "deployments",
                "scale", "team-a", "web", null, null, new Attributes.User("alice", "u1", List.of("devs"), Map.of()),
                false);
        Map<String, Object> vars = new HashMap<>();
        CelAuthorizer.bind(vars, access, request);
        return CEL.evaluate(expression, vars);
    }

    @Test
    void checksAskTheAuthorizersAboutTheRequesterOrAServiceAccount() throws Exception {
        Recording access = new Recording();
        assertThat(eval("authorizer.group('').resource('secrets').namespace('team-a').name('db').check('get')"
                + ".allowed()", access)).isEqualTo(true);
        assertThat(eval("authorizer.group('').resource('secrets').check('list').reason()", access))
                .isEqualTo("RBAC: allowed");
        assertThat(eval("authorizer.requestResource.check('patch').allowed()", access)).isEqualTo(false);
        assertThat(eval("authorizer.serviceAccount('ci', 'deployer').group('apps').resource('deployments')"
                + ".check('create').allowed()", access)).isEqualTo(false);
        assertThat(access.asked).containsExactly(
                "alice|devs|get||secrets||team-a|db",
                "alice|devs|list||secrets|||",
                "alice|devs|patch|apps|deployments|scale|team-a|web",
                "system:serviceaccount:ci:deployer|system:serviceaccounts,system:serviceaccounts:ci|create|apps"
                        + "|deployments|||");
    }

    @Test
    void aCheckNarrowedBySelectorsAsksAboutTheObjectsTheyPick() throws Exception {
        Recording access = new Recording();
        assertThat(eval("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1')"
                + ".labelSelector('app=web').check('list').allowed()", access)).isEqualTo(false);
        assertThat(eval("authorizer.group('').resource('secrets').labelSelector('tier in (db)').namespace('team-a')"
                + ".check('list').allowed()", access)).isEqualTo(true);
        assertThat(access.asked).containsExactly("alice|devs|list||pods||||spec.nodeName=n1|app=web",
                "alice|devs|list||secrets||team-a|||tier in (db)");
        // a selector costs by its length, as Kubernetes counts it (10 + 2 + 8 × 50 for these 16 characters)
        String narrowed = "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1') == authorizer"
                + ".group('').resource('pods')";
        Map<String, Object> vars = new HashMap<>();
        CelAuthorizer.bind(vars, access, new Attributes(Attributes.Operation.CREATE, "", "v1", "Pod", "pods", "",
                "team-a", "p", null, null, new Attributes.User("alice", "", List.of(), Map.of()), false));
        assertThat(CEL.evaluate(narrowed, vars, new CelPrograms.Budget(1_000))).isEqualTo(false);
        assertThatThrownBy(() -> CEL.evaluate(narrowed, vars, new CelPrograms.Budget(400)))
                .isInstanceOf(CelPrograms.BudgetExhausted.class);
    }

    @Test
    void anAuthorizerThatFailedIsAnErrorNotADenial() throws Exception {
        Recording access = new Recording();
        assertThat(eval("authorizer.path('/healthz').check('GET').errored()", access)).isEqualTo(true);
        assertThat(eval("authorizer.path('/healthz').check('GET').error()", access))
                .isEqualTo("Post \"https://authz.example\": connection refused");
        assertThat(eval("authorizer.group('').resource('secrets').check('get').errored()", access)).isEqualTo(false);
        assertThat(access.asked.get(0)).as("the HTTP verb in lower case").isEqualTo("alice|get|/healthz");
    }
}

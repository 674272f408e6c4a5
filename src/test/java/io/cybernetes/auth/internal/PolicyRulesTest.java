package io.cybernetes.auth.internal;

import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyRulesTest {

    static final UserInfo U = UserInfo.authenticated("u", "", List.of());

    static PolicyRule rule(String verbs, String groups, String resources, String names) {
        PolicyRuleBuilder b = new PolicyRuleBuilder().withVerbs(verbs.split(",")).withApiGroups(groups.split(",", -1))
                .withResources(resources.split(","));
        if (!names.isEmpty()) {
            b.withResourceNames(names.split(","));
        }
        return b.build();
    }

    static PolicyRule urls(String verbs, String urls) {
        return new PolicyRuleBuilder().withVerbs(verbs.split(",")).withNonResourceURLs(urls.split(",")).build();
    }

    static RequestAttributes req(String verb, String group, String resource, String sub, String name) {
        return RequestAttributes.resource(U, verb, group, resource, sub, "ns", name);
    }

    static Stream<Arguments> matches() {
        return Stream.of(
                Arguments.of("a rule names the verb, group and resource", rule("get", "", "pods", ""),
                        req("get", "", "pods", "", "p"), true),
                Arguments.of("another verb does not match", rule("get", "", "pods", ""), req("list", "", "pods", "", ""), false),
                Arguments.of("another group does not match", rule("get", "", "deployments", ""),
                        req("get", "apps", "deployments", "", "d"), false),
                Arguments.of("stars match any verb, group and resource", rule("*", "*", "*", ""),
                        req("delete", "apps", "deployments", "", "d"), true),
                Arguments.of("a resource does not grant its subresources", rule("update", "", "pods", ""),
                        req("update", "", "pods", "status", "p"), false),
                Arguments.of("a subresource is named with its resource", rule("update", "", "pods/status", ""),
                        req("update", "", "pods", "status", "p"), true),
                Arguments.of("*/scale matches the scale of every resource", rule("update", "apps", "*/scale", ""),
                        req("update", "apps", "deployments", "scale", "d"), true),
                Arguments.of("resourceNames match the named object", rule("get", "", "secrets", "a,b"),
                        req("get", "", "secrets", "", "b"), true),
                Arguments.of("resourceNames do not match another object", rule("get", "", "secrets", "a"),
                        req("get", "", "secrets", "", "c"), false),
                Arguments.of("resourceNames never match a list (no name)", rule("list", "", "secrets", "a"),
                        req("list", "", "secrets", "", ""), false),
                Arguments.of("a path rule matches its path", urls("get", "/healthz"),
                        RequestAttributes.nonResource(U, "get", "/healthz"), true),
                Arguments.of("a path rule ending in * matches below it", urls("get", "/apis/*"),
                        RequestAttributes.nonResource(U, "get", "/apis/apps/v1"), true),
                Arguments.of("a path rule does not match resources", urls("*", "*"), req("get", "", "pods", "", "p"), false),
                Arguments.of("a resource rule does not match paths", rule("*", "*", "*", ""),
                        RequestAttributes.nonResource(U, "get", "/healthz"), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matches")
    void rulesMatchRequestsAsRbacDoes(String name, PolicyRule rule, RequestAttributes request, boolean matches) {
        assertThat(PolicyRules.allows(rule, request)).isEqualTo(matches);
    }

    static Stream<Arguments> coverage() {
        return Stream.of(
                Arguments.of("the same rule covers itself", List.of(rule("get,list", "", "pods", "")),
                        rule("get", "", "pods", ""), 0),
                Arguments.of("stars cover everything named", List.of(rule("*", "*", "*", "")),
                        rule("get,delete", "apps", "deployments,replicasets", ""), 0),
                Arguments.of("each verb and resource not held is reported on its own", List.of(rule("get", "", "pods", "")),
                        rule("get,delete", "", "pods,secrets", ""), 3),
                Arguments.of("a named grant does not cover every object", List.of(rule("get", "", "secrets", "a")),
                        rule("get", "", "secrets", ""), 1),
                Arguments.of("an unnamed grant covers named objects", List.of(rule("get", "", "secrets", "")),
                        rule("get", "", "secrets", "a,b"), 0),
                Arguments.of("*/scale covers a resource's scale", List.of(rule("update", "apps", "*/scale", "")),
                        rule("update", "apps", "deployments/scale", ""), 0),
                Arguments.of("holding pods does not cover a star", List.of(rule("get", "", "pods", "")),
                        rule("get", "", "*", ""), 1),
                Arguments.of("path grants cover paths below a star", List.of(urls("get", "/logs/*")),
                        urls("get", "/logs/app"), 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("coverage")
    void escalationChecksBreakRulesIntoParts(String name, List<PolicyRule> held, PolicyRule wanted, int missing) {
        assertThat(PolicyRules.uncovered(held, List.of(wanted))).hasSize(missing);
    }
}

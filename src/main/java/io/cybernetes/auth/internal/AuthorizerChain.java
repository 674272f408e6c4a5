package io.cybernetes.auth.internal;

import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RuleResolver;
import io.cybernetes.auth.UserInfo;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleRefBuilder;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The authorizers of the configured modes in their order, as kube-apiserver's
 * {@code --authorization-mode} (default Node,RBAC): members of {@code system:masters} are
 * allowed everything first, then each mode is asked; the first allow or deny wins, and a
 * request nobody allows is forbidden with the reasons gathered on the way.
 * Also the escalation checks, which need both the rules and the chain (a user with
 * {@code bind} on a role may bind it without holding its rules).
 */
final class AuthorizerChain implements Authorizer, RuleResolver {

    private static final String RBAC_GROUP = "rbac.authorization.k8s.io";
    private static final List<PolicyRule> FULL_AUTHORITY = List.of(
            new PolicyRuleBuilder().withVerbs("*").withApiGroups("*").withResources("*").build(),
            new PolicyRuleBuilder().withVerbs("*").withNonResourceURLs("*").build());

    private final PolicyIndex index;
    private final RbacAuthorizer rbac;
    private final List<Authorizer> chain;

    AuthorizerChain(ClusterPolicy policy, List<AuthProperties.AuthorizationMode> modes, String policyFile) {
        this(policy, modes, policyFile, new AuthProperties.AuthorizationWebhook("", java.time.Duration.ofMinutes(5),
                java.time.Duration.ofSeconds(30)));
    }

    AuthorizerChain(ClusterPolicy policy, List<AuthProperties.AuthorizationMode> modes, String policyFile,
                    AuthProperties.AuthorizationWebhook webhook) {
        this.index = policy.rbac();
        this.rbac = new RbacAuthorizer(index);
        if (modes.isEmpty()) {
            throw new IllegalStateException("cybernetes.auth.authorization-mode names no authorizer");
        }
        if (modes.stream().distinct().count() < modes.size()) {
            throw new IllegalStateException("cybernetes.auth.authorization-mode names an authorizer twice: " + modes);
        }
        if (!modes.contains(AuthProperties.AuthorizationMode.Webhook) && !webhook.configFile().isEmpty()) {
            throw new IllegalStateException("cannot specify cybernetes.auth.authorization-webhook.config-file without"
                    + " mode Webhook");
        }
        if (!modes.contains(AuthProperties.AuthorizationMode.ABAC) && !policyFile.isEmpty()) {
            throw new IllegalStateException("cannot specify cybernetes.auth.authorization-policy-file without mode ABAC");
        }
        List<Authorizer> authorizers = new ArrayList<>();
        for (AuthProperties.AuthorizationMode mode : modes) {
            authorizers.add(switch (mode) {
                case Node -> new NodeAuthorizer(policy.nodes());
                case RBAC -> rbac;
                case ABAC -> {
                    if (policyFile.isEmpty()) {
                        throw new IllegalStateException("authorization mode ABAC needs"
                                + " cybernetes.auth.authorization-policy-file");
                    }
                    yield AbacAuthorizer.fromFile(Path.of(policyFile));
                }
                case Webhook -> WebhookAuthorizer.of(webhook);
                case AlwaysAllow -> a -> Decision.allow();
                case AlwaysDeny -> a -> Decision.noOpinion("Everything is forbidden.");
            });
        }
        this.chain = List.copyOf(authorizers);
    }

    @Override
    public Decision authorize(RequestAttributes a) {
        if (a.user().inGroup(UserInfo.MASTERS)) {
            return Decision.allow("");
        }
        List<String> reasons = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (Authorizer z : chain) {
            Decision d = z.authorize(a);
            if (d.outcome() != Decision.Outcome.NO_OPINION) {
                return d;
            }
            if (!d.reason().isEmpty()) {
                reasons.add(d.reason());
            }
            if (!d.error().isEmpty()) {
                errors.add(d.error());
            }
        }
        return new Decision(Decision.Outcome.NO_OPINION, String.join(", ", reasons), String.join(", ", errors));
    }

    @Override
    public List<PolicyRule> rulesFor(UserInfo user, String namespace) {
        return rbac.rulesFor(user, namespace);
    }

    @Override
    public Optional<String> checkRoleEscalation(UserInfo user, String namespace, List<PolicyRule> rules,
                                                boolean hasAggregationRule) {
        if (user.inGroup(UserInfo.MASTERS)) {
            return Optional.empty();
        }
        String resource = namespace.isEmpty() ? "clusterroles" : "roles";
        if (authorize(RequestAttributes.resource(user, "escalate", RBAC_GROUP, resource, "", namespace, "")).allowed()) {
            return Optional.empty();
        }
        List<PolicyRule> held = rulesFor(user, namespace);
        Optional<String> notHeld = notHeld(user, held, rules);
        if (notHeld.isEmpty() && hasAggregationRule && !PolicyRules.uncovered(held, FULL_AUTHORITY).isEmpty()) {
            return Optional.of("must have cluster-admin privileges to use the aggregationRule");
        }
        return notHeld;
    }

    @Override
    public Optional<String> checkBindEscalation(UserInfo user, String namespace, String kind, String roleName) {
        if (user.inGroup(UserInfo.MASTERS)) {
            return Optional.empty();
        }
        String resource = "Role".equals(kind) ? "roles" : "clusterroles";
        if (authorize(RequestAttributes.resource(user, "bind", RBAC_GROUP, resource, "", namespace, roleName))
                .allowed()) {
            return Optional.empty();
        }
        var ref = new RoleRefBuilder().withApiGroup(RBAC_GROUP).withKind(kind).withName(roleName).build();
        if (!index.exists(ref, namespace)) {
            return Optional.of(resource + "." + RBAC_GROUP + " \"" + roleName + "\" not found");
        }
        List<PolicyRule> granted = index.rules(ref, namespace);
        return notHeld(user, rulesFor(user, namespace), granted);
    }

    private static Optional<String> notHeld(UserInfo user, List<PolicyRule> held, List<PolicyRule> wanted) {
        List<PolicyRule> missing = PolicyRules.uncovered(held, wanted);
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("user \"" + user.name() + "\" (groups=["
                + user.groups().stream().map(g -> "\"" + g + "\"").collect(Collectors.joining(" "))
                + "]) is attempting to grant RBAC permissions not currently held:\n"
                + missing.stream().map(PolicyRules::describe).collect(Collectors.joining("\n")));
    }
}

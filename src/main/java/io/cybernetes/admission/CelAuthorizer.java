package io.cybernetes.admission;

import dev.cel.bundle.CelBuilder;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelFunctionBinding;
import io.cybernetes.api.CelValues;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code authorizer} of Kubernetes' CEL expressions (policies, admission match conditions): asks the
 * server's authorizers about the requesting user, or a service account,
 * {@code authorizer.group('apps').resource('deployments').namespace('ns').name('web').check('update').allowed()},
 * {@code authorizer.path('/healthz').check('get')}, a check narrowed by selectors
 * ({@code ...resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app=web')}), with the decision's {@code allowed()}, {@code reason()},
 * {@code errored()} and {@code error()}; and {@code authorizer.requestResource}, a check already aimed at the
 * request's own resource. Each check costs what Kubernetes counts for it, so an expression makes at most two.
 */
public final class CelAuthorizer {

    /** The variable names the expressions see. */
    public static final String VARIABLE = "authorizer";
    public static final String REQUEST_RESOURCE = "authorizer.requestResource";
    /** What one authorization check costs: an expression's budget allows two. */
    static final long CHECK_COST = 350_000;

    private static final CelType AUTHORIZER = OpaqueType.create("kubernetes.authorization.Authorizer");
    private static final CelType PATH_CHECK = OpaqueType.create("kubernetes.authorization.PathCheck");
    private static final CelType GROUP_CHECK = OpaqueType.create("kubernetes.authorization.GroupCheck");
    private static final CelType RESOURCE_CHECK = OpaqueType.create("kubernetes.authorization.ResourceCheck");
    private static final CelType DECISION = OpaqueType.create("kubernetes.authorization.Decision");

    private CelAuthorizer() {
    }

    /** Who asks and whom to ask: the authorizer for one user. */
    record Subject(AccessChecker access, Attributes.User user) {
    }

    record PathCheck(Subject subject, String path) {
    }

    record GroupCheck(Subject subject, String group) {
    }

    /** A check being built; its selectors are kept as written and parsed when it is made. */
    record ResourceCheck(Subject subject, String group, String resource, String subresource, String namespace,
                         String name, String fieldSelector, String labelSelector) {

        ResourceCheck(Subject subject, String group, String resource, String subresource, String namespace,
                      String name) {
            this(subject, group, resource, subresource, namespace, name, "", "");
        }

        ResourceCheck with(String subresource, String namespace, String name) {
            return new ResourceCheck(subject, group, resource, subresource, namespace, name, fieldSelector,
                    labelSelector);
        }

        ResourceCheck selecting(String fields, String labels) {
            return new ResourceCheck(subject, group, resource, subresource, namespace, name, fields, labels);
        }
    }

    record Decision(boolean allowed, String reason, String error) {
    }

    /** Declares the variables, the functions and their implementations in the environment being built. */
    public static CelBuilder declare(CelBuilder builder) {
        return builder
                .addVar(VARIABLE, AUTHORIZER)
                .addVar(REQUEST_RESOURCE, RESOURCE_CHECK)
                .addFunctionDeclarations(
                        member("path", "authorizer_path", PATH_CHECK, AUTHORIZER, SimpleType.STRING),
                        member("group", "authorizer_group", GROUP_CHECK, AUTHORIZER, SimpleType.STRING),
                        member("serviceAccount", "authorizer_serviceaccount", AUTHORIZER, AUTHORIZER,
                                SimpleType.STRING, SimpleType.STRING),
                        member("resource", "groupcheck_resource", RESOURCE_CHECK, GROUP_CHECK, SimpleType.STRING),
                        member("subresource", "resourcecheck_subresource", RESOURCE_CHECK, RESOURCE_CHECK,
                                SimpleType.STRING),
                        member("namespace", "resourcecheck_namespace", RESOURCE_CHECK, RESOURCE_CHECK,
                                SimpleType.STRING),
                        member("name", "resourcecheck_name", RESOURCE_CHECK, RESOURCE_CHECK, SimpleType.STRING),
                        member("fieldSelector", "authorizer_fieldselector", RESOURCE_CHECK, RESOURCE_CHECK,
                                SimpleType.STRING),
                        member("labelSelector", "authorizer_labelselector", RESOURCE_CHECK, RESOURCE_CHECK,
                                SimpleType.STRING),
                        CelFunctionDecl.newFunctionDeclaration("check",
                                CelOverloadDecl.newMemberOverload("pathcheck_check", DECISION, PATH_CHECK,
                                        SimpleType.STRING),
                                CelOverloadDecl.newMemberOverload("resourcecheck_check", DECISION, RESOURCE_CHECK,
                                        SimpleType.STRING)),
                        member("allowed", "decision_allowed", SimpleType.BOOL, DECISION),
                        member("reason", "decision_reason", SimpleType.STRING, DECISION),
                        member("errored", "decision_errored", SimpleType.BOOL, DECISION),
                        member("error", "decision_error", SimpleType.STRING, DECISION))
                .addFunctionBindings(
                        CelFunctionBinding.from("authorizer_path", Subject.class, String.class, PathCheck::new),
                        CelFunctionBinding.from("authorizer_group", Subject.class, String.class, GroupCheck::new),
                        CelFunctionBinding.from("authorizer_serviceaccount", List.of(Subject.class, String.class,
                                String.class), args -> serviceAccount((Subject) args[0], (String) args[1],
                                (String) args[2])),
                        CelFunctionBinding.from("groupcheck_resource", GroupCheck.class, String.class,
                                (g, resource) -> new ResourceCheck(g.subject(), g.group(), resource, "", "", "")),
                        CelFunctionBinding.from("resourcecheck_subresource", ResourceCheck.class, String.class,
                                (r, sub) -> r.with(sub, r.namespace(), r.name())),
                        CelFunctionBinding.from("resourcecheck_namespace", ResourceCheck.class, String.class,
                                (r, ns) -> r.with(r.subresource(), ns, r.name())),
                        CelFunctionBinding.from("resourcecheck_name", ResourceCheck.class, String.class,
                                (r, name) -> r.with(r.subresource(), r.namespace(), name)),
                        CelFunctionBinding.from("authorizer_fieldselector", ResourceCheck.class, String.class,
                                (r, selector) -> {
                                    chargeSelector(selector);
                                    return r.selecting(selector, r.labelSelector());
                                }),
                        CelFunctionBinding.from("authorizer_labelselector", ResourceCheck.class, String.class,
                                (r, selector) -> {
                                    chargeSelector(selector);
                                    return r.selecting(r.fieldSelector(), selector);
                                }),
                        CelFunctionBinding.from("pathcheck_check", PathCheck.class, String.class,
                                CelAuthorizer::check),
                        CelFunctionBinding.from("resourcecheck_check", ResourceCheck.class, String.class,
                                CelAuthorizer::check),
                        CelFunctionBinding.from("decision_allowed", Decision.class, Decision::allowed),
                        CelFunctionBinding.from("decision_reason", Decision.class, Decision::reason),
                        CelFunctionBinding.from("decision_errored", Decision.class, d -> !d.error().isEmpty()),
                        CelFunctionBinding.from("decision_error", Decision.class, Decision::error));
    }

    /** The two variables for a request: the requester's authorizer, and a check of the request's resource. */
    public static void bind(Map<String, Object> vars, AccessChecker access, Attributes a) {
        Subject subject = new Subject(access, a.user() == null
                ? new Attributes.User("", "", List.of(), Map.of()) : a.user());
        vars.put(VARIABLE, subject);
        vars.put(REQUEST_RESOURCE, new ResourceCheck(subject, a.group(), a.resource(), a.subresource(),
                a.namespace(), a.name()));
    }

    private static CelFunctionDecl member(String function, String overload, CelType result, CelType receiver,
                                          CelType... args) {
        List<CelType> params = new java.util.ArrayList<>(List.of(receiver));
        params.addAll(List.of(args));
        return CelFunctionDecl.newFunctionDeclaration(function,
                CelOverloadDecl.newMemberOverload(overload, result, params));
    }

    /** A service account's authorizer: its user name and groups as the service-account authenticator gives them. */
    private static Subject serviceAccount(Subject s, String namespace, String name) {
        return new Subject(s.access(), new Attributes.User("system:serviceaccount:" + namespace + ":" + name, "",
                List.of("system:serviceaccounts", "system:serviceaccounts:" + namespace), Map.of()));
    }

    private static Decision check(PathCheck p, String verb) {
        CelValues.charge(CHECK_COST);
        AccessChecker.Verdict v = p.subject().access().checkPath(p.subject().user(), verb.toLowerCase(Locale.ROOT),
                p.path());
        return new Decision(v.allowed(), v.reason(), v.error());
    }

    /** What Kubernetes counts for taking a selector: reading the string, and a requirement for every two characters. */
    private static void chargeSelector(String selector) {
        CelValues.charge(10 + (long) Math.ceil(selector.length() * 0.1) + (long) Math.ceil(selector.length() * 0.5) * 50);
    }

    private static Decision check(ResourceCheck r, String verb) {
        CelValues.charge(CHECK_COST);
        AccessChecker.Verdict v = r.subject().access().check(r.subject().user(), verb, r.group(), r.resource(),
                r.subresource(), r.namespace(), r.name(), r.fieldSelector(), r.labelSelector());
        return new Decision(v.allowed(), v.reason(), v.error());
    }
}

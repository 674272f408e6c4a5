package io.cybernetes.auth;

import io.cybernetes.api.ApiException;

/**
 * Decides whether a request may proceed. Implementations answer {@link Decision#allow()}
 * or {@link Decision#deny(String)} only when they are sure; otherwise
 * {@link Decision#noOpinion(String)}, and the next authorizer in the chain decides.
 * A request nobody allows is forbidden.
 */
public interface Authorizer {

    /** Request attributes where the authorization step leaves its decision ("allow" or "forbid") and reason, for audit. */
    String DECISION_REQUEST_ATTRIBUTE = Authorizer.class.getName() + ".decision";
    String REASON_REQUEST_ATTRIBUTE = Authorizer.class.getName() + ".reason";

    Decision authorize(RequestAttributes attributes);

    /** The 403 as Kubernetes words it, with the authorizers' reasons appended. */
    static ApiException forbidden(RequestAttributes a, String reason) {
        UserInfo user = a.user();
        String why;
        if (!a.resourceRequest()) {
            why = "User \"" + user.name() + "\" cannot " + a.verb() + " path \"" + a.path() + "\"";
        } else {
            why = "User \"" + user.name() + "\" cannot " + a.verb() + " resource \"" + a.resourceWithSubresource()
                    + "\" in API group \"" + a.apiGroup() + "\""
                    + (a.namespace().isEmpty() ? " at the cluster scope" : " in the namespace \"" + a.namespace() + "\"");
        }
        if (reason != null && !reason.isEmpty()) {
            why += ": " + reason;
        }
        return a.resourceRequest() ? ApiException.forbidden(a.apiGroup(), a.resource(), a.name(), why)
                : ApiException.forbidden("forbidden: " + why);
    }

    /**
     * An authorizer's answer with the reason people see in a 403 or an access review, and the error that kept
     * an authorizer from answering (empty when none did; such a one has no opinion).
     */
    record Decision(Outcome outcome, String reason, String error) {

        public enum Outcome { ALLOW, DENY, NO_OPINION }

        public Decision(Outcome outcome, String reason) {
            this(outcome, reason, "");
        }

        /** No opinion, because the authorizer could not be asked (a webhook down). */
        public static Decision failed(String error) {
            return new Decision(Outcome.NO_OPINION, "", error == null || error.isEmpty() ? "unknown error" : error);
        }

        public static Decision allow(String reason) {
            return new Decision(Outcome.ALLOW, reason);
        }

        public static Decision allow() {
            return allow("");
        }

        public static Decision deny(String reason) {
            return new Decision(Outcome.DENY, reason);
        }

        public static Decision noOpinion(String reason) {
            return new Decision(Outcome.NO_OPINION, reason);
        }

        public boolean allowed() {
            return outcome == Outcome.ALLOW;
        }
    }
}

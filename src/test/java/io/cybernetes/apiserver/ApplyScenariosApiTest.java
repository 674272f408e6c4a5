package io.cybernetes.apiserver;

/** The server-side apply scenarios over the API itself: {@code PATCH} with {@code application/apply-patch+yaml}. */
class ApplyScenariosApiTest extends ApplyScenariosSupport {

    @Override
    protected String namespace() {
        return "ssa-api";
    }

    @Override
    protected String apply(String namespace, Target target, String yaml, String manager, boolean force) {
        Response r = call("PATCH", target.applyPath(namespace) + "?fieldManager=" + manager
                + (force ? "&force=true" : ""), "application/apply-patch+yaml", yaml);
        return r.code() < 300 ? null : r.code() + " " + r.text("message");
    }
}

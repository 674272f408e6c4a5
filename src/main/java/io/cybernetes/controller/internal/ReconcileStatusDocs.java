package io.cybernetes.controller.internal;

import io.cybernetes.api.ResourceRegistry;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;

/**
 * The Swagger UI documentation of the per-object reconcile status views: one generic
 * mapping serves them all, so each view's paths are described here from
 * {@link ReconcileViews}.
 */
@Component
class ReconcileStatusDocs implements OpenApiCustomizer {

    static final String TAG = "status.cybernetes.io/v1 reconcile status";
    private static final String ROOT = "/apis/" + ResourceRegistry.STATUS + "/v1";

    @Override
    public void customise(OpenAPI api) {
        for (ReconcileViews.View v : ReconcileViews.ALL) {
            api.path(ROOT + "/" + v.plural(), new PathItem().get(op("Reconcile status of the " + v.of()
                    + " in every namespace", false, false)));
            api.path(ROOT + "/namespaces/{namespace}/" + v.plural(), new PathItem().get(op("Reconcile status of the "
                    + v.of() + " in a namespace", true, false)));
            api.path(ROOT + "/namespaces/{namespace}/" + v.plural() + "/{name}", new PathItem().get(op(
                    "Reconcile status of one of the " + v.of() + ": desired vs observed, conditions, last reconcile"
                            + " by " + String.join(", ", v.controllers()), true, true)));
        }
    }

    private static Operation op(String summary, boolean namespaced, boolean named) {
        List<Parameter> params = new ArrayList<>();
        if (namespaced) {
            params.add(new Parameter().in("path").name("namespace").required(true).schema(new StringSchema()));
        }
        if (named) {
            params.add(new Parameter().in("path").name("name").required(true).schema(new StringSchema()));
        }
        return new Operation().addTagsItem(TAG).summary(summary).parameters(params)
                .responses(new ApiResponses().addApiResponse("200", new ApiResponse().description("OK"))
                        .addApiResponse("404", new ApiResponse().description("No such object, as a Status")));
    }
}

package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.registry.Schema;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.media.BooleanSchema;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.tags.Tag;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

import java.util.List;

/**
 * The Swagger UI documentation of the resource endpoints. One generic controller serves
 * them all, so the paths are described here from the resource registry: every kind's
 * collection, item and subresource paths with their verbs and query parameters, and
 * bearer-token authorization for the Authorize button.
 */
@Component
class SwaggerDocs implements OpenApiCustomizer {

    private final ResourceRegistry registry;

    SwaggerDocs(ResourceRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void customise(OpenAPI api) {
        api.info(new Info().title("Cybernetes API").version("v1.32")
                .description("A Kubernetes-compatible API. Authorize with the admin token from data/pki/admin.token "
                        + "(or any bearer token the server accepts); every call runs the same pipeline as kubectl's."));
        if (api.getComponents() == null) {
            api.setComponents(new Components());
        }
        api.getComponents().addSecuritySchemes("bearer", new SecurityScheme().type(SecurityScheme.Type.HTTP)
                .scheme("bearer").description("A bearer token, for example the admin token"));
        api.addSecurityItem(new SecurityRequirement().addList("bearer"));
        for (ResourceType t : registry.all()) {
            if (t.view()) {
                continue; // documented by the endpoints that serve it
            }
            String tag = t.group().isEmpty() ? "core/v1 " + t.kind() : t.group() + "/" + t.version() + " " + t.kind();
            api.addTagsItem(new Tag().name(tag));
            String root = t.group().isEmpty() ? "/api/v1" : "/apis/" + t.group() + "/" + t.version();
            String collection = root + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural();
            String item = collection + "/{name}";
            if (!t.stored()) {
                api.path(collection, pathParams(new PathItem().post(op(tag, "Create a " + t.kind()
                        + " and read the answer in its status (nothing is stored)", t, List.of(), "application/json")),
                        t.namespaced(), false));
                continue;
            }
            PathItem c = new PathItem()
                    .get(op(tag, "List or watch " + t.plural(), t, listParams(), null))
                    .post(op(tag, "Create a " + t.kind(), t, writeParams(), "application/json"))
                    .delete(op(tag, "Delete a collection of " + t.plural(), t, listParams(), null));
            PathItem i = new PathItem()
                    .get(op(tag, "Read a " + t.kind(), t, List.of(), null))
                    .put(op(tag, "Replace a " + t.kind(), t, writeParams(), "application/json"))
                    .patch(op(tag, "Patch a " + t.kind() + " (merge, JSON or strategic merge patch)", t, writeParams(),
                            "application/merge-patch+json"))
                    .delete(op(tag, "Delete a " + t.kind(), t, List.of(new Parameter().in("query")
                            .name("gracePeriodSeconds").schema(new IntegerSchema()), new Parameter().in("query")
                            .name("propagationPolicy").schema(new StringSchema()._enum(List.of("Background",
                                    "Foreground", "Orphan")))), "application/json"));
            if (t.namespaced()) {
                pathParams(c, true, false);
                pathParams(i, true, true);
                api.path(root + "/" + t.plural(), pathParams(new PathItem()
                        .get(op(tag, "List or watch " + t.plural() + " in all namespaces", t, listParams(), null)),
                        false, false));
            } else {
                pathParams(i, false, true);
            }
            api.path(collection, c);
            api.path(item, i);
            for (String sub : t.subresources()) {
                if (sub.equals("token")) {
                    api.path(item + "/token", pathParams(new PathItem().post(op(tag, "Request a token for a "
                            + t.kind() + " (an authentication.k8s.io/v1 TokenRequest)", t, List.of(),
                            "application/json")), t.namespaced(), true));
                } else if (sub.equals("binding")) {
                    api.path(item + "/binding", pathParams(new PathItem().post(op(tag, "Bind a " + t.kind()
                            + " to a node", t, List.of(), "application/json")), t.namespaced(), true));
                } else if (!sub.equals("finalize")) {
                    String what = sub.equals("scale") ? "the autoscaling/v1 Scale of" : "the status of";
                    api.path(item + "/" + sub, pathParams(new PathItem()
                            .get(op(tag, "Read " + what + " a " + t.kind(), t, List.of(), null))
                            .put(op(tag, "Replace " + what + " a " + t.kind(), t, writeParams(), "application/json"))
                            .patch(op(tag, "Patch " + what + " a " + t.kind(), t, writeParams(),
                                    "application/merge-patch+json")), t.namespaced(), true));
                }
            }
        }
    }

    private static PathItem pathParams(PathItem p, boolean namespace, boolean name) {
        if (namespace) {
            p.addParametersItem(new Parameter().in("path").name("namespace").required(true).schema(new StringSchema()));
        }
        if (name) {
            p.addParametersItem(new Parameter().in("path").name("name").required(true).schema(new StringSchema()));
        }
        return p;
    }

    private static Operation op(String tag, String summary, ResourceType t, List<Parameter> params, String bodyType) {
        Operation op = new Operation().addTagsItem(tag).summary(summary)
                .operationId(summary.replaceAll("[^A-Za-z0-9]", ""));
        params.forEach(op::addParametersItem);
        if (bodyType != null) {
            op.requestBody(new RequestBody().required(!summary.startsWith("Delete")).content(new Content()
                    .addMediaType(bodyType, new MediaType().schema(new ObjectSchema()
                            .description("A " + t.kind() + " (apiVersion " + t.apiVersion() + "), or a patch")))));
        }
        op.responses(new ApiResponses()
                .addApiResponse("200", new ApiResponse().description("OK"))
                .addApiResponse("201", new ApiResponse().description("Created"))
                .addApiResponse("4XX", new ApiResponse().description("A Kubernetes Status explaining the error")));
        return op;
    }

    private static List<Parameter> listParams() {
        return List.of(
                query("labelSelector", new StringSchema(), "e.g. app=web,tier!=db"),
                query("fieldSelector", new StringSchema(), "e.g. metadata.name=web"),
                query("limit", new IntegerSchema(), "page size"),
                query("continue", new StringSchema(), "token from the previous page"),
                query("resourceVersion", new StringSchema(), "0 = any, otherwise not older than / exact"),
                query("resourceVersionMatch", new StringSchema()._enum(List.of("NotOlderThan", "Exact")), null),
                query("watch", new BooleanSchema(), "stream changes as newline-delimited watch events"),
                query("allowWatchBookmarks", new BooleanSchema(), null),
                query("timeoutSeconds", new IntegerSchema(), null));
    }

    private static List<Parameter> writeParams() {
        return List.of(
                query("dryRun", new StringSchema()._enum(List.of("All")), "validate without storing"),
                query("fieldValidation", new StringSchema()._enum(List.of("Strict", "Warn", "Ignore")), null),
                query("fieldManager", new StringSchema(), null));
    }

    private static Parameter query(String name, io.swagger.v3.oas.models.media.Schema<?> schema, String description) {
        return new Parameter().in("query").name(name).schema(schema).description(description);
    }
}

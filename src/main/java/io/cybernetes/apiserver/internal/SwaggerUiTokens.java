package io.cybernetes.apiserver.internal;

import org.springdoc.core.properties.SwaggerUiConfigParameters;
import org.springdoc.core.properties.SwaggerUiConfigProperties;
import org.springdoc.core.properties.SwaggerUiOAuthProperties;
import org.springdoc.core.providers.ObjectMapperProvider;
import org.springdoc.webmvc.ui.SwaggerIndexPageTransformer;
import org.springdoc.webmvc.ui.SwaggerWelcomeCommon;

import java.io.IOException;
import java.io.InputStream;

/**
 * Swagger UI with the API's own authentication: the OpenAPI document is served to
 * authenticated users only, as kube-apiserver serves {@code /openapi}, so the page sends
 * the bearer token it was authorized with on every request it makes, the document's
 * included, and keeps it across reloads; a page without a token asks for one (the admin
 * token from {@code data/pki/admin.token}, or any token the server accepts) when the
 * server answers 401.
 */
final class SwaggerUiTokens extends SwaggerIndexPageTransformer {

    /** Swagger UI options put first in its configuration. */
    static final String OPTIONS = """
              persistAuthorization: true,
              requestInterceptor: (request) => {
                try {
                  const saved = JSON.parse(localStorage.getItem('authorized') || '{}');
                  const token = saved.bearer && saved.bearer.value;
                  if (token && !request.headers['Authorization']) {
                    request.headers['Authorization'] = 'Bearer ' + token;
                  }
                } catch (e) { /* nothing saved */ }
                return request;
              },
              responseInterceptor: (response) => {
                if (response.status === 401 && !sessionStorage.getItem('cybernetes-asked')) {
                  sessionStorage.setItem('cybernetes-asked', 'yes');
                  const token = window.prompt('This API asks for a bearer token (the admin token is in'
                      + ' data/pki/admin.token):');
                  if (token && token.trim()) {
                    localStorage.setItem('authorized', JSON.stringify({bearer: {name: 'bearer',
                        schema: {type: 'http', scheme: 'bearer'}, value: token.trim()}}));
                    sessionStorage.removeItem('cybernetes-asked');
                    window.location.reload();
                  }
                }
                return response;
              },
            """;

    SwaggerUiTokens(SwaggerUiConfigProperties config, SwaggerUiOAuthProperties oauth, SwaggerWelcomeCommon welcome,
                    ObjectMapperProvider mapper) {
        super(config, oauth, welcome, mapper);
    }

    @Override
    protected String defaultTransformations(SwaggerUiConfigParameters parameters, InputStream resource)
            throws IOException {
        String js = super.defaultTransformations(parameters, resource);
        return js.replace("SwaggerUIBundle({", "SwaggerUIBundle({\n" + OPTIONS);
    }
}

package io.cybernetes.apiserver.internal.handlers;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which paths go straight to the resource handler: exactly those its own mapping would take. */
class ResourceHandlerMappingTest {

    @Test
    void resourcePathsOfTheCoreAndNamedGroupsGoToTheResourceHandler() {
        assertThat(ResourceHandlerMapping.pattern("/api/v1/namespaces/default/configmaps")).isEqualTo("/api/v1/**");
        assertThat(ResourceHandlerMapping.pattern("/api/v1/nodes")).isEqualTo("/api/v1/**");
        assertThat(ResourceHandlerMapping.pattern("/apis/apps/v1/namespaces/default/deployments/web/scale"))
                .isEqualTo("/apis/{group}/{version}/**");
        assertThat(ResourceHandlerMapping.pattern("/apis/stable.example.com/v1/crontabs"))
                .isEqualTo("/apis/{group}/{version}/**");
    }

    @Test
    void discoveryAndOtherControllersPathsAreLeftToTheirMappings() {
        assertThat(ResourceHandlerMapping.pattern("/api")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/api/v1")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis/")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis/apps")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis/apps/v1")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis//v1/things")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis/apps//deployments")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis/status.cybernetes.io/v1/objecthistories")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/apis/status.cybernetes.io/v1/nodes/n1/faults")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/openapi/v3/apis/apps/v1")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/controllers")).isNull();
        assertThat(ResourceHandlerMapping.pattern("/version")).isNull();
    }
}

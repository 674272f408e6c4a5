package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.store.Store;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the API server's beans. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiServerProperties.class)
class ApiServerConfiguration {

    @Bean
    ResourceRegistry resourceRegistry() {
        return ResourceRegistry.builtIn();
    }

    @Bean
    SchemaRegistry schemaRegistry() {
        return new SchemaRegistry();
    }

    @Bean
    ResourceService resourceService(Store store, ResourceRegistry registry, SchemaRegistry schemas) {
        return new ResourceService(store, registry, schemas);
    }

}

package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.flowcontrol.FlowControl;
import io.cybernetes.apiserver.internal.handlers.ApiServerMetrics;
import io.cybernetes.apiserver.internal.handlers.ResourceController;
import io.cybernetes.apiserver.internal.handlers.ResourceHandlerMapping;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.allocation.IpRange;
import io.cybernetes.apiserver.internal.allocation.PortRange;
import io.cybernetes.apiserver.internal.allocation.ServiceAllocations;
import io.cybernetes.apiserver.internal.registry.KindDefinitions;
import io.cybernetes.apiserver.internal.registry.ServiceStrategy;
import io.cybernetes.apiserver.internal.registry.SchemaRegistry;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.admission.AdmissionChain;
import io.cybernetes.auth.RuleResolver;
import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.apiserver.AuditProperties;
import io.cybernetes.apiserver.ServiceProperties;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.RequestAttributesResolver;
import io.cybernetes.store.Store;
import org.springdoc.core.properties.SwaggerUiConfigProperties;
import org.springdoc.core.properties.SwaggerUiOAuthProperties;
import org.springdoc.core.providers.ObjectMapperProvider;
import org.springdoc.webmvc.ui.SwaggerIndexTransformer;
import org.springdoc.webmvc.ui.SwaggerWelcomeCommon;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.core.Ordered;

/** Wires the API server's beans. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ApiServerProperties.class, AuditProperties.class, ServiceProperties.class,
        io.cybernetes.apiserver.MetricsProperties.class})
class ApiServerConfiguration {

    @Bean
    ResourceRegistry resourceRegistry() {
        return ResourceRegistry.builtIn();
    }

    @Bean
    KindDefinitions kindDefinitions(ResourceRegistry registry, SchemaRegistry schemas, ServiceAllocations services) {
        KindDefinitions definitions = KindDefinitions.builtIn(registry, schemas);
        ResourceType type = registry.byPath("", "v1", "services").orElseThrow();
        definitions.register(definitions.of(type).withStrategy(new ServiceStrategy(services)));
        return definitions;
    }

    @Bean
    ServiceAllocations serviceAllocations(Store store, ResourceRegistry registry, ServiceProperties props) {
        return new ServiceAllocations(store, registry.byPath("", "v1", "services").orElseThrow(),
                IpRange.parse(props.clusterIpRange()), PortRange.parse(props.nodePortRange()));
    }

    /** Resource requests straight to their controller, ahead of the annotation mappings' pattern tests. */
    @Bean
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    ResourceHandlerMapping resourceRequestMapping(ResourceController controller) {
        return new ResourceHandlerMapping(controller);
    }

    @Bean
    SchemaRegistry schemaRegistry() {
        return new SchemaRegistry();
    }

    /** Swagger UI that sends its bearer token for the OpenAPI document too (where a web server runs it). */
    @Bean
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnProperty(name = "springdoc.swagger-ui.enabled", matchIfMissing = true)
    SwaggerIndexTransformer swaggerIndexTransformer(SwaggerUiConfigProperties config, SwaggerUiOAuthProperties oauth,
                                                    SwaggerWelcomeCommon welcome, ObjectMapperProvider mapper) {
        return new SwaggerUiTokens(config, oauth, welcome, mapper);
    }

    /** After authentication and authorization (Spring Security's filters), so a refused request's body is never read. */
    @Bean
    FilterRegistrationBean<RequestBodyFilter> requestBodyFilter(ApiServerProperties props) {
        FilterRegistrationBean<RequestBodyFilter> reg = new FilterRegistrationBean<>(
                new RequestBodyFilter(props.maxRequestBytes(), props.requestTimeout()));
        reg.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER + 10);
        reg.setAsyncSupported(true);
        return reg;
    }

    /** First of all, so every later step sees the path without trailing slashes. */
    @Bean
    FilterRegistrationBean<TrailingSlashFilter> trailingSlashFilter() {
        FilterRegistrationBean<TrailingSlashFilter> reg = new FilterRegistrationBean<>(new TrailingSlashFilter());
        reg.setOrder(Ordered.HIGHEST_PRECEDENCE);
        reg.setAsyncSupported(true);
        return reg;
    }

    /** Once the body is in (a request still reading its body is never held here). */
    @Bean
    FilterRegistrationBean<PrettyJsonFilter> prettyJsonFilter() {
        FilterRegistrationBean<PrettyJsonFilter> reg = new FilterRegistrationBean<>(new PrettyJsonFilter());
        reg.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER + 15);
        reg.setAsyncSupported(true);
        return reg;
    }

    /**
     * API Priority and Fairness, sharing the server's max-requests-in-flight seats among the priority levels;
     * requests wait for seats on container threads, so no more wait than the threads the seats leave.
     */
    @Bean
    FlowControl flowControl(ApiServerProperties props,
                            @org.springframework.beans.factory.annotation.Value("${server.tomcat.threads.max:200}")
                            int threads) {
        int seats = Math.max(1, props.maxRequestsInFlight());
        // a waiting request holds a container thread: what the seats leave, less some for exempt requests
        return new FlowControl(seats, Math.max(16, threads - seats - 64));
    }

    /** The apiserver_flowcontrol_* metrics at {@code /metrics}. */
    @Bean
    io.cybernetes.api.PrometheusText.Source flowControlMetrics(FlowControl flowControl) {
        return flowControl::collect;
    }

    /** After the body is in, and after authentication: who asks decides which limit applies. */
    @Bean
    FilterRegistrationBean<MaxInFlightFilter> maxInFlightFilter(ApiServerProperties props, FlowControl flowControl,
                                                               RequestAttributesResolver resolver,
                                                               ResourceRegistry registry, Store store) {
        FilterRegistrationBean<MaxInFlightFilter> reg = new FilterRegistrationBean<>(new MaxInFlightFilter(props,
                flowControl, resolver, registry, store));
        reg.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER + 20);
        reg.setAsyncSupported(true);
        return reg;
    }

    /** Before authentication, so refused requests are counted too. */
    @Bean
    FilterRegistrationBean<RequestMetricsFilter> requestMetricsFilter(ApiServerMetrics metrics,
                                                                     RequestAttributesResolver resolver) {
        FilterRegistrationBean<RequestMetricsFilter> reg = new FilterRegistrationBean<>(
                new RequestMetricsFilter(metrics, resolver));
        reg.setOrder(Ordered.HIGHEST_PRECEDENCE + 11);
        reg.setAsyncSupported(true);
        return reg;
    }

    @Bean
    ResourceService resourceService(Store store, ResourceRegistry registry, SchemaRegistry schemas, RuleResolver rules,
                                    AdmissionChain admission, AdmissionStoreAccess cluster,
                                    KindDefinitions definitions) {
        return new ResourceService(store, schemas, new AdmissionGate(admission, new RbacEscalation(rules),
                cluster, registry), definitions);
    }

}

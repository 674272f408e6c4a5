package io.cybernetes.admission.internal;

import io.cybernetes.admission.AccessChecker;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.admission.AdmissionChain;
import io.cybernetes.admission.AdmissionProperties;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.PluginContext;
import io.cybernetes.admission.QuotaStatusWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Builds the admission chain in the configured order. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AdmissionProperties.class)
class AdmissionConfiguration {

    private static final Logger log = LoggerFactory.getLogger(AdmissionConfiguration.class);

    @Bean
    AdmissionChain admissionChain(AdmissionProperties props, ClusterReader cluster, QuotaStatusWriter quotas,
                                  AccessChecker access, ResourceRegistry registry) {
        AdmissionChain chain = new AdmissionChain(AdmissionPlugins.make(props.plugins(),
                new PluginContext(cluster, quotas, access, registry)));
        log.info("Admission plugins, in order: {}", chain.pluginNames());
        return chain;
    }
}

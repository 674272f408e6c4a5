package io.cybernetes.apiserver.internal.audit;

import io.cybernetes.apiserver.AuditProperties;
import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.RequestAttributesResolver;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import java.nio.file.Path;

/**
 * The audit log as kube-apiserver keeps it: every request, over HTTP or in process, an
 * {@code audit.k8s.io/v1} Event line at the level the policy gives it, in a file rotated by size.
 */
@Configuration(proxyBeanMethods = false)
class AuditConfiguration {

    @Bean(destroyMethod = "close")
    AuditLog auditLog(AuditProperties audit, AuthProperties auth) {
        Path path = audit.path() != null ? audit.path() : auth.dataDir().resolve("audit.log");
        return new AuditLog(path, audit.maxSize().toBytes(), audit.maxBackups());
    }

    @Bean
    AuditRecorder auditRecorder(AuditProperties audit, AuditLog log) {
        return new AuditRecorder(AuditPolicy.load(audit.policyFile()), log, audit.enabled());
    }

    /** Before authentication and the in-flight limit, so refused and throttled requests are recorded too. */
    @Bean
    FilterRegistrationBean<AuditFilter> auditFilter(AuditProperties audit, AuditRecorder recorder,
                                                    RequestAttributesResolver resolver) {
        FilterRegistrationBean<AuditFilter> reg = new FilterRegistrationBean<>(new AuditFilter(recorder, resolver));
        reg.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        reg.setEnabled(audit.enabled());
        return reg;
    }
}

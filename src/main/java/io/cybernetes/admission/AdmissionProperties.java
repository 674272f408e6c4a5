package io.cybernetes.admission;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.util.List;

/**
 * Settings of the admission chain, documented in {@code config/application.yml}.
 *
 * @param plugins the plugins to run, in order (mutating ones in this order, then validating ones)
 */
@ConfigurationProperties("cybernetes.admission")
public record AdmissionProperties(
        @DefaultValue({"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "DefaultTolerationSeconds", "Priority",
                "PodSecurity",
                "DefaultStorageClass", "StorageObjectInUseProtection", "PersistentVolumeClaimResize",
                "CertificateApproval", "CertificateSigning", "CertificateSubjectRestriction",
                "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota"})
        List<String> plugins) {
}

package io.cybernetes.apiserver;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import java.nio.file.Path;

/**
 * Settings of the audit log, documented in {@code config/application.yml}.
 *
 * @param enabled    write the audit log at all
 * @param path       the log file (JSON lines of audit.k8s.io/v1 Events); empty: {@code audit.log} in the data directory
 * @param policyFile an audit.k8s.io/v1 Policy; when the file is missing, everything but health checks at Metadata
 * @param maxSize    the log is rotated when it grows past this
 * @param maxBackups rotated files kept (oldest removed first)
 */
@ConfigurationProperties("cybernetes.audit")
public record AuditProperties(
        @DefaultValue("true") boolean enabled,
        Path path,
        @DefaultValue("config/audit-policy.yaml") Path policyFile,
        @DefaultValue("100MB") DataSize maxSize,
        @DefaultValue("5") int maxBackups) {
}

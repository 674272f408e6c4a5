package io.cybernetes.admission;

/** What a plugin factory may hand to the plugin it makes. */
public record PluginContext(ClusterReader cluster, QuotaStatusWriter quotaWriter, AccessChecker access,
                            io.cybernetes.api.ResourceRegistry registry) {
}

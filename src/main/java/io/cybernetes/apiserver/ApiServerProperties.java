package io.cybernetes.apiserver;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of the API server, documented in {@code config/application.yml}.
 *
 * @param httpsPort             the HTTPS port for kubectl (0 picks a free one)
 * @param httpsAddress          the address the HTTPS port binds to
 * @param maxRequestBytes       larger request bodies are refused with 413
 * @param watchMaxTimeout       a watch ends after this long at the latest
 * @param watchBookmarkInterval how often a quiet watch gets a bookmark, when it asked for them
 * @param maxRequestsInFlight   the seats API Priority and Fairness shares among its priority levels (watches aside);
 *                              0 = no limit
 * @param watchFlushInterval    the longest a busy watch rests between flushes (0.1 ms per open watch, up to this)
 * @param requestTimeout        the longest a request body may take to arrive (kube-apiserver's --request-timeout)
 * @param maxRequestHeaderBytes the most a request's line and headers may take; larger ones are refused with 431.
 *                              The container keeps a buffer this large for every open request (a watch included)
 * @param maxLongRunningRequests streams to nodes open at once (pods' logs, exec, attach, port-forward); more get
 *                              429 with Retry-After; they do not count against {@code maxRequestsInFlight}; 0 = no limit
 * @param encryptionProviderConfig an EncryptionConfiguration file (kube-apiserver's --encryption-provider-config);
 *                              null: {@code <data>/pki/encryption-config.yaml}, generated at first start
 */
@ConfigurationProperties("cybernetes.apiserver")
public record ApiServerProperties(
        @DefaultValue("6443") int httpsPort,
        @DefaultValue("0.0.0.0") String httpsAddress,
        @DefaultValue("3145728") long maxRequestBytes,
        @DefaultValue("400") int maxRequestsInFlight,
        @DefaultValue("30m") Duration watchMaxTimeout,
        @DefaultValue("10s") Duration watchBookmarkInterval,
        @DefaultValue("50ms") Duration watchFlushInterval,
        @DefaultValue("60s") Duration requestTimeout,
        @DefaultValue("65536") int maxRequestHeaderBytes,
        @DefaultValue("1000") int maxLongRunningRequests,
        Path encryptionProviderConfig) {
}

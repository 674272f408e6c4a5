package io.cybernetes.controller.certificates;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.CertificateRequests;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestCondition;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestStatus;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Issues certificates from the cluster CA for approved CertificateSigningRequests to the signers
 * Kubernetes' csrsigning controller serves: {@code kubernetes.io/kube-apiserver-client} (any
 * client of the API server), {@code kubernetes.io/kube-apiserver-client-kubelet} (a node's client
 * certificate) and {@code kubernetes.io/kubelet-serving} (a node's serving certificate). A request
 * its signer does not accept (usages, subject, names) gets a Failed condition saying why; the
 * certificate lasts the request's {@code expirationSeconds}, at most the configured duration.
 */
public final class CertificateSigningController implements Reconciler {

    public static final String NAME = "csrsigning";
    public static final String CLIENT = "kubernetes.io/kube-apiserver-client";
    public static final String KUBELET_CLIENT = "kubernetes.io/kube-apiserver-client-kubelet";
    public static final String KUBELET_SERVING = "kubernetes.io/kubelet-serving";

    private final ApiClient client;
    private final Indexer<CertificateSigningRequest> requests;
    private final CertificateAuthority ca;
    private final Duration maxDuration;
    private final Clock clock;

    public CertificateSigningController(ApiClient client, Indexer<CertificateSigningRequest> requests,
                                        CertificateAuthority ca, Duration maxDuration, Clock clock) {
        this.client = client;
        this.requests = requests;
        this.ca = ca;
        this.maxDuration = maxDuration;
        this.clock = clock;
    }

    @Override
    public Result reconcile(Request request) {
        CertificateSigningRequest csr = requests.get(request.key()).orElse(null);
        if (csr == null || !approved(csr) || has(csr, "Failed") || issued(csr)
                || !List.of(CLIENT, KUBELET_CLIENT, KUBELET_SERVING).contains(csr.getSpec().getSignerName())) {
            return Result.DONE;
        }
        List<String> usages = Objects.requireNonNullElse(csr.getSpec().getUsages(), List.of());
        CertificateSigningRequestStatus status = csr.getStatus() == null ? new CertificateSigningRequestStatus()
                : csr.getStatus();
        csr.setStatus(status);
        CertificateRequests.Request parsed;
        String refused;
        try {
            parsed = CertificateRequests.parse(csr.getSpec().getRequest());
            refused = refusal(csr.getSpec().getSignerName(), parsed, usages);
        } catch (IllegalArgumentException e) {
            parsed = null;
            refused = "unable to parse csr \"" + csr.getMetadata().getName() + "\": " + e.getMessage();
        }
        if (refused != null) {
            List<CertificateSigningRequestCondition> conditions = new ArrayList<>(
                    Objects.requireNonNullElse(status.getConditions(), List.of()));
            String now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
            conditions.add(new CertificateSigningRequestCondition(now, now, refused, "SignerValidationFailure", "True",
                    "Failed"));
            status.setConditions(conditions);
        } else {
            Duration duration = maxDuration;
            Integer seconds = csr.getSpec().getExpirationSeconds();
            if (seconds != null && Duration.ofSeconds(seconds).compareTo(duration) < 0) {
                duration = Duration.ofSeconds(seconds);
            }
            String pem = X509Certificates.pem(ca.sign(parsed, usages, duration));
            status.setCertificate(Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII)));
        }
        try {
            client.updateStatus(csr);
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                throw e;
            }
            // gone, or changed meanwhile: the change comes back as an event
        }
        return Result.DONE;
    }

    /** Why the signer does not issue this request, in the words of Kubernetes' signers; null when it does. */
    static String refusal(String signer, CertificateRequests.Request r, List<String> usages) {
        Set<String> set = new TreeSet<>(usages);
        return switch (signer) {
            case CLIENT -> {
                for (String u : usages) {
                    if (!List.of("digital signature", "key encipherment", "client auth").contains(u)) {
                        yield "invalid usage for client certificate: " + u;
                    }
                }
                yield set.contains("client auth") ? null : "missing required usage for client certificate: client auth";
            }
            case KUBELET_CLIENT -> {
                if (!r.organizations().equals(List.of("system:nodes"))) {
                    yield "subject organization is not system:nodes";
                }
                if (!r.dnsNames().isEmpty()) {
                    yield "DNS subjectAltNames are not allowed";
                }
                if (!r.emails().isEmpty()) {
                    yield "Email subjectAltNames are not allowed";
                }
                if (!r.ipAddresses().isEmpty()) {
                    yield "IP subjectAltNames are not allowed";
                }
                if (!r.uris().isEmpty()) {
                    yield "URI subjectAltNames are not allowed";
                }
                if (!set.equals(Set.of("client auth", "digital signature", "key encipherment"))
                        && !set.equals(Set.of("client auth", "digital signature"))) {
                    yield "usages did not match [client auth digital signature key encipherment]";
                }
                yield r.commonName().startsWith("system:node:") ? null
                        : "subject common name does not begin with system:node:";
            }
            default -> {
                if (!r.organizations().equals(List.of("system:nodes"))) {
                    yield "subject organization is not system:nodes";
                }
                if (r.dnsNames().isEmpty() && r.ipAddresses().isEmpty()) {
                    yield "DNS or IP subjectAltName is required";
                }
                if (!r.emails().isEmpty()) {
                    yield "Email subjectAltNames are not allowed";
                }
                if (!r.uris().isEmpty()) {
                    yield "URI subjectAltNames are not allowed";
                }
                if (!set.equals(Set.of("digital signature", "key encipherment", "server auth"))
                        && !set.equals(Set.of("digital signature", "server auth"))) {
                    yield "usages did not match [digital signature key encipherment server auth]";
                }
                yield r.commonName().startsWith("system:node:") ? null
                        : "subject common name does not begin with system:node:";
            }
        };
    }

    private static boolean approved(CertificateSigningRequest csr) {
        return has(csr, "Approved") && !has(csr, "Denied");
    }

    private static boolean has(CertificateSigningRequest csr, String type) {
        return csr.getStatus() != null && csr.getStatus().getConditions() != null && csr.getStatus().getConditions()
                .stream().anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean issued(CertificateSigningRequest csr) {
        return csr.getStatus() != null && csr.getStatus().getCertificate() != null
                && !csr.getStatus().getCertificate().isEmpty();
    }

    public io.cybernetes.client.ResourceEventHandler<CertificateSigningRequest> handler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }
}

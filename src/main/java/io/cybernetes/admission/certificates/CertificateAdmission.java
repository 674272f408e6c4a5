package io.cybernetes.admission.certificates;

import io.cybernetes.admission.AccessChecker;
import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ValidatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.CertificateRequests;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;

/**
 * Kubernetes' three admission plugins for CertificateSigningRequests. CertificateApproval: only a
 * user allowed to {@code approve} for the request's signer ({@code signers} in
 * certificates.k8s.io, by the signer's name or {@code <domain>/*}) writes {@code /approval}.
 * CertificateSigning: only one allowed to {@code sign} for it sets the certificate through
 * {@code /status}. CertificateSubjectRestriction: no request to the kube-apiserver-client signer
 * for the group {@code system:masters}.
 */
public final class CertificateAdmission implements ValidatingAdmissionPlugin {

    public static final String APPROVAL = "CertificateApproval";
    public static final String SIGNING = "CertificateSigning";
    public static final String SUBJECT_RESTRICTION = "CertificateSubjectRestriction";
    public static final String KUBE_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client";
    private static final String GROUP = "certificates.k8s.io";
    private static final String RESOURCE = "certificatesigningrequests";

    private final String name;
    private final AccessChecker access;

    public CertificateAdmission(String name, AccessChecker access) {
        this.name = name;
        this.access = access;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean handles(Attributes a) {
        if (!a.is(GROUP, RESOURCE)) {
            return false;
        }
        return switch (name) {
            case APPROVAL -> a.subresource().equals("approval") && a.operation() == Attributes.Operation.UPDATE;
            case SIGNING -> a.subresource().equals("status") && a.operation() == Attributes.Operation.UPDATE;
            default -> a.subresource().isEmpty() && a.operation() == Attributes.Operation.CREATE;
        };
    }

    @Override
    public void validate(Attributes a) {
        String signer = a.object().path("spec").path("signerName").asString("");
        switch (name) {
            case APPROVAL -> {
                if (!authorizedFor(a.user(), "approve", signer)) {
                    throw forbidden(a, "user not permitted to approve requests with signerName \"" + signer + "\"");
                }
            }
            case SIGNING -> {
                String before = a.oldObject() == null ? "" : a.oldObject().path("status").path("certificate").asString("");
                String now = a.object().path("status").path("certificate").asString("");
                if (!before.equals(now) && !authorizedFor(a.user(), "sign", signer)) {
                    throw forbidden(a, "user not permitted to sign requests with signerName \"" + signer + "\"");
                }
            }
            default -> {
                if (!signer.equals(KUBE_APISERVER_CLIENT)) {
                    return;
                }
                JsonNode request = a.object().path("spec").path("request");
                CertificateRequests.Request parsed;
                try {
                    parsed = CertificateRequests.parse(request.asString(""));
                } catch (IllegalArgumentException invalid) {
                    return; // validation says what is wrong with it
                }
                if (parsed.organizations().contains("system:masters")) {
                    throw forbidden(a, "use of " + KUBE_APISERVER_CLIENT + " signer with system:masters group is not"
                            + " allowed");
                }
            }
        }
    }

    /** Allowed for the signer by its name, or for every signer of its domain ({@code example.com/*}). */
    private boolean authorizedFor(Attributes.User user, String verb, String signer) {
        if (access.allowed(user, verb, GROUP, "signers", signer)) {
            return true;
        }
        int slash = signer.indexOf('/');
        return slash > 0 && access.allowed(user, verb, GROUP, "signers", signer.substring(0, slash) + "/*");
    }

    private static ApiException forbidden(Attributes a, String why) {
        return ApiException.forbidden(GROUP, RESOURCE, Json.text(a.object(), "metadata.name"), why);
    }
}

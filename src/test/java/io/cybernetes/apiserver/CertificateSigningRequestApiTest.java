package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import io.cybernetes.api.X509Certificates;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtensionsGenerator;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CertificateSigningRequests the Kubernetes way: a request is created, approved by someone RBAC
 * lets approve for its signer ({@code kubectl certificate approve}), signed by the csrsigning
 * controller from the cluster CA, and the certificate then authenticates its subject.
 */
class CertificateSigningRequestApiTest extends ApiTestSupport {

    private static final String CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

    @TempDir
    Path dir;

    record Key(KeyPair pair, String request) {
    }

    static Key request(String subject, List<String> dns) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        JcaPKCS10CertificationRequestBuilder b = new JcaPKCS10CertificationRequestBuilder(new X500Name(subject),
                kp.getPublic());
        if (!dns.isEmpty()) {
            ExtensionsGenerator ext = new ExtensionsGenerator();
            ext.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(dns.stream()
                    .map(d -> new GeneralName(GeneralName.dNSName, d)).toArray(GeneralName[]::new)));
            b.addAttribute(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest, ext.generate());
        }
        String pem = X509Certificates.pem(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
        return new Key(kp, Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII)));
    }

    static String csr(String name, String request, String signer, String usages, Integer seconds) {
        return "{\"apiVersion\":\"certificates.k8s.io/v1\",\"kind\":\"CertificateSigningRequest\",\"metadata\":{\"name\":\""
                + name + "\"},\"spec\":{\"request\":\"" + request + "\",\"signerName\":\"" + signer + "\",\"usages\":["
                + usages + "]" + (seconds == null ? "" : ",\"expirationSeconds\":" + seconds)
                + ",\"username\":\"forged\",\"groups\":[\"system:masters\"]},"
                + "\"status\":{\"conditions\":[{\"type\":\"Approved\",\"status\":\"True\"}]}}";
    }

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    private JsonNode awaitCertificateOrFailure(String name) {
        JsonNode[] last = new JsonNode[1];
        eventually(() -> {
            last[0] = get(CSRS + "/" + name).json();
            assertThat(last[0].path("status").path("certificate").asString("").isEmpty()
                    && last[0].path("status").path("conditions").findValues("type").stream()
                    .noneMatch(t -> t.asString().equals("Failed"))).as("issued or failed").isFalse();
        });
        return last[0];
    }

    @Test
    void aTeamAdminApprovesAUsersRequestAndTheCertificateAuthenticatesTheUser() throws Exception {
        String name = "dora-" + UUID.randomUUID().toString().substring(0, 6);
        Key key = request("CN=" + name + ",O=team-d", List.of());
        Response created = callAs("alice-token", "POST", CSRS, "application/json",
                csr(name, key.request(), "kubernetes.io/kube-apiserver-client", "\"client auth\"", 3600),
                "application/json");
        assertThat(created.code()).as("requests are cluster-wide: a namespace's admin may not, yet")
                .isEqualTo(403);
        {
            assertThat(post("/apis/rbac.authorization.k8s.io/v1/clusterroles", """
                    {"metadata":{"name":"csr-onboarding-%s"},"rules":[
                      {"apiGroups":["certificates.k8s.io"],"resources":["certificatesigningrequests"],
                       "verbs":["create","get","list","watch"]},
                      {"apiGroups":["certificates.k8s.io"],"resources":["certificatesigningrequests/approval"],
                       "verbs":["update"]}]}""".formatted(name)).code()).isEqualTo(201);
            assertThat(post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", """
                    {"metadata":{"name":"csr-onboarding-%s"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
                     "kind":"ClusterRole","name":"csr-onboarding-%s"},
                     "subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}]}"""
                    .formatted(name, name)).code()).isEqualTo(201);
            eventually(() -> assertThat(callAs("alice-token", "POST", CSRS, "application/json",
                    csr(name, key.request(), "kubernetes.io/kube-apiserver-client", "\"client auth\"", 3600),
                    "application/json").code()).isEqualTo(201));
        }
        JsonNode stored = get(CSRS + "/" + name).json();
        assertThat(stored.path("spec").path("username").asString()).as("the requester, never the body's")
                .isEqualTo("alice");
        assertThat(Json.strings(stored.path("spec").path("groups"))).containsExactly("team-a", "system:authenticated");
        assertThat(stored.path("status").path("conditions").isMissingNode()).as("not approved by its creator").isTrue();

        // alice may write approvals, but not for this signer: the CertificateApproval plugin refuses
        JsonNode approval = stored.deepCopy();
        ((tools.jackson.databind.node.ObjectNode) approval).putObject("status").putArray("conditions").addObject()
                .put("type", "Approved").put("status", "True").put("reason", "TeamAdmin").put("message", "ok");
        Response refused = callAs("alice-token", "PUT", CSRS + "/" + name + "/approval", "application/json",
                Json.write(approval), "application/json");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.text("message")).isEqualTo("certificatesigningrequests.certificates.k8s.io \"" + name
                + "\" is forbidden: user not permitted to approve requests with signerName"
                + " \"kubernetes.io/kube-apiserver-client\"");
        // with Kubernetes' approver role for the signer she may
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", """
                {"metadata":{"name":"csr-approver-%s"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
                 "kind":"ClusterRole","name":"system:certificates.k8s.io:kube-apiserver-client-approver"},
                 "subjects":[{"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"}]}"""
                .formatted(name)).code()).isEqualTo(201);
        eventually(() -> assertThat(callAs("alice-token", "PUT", CSRS + "/" + name + "/approval", "application/json",
                Json.write(approval), "application/json").code()).isEqualTo(200));

        JsonNode issued = awaitCertificateOrFailure(name);
        X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(
                new ByteArrayInputStream(Base64.getDecoder().decode(issued.path("status").path("certificate").asString())));
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("O=team-d,CN=" + name);
        assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(Duration.between(cert.getNotBefore().toInstant(), cert.getNotAfter().toInstant()))
                .as("the hour asked for, from five minutes back").isEqualTo(Duration.ofMinutes(65));

        // the user's kubeconfig with the key and the certificate: kubectl knows who she is
        Path certFile = dir.resolve(name + ".crt");
        Files.writeString(certFile, X509Certificates.pem(cert));
        Path keyFile = dir.resolve(name + ".key");
        Files.writeString(keyFile, X509Certificates.pem(key.pair().getPrivate()));
        Path kubeconfig = dir.resolve(name + ".kubeconfig");
        Files.copy(endpoints.adminKubeconfig(), kubeconfig);
        Kubectl asDora = new Kubectl(kubeconfig, dir);
        assertThat(asDora.run("config", "set-credentials", name, "--client-certificate=" + certFile,
                "--client-key=" + keyFile).exit()).isZero();
        assertThat(asDora.run("config", "set-context", "--current", "--user=" + name).exit()).isZero();
        Kubectl.Run whoami = asDora.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username} "
                + "{.status.userInfo.groups}");
        assertThat(whoami.out()).as(whoami.all()).isEqualTo(name + " [\"team-d\",\"system:authenticated\"]");

        Kubectl.Run table = kubectl().run("get", "csr", name);
        assertThat(table.out()).contains("kubernetes.io/kube-apiserver-client", "alice", "60m", "Approved,Issued");
    }

    @Test
    void kubectlApprovesAndDeniesAndTheSignerRefusesWhatItsRulesForbid() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        Key serving = request("CN=system:node:n-" + id + ",O=system:nodes", List.of("n-" + id + ".example"));
        assertThat(post(CSRS, csr("serving-" + id, serving.request(), "kubernetes.io/kubelet-serving",
                "\"client auth\"", null)).code()).isEqualTo(201);
        Kubectl.Run approved = kubectl().run("certificate", "approve", "serving-" + id);
        assertThat(approved.out()).as(approved.all())
                .contains("certificatesigningrequest.certificates.k8s.io/serving-" + id + " approved");
        JsonNode failed = awaitCertificateOrFailure("serving-" + id);
        JsonNode condition = failed.path("status").path("conditions").get(1);
        assertThat(condition.path("type").asString()).isEqualTo("Failed");
        assertThat(condition.path("reason").asString()).isEqualTo("SignerValidationFailure");
        assertThat(condition.path("message").asString())
                .isEqualTo("usages did not match [digital signature key encipherment server auth]");

        Key other = request("CN=eve-" + id, List.of());
        assertThat(post(CSRS, csr("denied-" + id, other.request(), "kubernetes.io/kube-apiserver-client",
                "\"client auth\"", null)).code()).isEqualTo(201);
        assertThat(kubectl().run("certificate", "deny", "denied-" + id).exit()).isZero();
        assertThat(kubectl().run("get", "csr", "denied-" + id).out()).contains("Denied");
        // approving a denied request: kubectl will not, and the server refuses both conditions at once
        assertThat(kubectl().run("certificate", "approve", "denied-" + id).err()).contains("is already Denied");
        JsonNode denied = get(CSRS + "/denied-" + id).json();
        JsonNode both = denied.deepCopy();
        ((tools.jackson.databind.node.ArrayNode) both.path("status").path("conditions")).addObject()
                .put("type", "Approved").put("status", "True");
        Response exclusive = put(CSRS + "/denied-" + id + "/approval", Json.write(both));
        assertThat(exclusive.code()).isEqualTo(422);
        assertThat(exclusive.text("message")).contains("status.conditions[1].type: Invalid value: \"Approved\":"
                + " Approved and Denied conditions are mutually exclusive");
        // a condition once set stays
        ((tools.jackson.databind.node.ObjectNode) denied.path("status")).putArray("conditions");
        Response removed = put(CSRS + "/denied-" + id + "/approval", Json.write(denied));
        assertThat(removed.code()).isEqualTo(422);
        assertThat(removed.body()).contains("updates may not remove a condition of type \\\"Denied\\\"");
        assertThat(get(CSRS + "/denied-" + id).json().path("status").path("certificate").isMissingNode()).isTrue();
    }

    @Test
    void badRequestsAreRefusedWithKubernetesWords() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        Key key = request("CN=x-" + id, List.of());
        Response notPem = post(CSRS, csr("a-" + id, Base64.getEncoder().encodeToString("hello".getBytes()),
                "kubernetes.io/kube-apiserver-client", "\"client auth\"", null));
        assertThat(notPem.code()).isEqualTo(422);
        assertThat(notPem.text("message")).contains("spec.request: Invalid value:",
                "PEM block type must be CERTIFICATE REQUEST");
        Response shortLived = post(CSRS, csr("b-" + id, key.request(), "kubernetes.io/kube-apiserver-client",
                "\"client auth\"", 60));
        assertThat(shortLived.text("message")).contains("spec.expirationSeconds: Invalid value: 60: may not specify a"
                + " duration less than 600 seconds (10 minutes)");
        Response noUsages = post(CSRS, csr("c-" + id, key.request(), "example.com/signer", "", null));
        assertThat(noUsages.text("message")).contains("spec.usages: Required value");
        Response badUsage = post(CSRS, csr("d-" + id, key.request(), "example.com/signer", "\"flying\", \"flying\"",
                null));
        assertThat(badUsage.text("message")).contains("spec.usages[0]: Unsupported value: \"flying\": supported values:"
                + " \"any\", \"cert sign\"", "spec.usages[1]: Duplicate value: \"flying\"");
        Response badSigner = post(CSRS, csr("e-" + id, key.request(), "signer", "\"client auth\"", null));
        assertThat(badSigner.text("message")).contains("spec.signerName: Invalid value: \"signer\": must be a fully"
                + " qualified domain and path of the form 'example.com/signer-name'");
        Key masters = request("CN=mallory-" + id + ",O=system:masters", List.of());
        Response escalation = post(CSRS, csr("f-" + id, masters.request(), "kubernetes.io/kube-apiserver-client",
                "\"client auth\"", null));
        assertThat(escalation.code()).isEqualTo(403);
        assertThat(escalation.text("message")).isEqualTo("certificatesigningrequests.certificates.k8s.io \"f-" + id
                + "\" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not"
                + " allowed");
        // the group hidden in a multi-valued RDN beside another attribute is still the group
        Key hidden = request("CN=mallory2-" + id + ",ST=nowhere+O=system:masters", List.of());
        Response sneaky = post(CSRS, csr("g-" + id, hidden.request(), "kubernetes.io/kube-apiserver-client",
                "\"client auth\"", null));
        assertThat(sneaky.code()).isEqualTo(403);
        assertThat(sneaky.text("message")).contains("with system:masters group is not allowed");
        for (String name : List.of("a", "b", "c", "d", "e", "f", "g")) {
            assertThat(get(CSRS + "/" + name + "-" + id).code()).as("nothing stored").isEqualTo(404);
        }
    }
}

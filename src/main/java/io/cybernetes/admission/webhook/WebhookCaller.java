package io.cybernetes.admission.webhook;

import io.cybernetes.admission.Attributes;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends one AdmissionReview (admission.k8s.io/v1) to a webhook and reads its answer:
 * over HTTPS trusting the webhook's caBundle (or the JVM's trust store without one), or
 * over plain HTTP for local use, within the webhook's timeout. Anything but a well-formed
 * review answering this request's uid is a {@link WebhookException}, for the failure
 * policy to judge.
 */
final class WebhookCaller {

    /** A call that did not produce an answer: unreachable, slow, or malformed. */
    static final class WebhookException extends Exception {
        WebhookException(String message) {
            super(message);
        }
    }

    /** The webhook's answer. */
    record Answer(boolean allowed, int code, String reason, String message, JsonNode patch, java.util.List<String> warnings) {
    }

    private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();

    Answer call(JsonNode webhook, Attributes a) throws WebhookException {
        String name = webhook.path("name").asString("");
        JsonNode cc = webhook.path("clientConfig");
        String url = url(cc);
        int timeout = Math.max(1, Math.min(30, webhook.path("timeoutSeconds").asInt(10)));
        String uid = UUID.randomUUID().toString();
        byte[] body = Json.MAPPER.writeValueAsBytes(review(uid, a));
        HttpResponse<byte[]> resp;
        try {
            resp = client(cc.path("caBundle").asString("")).send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(timeout)).header("Content-Type", "application/json")
                    .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            throw new WebhookException("failed to call webhook: Post \"" + url + "\": context deadline exceeded (timeout "
                    + timeout + "s)");
        } catch (IOException e) {
            throw new WebhookException("failed to call webhook: Post \"" + url + "\": " + netError(url, e));
        } catch (IllegalArgumentException e) {
            throw new WebhookException("failed to call webhook: " + (e.getMessage() != null
                    && e.getMessage().contains("base64") ? "the caBundle is not base64 PEM" : "parse \"" + url
                    + "\": invalid URL"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WebhookException("failed to call webhook: interrupted");
        } catch (GeneralSecurityException e) {
            throw new WebhookException("failed to call webhook: invalid caBundle: " + e.getMessage());
        }
        if (resp.statusCode() != 200) {
            throw new WebhookException("failed to call webhook: the server responded with status " + resp.statusCode());
        }
        JsonNode response;
        try {
            response = Json.MAPPER.readTree(resp.body()).path("response");
        } catch (RuntimeException e) {
            throw new WebhookException("received invalid webhook response: " + e.getMessage());
        }
        if (!response.isObject() || !response.has("allowed")) {
            throw new WebhookException("received invalid webhook response: no response.allowed");
        }
        if (!uid.equals(response.path("uid").asString(""))) {
            throw new WebhookException("expected response.uid=\"" + uid + "\", got \"" + response.path("uid").asString("")
                    + "\"");
        }
        JsonNode patch = null;
        if (response.hasNonNull("patch")) {
            if (!"JSONPatch".equals(response.path("patchType").asString(""))) {
                throw new WebhookException("received invalid webhook response: patchType must be JSONPatch");
            }
            try {
                patch = Json.MAPPER.readTree(Base64.getDecoder().decode(response.get("patch").asString()));
            } catch (RuntimeException e) {
                throw new WebhookException("received invalid webhook response: the patch is not base64 JSON");
            }
        }
        java.util.List<String> warnings = new java.util.ArrayList<>();
        response.path("warnings").forEach(w -> warnings.add(w.asString("")));
        JsonNode status = response.path("status");
        return new Answer(response.path("allowed").asBoolean(false), status.path("code").asInt(403),
                status.path("reason").asString(""), status.path("message").asString(""), patch, warnings);
    }

    /**
     * Why a connection failed, as Go's {@code net} and {@code crypto/tls} say it
     * ({@code dial tcp 127.0.0.1:1: connect: connection refused}), not the JVM's words.
     */
    static String netError(String url, IOException e) {
        URI u = URI.create(url);
        int port = u.getPort() > 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
        String hostPort = u.getHost() + ":" + port;
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof java.net.ConnectException) {
                return "dial tcp " + hostPort + ": connect: connection refused";
            }
            if (t instanceof java.net.UnknownHostException) {
                return "dial tcp: lookup " + u.getHost() + ": no such host";
            }
            if (t instanceof java.net.http.HttpConnectTimeoutException) {
                return "dial tcp " + hostPort + ": i/o timeout";
            }
            if (m.contains("PKIX") || m.contains("unable to find valid certification path")) {
                return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
            }
            if (m.contains("No subject alternative") || m.contains("doesn't match any of the subject")) {
                return "tls: failed to verify certificate: x509: certificate is not valid for " + u.getHost();
            }
            if (m.contains("Unrecognized SSL message") || m.contains("plaintext connection")) {
                return "http: server gave HTTP response to HTTPS client";
            }
        }
        return "EOF";
    }

    /** The webhook's URL; a service reference is addressed by its cluster DNS name. */
    private static String url(JsonNode cc) throws WebhookException {
        if (cc.hasNonNull("url")) {
            return cc.get("url").asString();
        }
        JsonNode svc = cc.path("service");
        if (svc.isObject()) {
            return "https://" + svc.path("name").asString() + "." + svc.path("namespace").asString() + ".svc:"
                    + svc.path("port").asInt(443) + svc.path("path").asString("/");
        }
        throw new WebhookException("the webhook has neither clientConfig.url nor clientConfig.service");
    }

    private HttpClient client(String caBundle) throws GeneralSecurityException {
        HttpClient c = clients.get(caBundle);
        if (c != null) {
            return c;
        }
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (!caBundle.isEmpty()) {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            try {
                ts.load(null, null);
            } catch (IOException e) {
                throw new GeneralSecurityException(e);
            }
            int i = 0;
            for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(
                    new ByteArrayInputStream(Base64.getDecoder().decode(caBundle)))) {
                ts.setCertificateEntry("ca-" + i++, cert);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            b.sslContext(ctx);
        }
        c = b.build();
        clients.put(caBundle, c);
        return c;
    }

    private static ObjectNode review(String uid, Attributes a) {
        ObjectNode review = Json.object();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        ObjectNode r = review.putObject("request");
        r.put("uid", uid);
        gvk(r.putObject("kind"), a.group(), a.version()).put("kind", a.kind());
        gvk(r.putObject("resource"), a.group(), a.version()).put("resource", a.resource());
        if (!a.subresource().isEmpty()) {
            r.put("subResource", a.subresource());
        }
        r.set("requestKind", r.get("kind").deepCopy());
        r.set("requestResource", r.get("resource").deepCopy());
        if (!a.name().isEmpty()) {
            r.put("name", a.name());
        }
        if (!a.namespace().isEmpty()) {
            r.put("namespace", a.namespace());
        }
        r.put("operation", a.operation().name());
        ObjectNode user = r.putObject("userInfo");
        user.put("username", a.user().name());
        if (!a.user().uid().isEmpty()) {
            user.put("uid", a.user().uid());
        }
        ArrayNode groups = user.putArray("groups");
        a.user().groups().forEach(groups::add);
        r.set("object", a.object());
        r.set("oldObject", a.oldObject());
        r.put("dryRun", a.dryRun());
        return review;
    }

    private static ObjectNode gvk(ObjectNode o, String group, String version) {
        o.put("group", group);
        o.put("version", version);
        return o;
    }
}

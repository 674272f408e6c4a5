package io.cybernetes.admission.webhook;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;

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
import java.util.concurrent.ConcurrentHashMap;

/**
 * How the API server reaches a webhook of any kind (admission, CRD conversion): POSTs a
 * JSON review to its {@code clientConfig} (a URL, or a service by its cluster DNS name)
 * over HTTPS trusting its caBundle (or the JVM's trust store without one), or over plain
 * HTTP for local use, within a timeout. A call that gives no 200 answer is a
 * {@link WebhookException} worded as kube-apiserver words it
 * ({@code failed to call webhook: Post "...": dial tcp ...: connect: connection refused}).
 */
public final class WebhookTransport {

    /** A call that did not produce an answer: unreachable, slow, or malformed. */
    public static final class WebhookException extends Exception {
        public WebhookException(String message) {
            super(message);
        }
    }

    private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();

    /** Sends the review; returns the answer's body. */
    public byte[] post(JsonNode clientConfig, Object review, int timeoutSeconds) throws WebhookException {
        String url = url(clientConfig);
        byte[] body = Json.MAPPER.writeValueAsBytes(review);
        HttpResponse<byte[]> resp;
        try {
            resp = client(clientConfig.path("caBundle").asString("")).send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(timeoutSeconds)).header("Content-Type", "application/json")
                    .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            throw new WebhookException("failed to call webhook: Post \"" + url + "\": context deadline exceeded (timeout "
                    + timeoutSeconds + "s)");
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
        return resp.body();
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

}

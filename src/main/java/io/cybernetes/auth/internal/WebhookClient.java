package io.cybernetes.auth.internal;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A webhook the API server asks about tokens or requests, named by a kubeconfig file as
 * kube-apiserver's webhook config files name theirs: the first cluster's {@code server}
 * (HTTPS trusting its {@code certificate-authority-data} or {@code certificate-authority}
 * file, or the JVM's trust store, or nothing with {@code insecure-skip-tls-verify}; plain
 * HTTP for local use) and the first user's {@code token}, sent as a bearer token (client
 * certificates in the kubeconfig are not used). Reviews are POSTed as JSON; answers are cached by
 * the caller, keyed by what was asked.
 */
final class WebhookClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final int MAX_CACHED = 10_000;

    private final URI server;
    private final String token;
    private final HttpClient http;

    private WebhookClient(URI server, String token, HttpClient http) {
        this.server = server;
        this.token = token;
        this.http = http;
    }

    /** Reads the kubeconfig; one that names no server, or an unreadable CA, stops the server at start. */
    static WebhookClient fromKubeconfig(Path file) {
        JsonNode config;
        try {
            config = Json.YAML.readTree(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the webhook kubeconfig " + file + ": " + e.getMessage(), e);
        }
        JsonNode cluster = config.path("clusters").path(0).path("cluster");
        String server = cluster.path("server").asString("");
        if (server.isEmpty()) {
            throw new IllegalStateException("the webhook kubeconfig " + file + " names no cluster server");
        }
        String token = config.path("users").path(0).path("user").path("token").asString("");
        try {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
            if (server.startsWith("https:")) {
                b.sslContext(tls(cluster, file.toAbsolutePath().getParent()));
            }
            return new WebhookClient(URI.create(server), token, b.build());
        } catch (GeneralSecurityException | IOException | IllegalArgumentException e) {
            throw new IllegalStateException("the webhook kubeconfig " + file + ": " + e.getMessage(), e);
        }
    }

    private static SSLContext tls(JsonNode cluster, Path dir) throws GeneralSecurityException, IOException {
        SSLContext ctx = SSLContext.getInstance("TLS");
        if (cluster.path("insecure-skip-tls-verify").asBoolean(false)) {
            // an extended trust manager, so that the JDK does not check the host name behind it either
            ctx.init(null, new TrustManager[] {new javax.net.ssl.X509ExtendedTrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType, java.net.Socket socket) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType, java.net.Socket socket) {
                }

                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine e) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine e) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, null);
            return ctx;
        }
        byte[] pem = null;
        if (!cluster.path("certificate-authority-data").asString("").isEmpty()) {
            pem = Base64.getDecoder().decode(cluster.path("certificate-authority-data").asString());
        } else if (!cluster.path("certificate-authority").asString("").isEmpty()) {
            pem = Files.readAllBytes(dir.resolve(cluster.path("certificate-authority").asString()));
        }
        if (pem == null) {
            return SSLContext.getDefault();
        }
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        int i = 0;
        for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
            trust.setCertificateEntry("ca-" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** POSTs the review and returns the answer; anything but a 200 with a JSON object is an IOException saying what. */
    JsonNode post(JsonNode review) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(server).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.MAPPER.writeValueAsBytes(review)));
        if (!token.isEmpty()) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<byte[]> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (IOException e) {
            throw new IOException("Post \"" + server + "\": " + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage()), e);
        }
        if (r.statusCode() != 200) {
            throw new IOException("the webhook at " + server + " answered " + r.statusCode());
        }
        try {
            JsonNode answer = Json.MAPPER.readTree(r.body());
            if (!answer.isObject()) {
                throw new IOException("the webhook at " + server + " answered with no object");
            }
            return answer;
        } catch (RuntimeException e) {
            throw new IOException("the webhook at " + server + " answered with no JSON: " + e.getMessage(), e);
        }
    }

    /** An answer kept until it expires. */
    record Cached<T>(T value, long expiresNanos) {
    }

    /** Keeps at most {@link #MAX_CACHED} answers: past that the expired go, and if none had, all of them. */
    static <K, T> void remember(Map<K, Cached<T>> cache, K key, T value, Duration ttl) {
        if (ttl.isZero() || ttl.isNegative()) {
            return;
        }
        if (cache.size() >= MAX_CACHED) {
            long now = System.nanoTime();
            cache.values().removeIf(c -> c.expiresNanos() - now <= 0);
            if (cache.size() >= MAX_CACHED) {
                cache.clear();
            }
        }
        cache.put(key, new Cached<>(value, System.nanoTime() + ttl.toNanos()));
    }

    static <K, T> T recall(Map<K, Cached<T>> cache, K key) {
        Cached<T> c = cache.get(key);
        if (c == null) {
            return null;
        }
        if (c.expiresNanos() - System.nanoTime() <= 0) {
            cache.remove(key, c);
            return null;
        }
        return c.value();
    }

    static <K, T> Map<K, Cached<T>> newCache() {
        return new ConcurrentHashMap<>();
    }
}

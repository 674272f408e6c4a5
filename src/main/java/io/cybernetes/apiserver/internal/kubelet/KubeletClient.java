package io.cybernetes.apiserver.internal.kubelet;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.KubeletApi;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.auth.ClusterPki;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * How the API server reaches a node's kubelet, as kube-apiserver does: at the node's
 * address (InternalIP first, then ExternalIP, then its host name) and the port its status
 * reports ({@code daemonEndpoints.kubeletEndpoint}, 10250 when it reports none), over TLS
 * that trusts only the cluster CA, presenting the API server's own client certificate
 * ({@value KubeletApi#CLIENT_COMMON_NAME}, issued at start). A node that cannot be reached
 * answers as kube-apiserver reports a failed dial.
 */
@Component
public final class KubeletClient {

    static final int DEFAULT_PORT = 10250;
    private static final List<String> ADDRESS_TYPES = List.of("InternalIP", "ExternalIP", "Hostname");

    private final ResourceService service;
    private final ResourceType nodes;
    private final SSLContext tls;
    private final HttpClient http;

    KubeletClient(ClusterPki pki, ResourceService service, ResourceRegistry registry) {
        this.service = service;
        this.nodes = registry.byPath("", "v1", "nodes").orElseThrow();
        this.tls = pki.tls(pki.issue(KubeletApi.CLIENT_SUBJECT, X509Certificates.Purpose.CLIENT, List.of(),
                Duration.ofDays(365)));
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(tls)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** The TLS context for connections to kubelets (streams that upgrade open their own). */
    SSLContext tls() {
        return tls;
    }

    /** {@code https://address:port} of the node's kubelet. */
    URI base(String node) {
        ObjectNode n = service.get(nodes, null, node).value();
        JsonNode status = n.path("status");
        String address = null;
        for (String type : ADDRESS_TYPES) {
            for (JsonNode a : status.path("addresses")) {
                if (address == null && type.equals(a.path("type").asString()) && !a.path("address").asString("")
                        .isEmpty()) {
                    address = a.path("address").asString();
                }
            }
        }
        if (address == null) {
            throw ApiException.of(500, "", "no preferred addresses found; known addresses: []");
        }
        int port = status.path("daemonEndpoints").path("kubeletEndpoint").path("Port").asInt(0);
        String host = address.contains(":") ? "[" + address + "]" : address;
        return URI.create("https://" + host + ":" + (port <= 0 ? DEFAULT_PORT : port));
    }

    /**
     * The text a kubelet answers a GET of {@code path} with, within {@code timeout}: what a
     * component that scrapes kubelets (the metrics server) reads. Other than 2xx, or no
     * answer in time, is the Status it means.
     */
    public String read(String node, String path, Duration timeout) {
        URI uri = base(node).resolve(path);
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).GET().timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                throw relayed(r.statusCode(), r.body().trim());
            }
            return r.body();
        } catch (IOException e) {
            throw unreachable(uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(500, "", "Get \"" + uri + "\": interrupted");
        }
    }

    /** A kubelet's answer, whatever its status: the code, the content type and the body as it streams. */
    record Answer(int code, String contentType, InputStream body) {
    }

    /** GETs {@code uri} from a kubelet and hands back its answer as it is (a proxy passes it on). */
    Answer send(URI uri) {
        try {
            HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(uri).GET().timeout(Duration.ofHours(24))
                    .build(), HttpResponse.BodyHandlers.ofInputStream());
            return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(null), r.body());
        } catch (IOException e) {
            throw unreachable(uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(500, "", "Get \"" + uri + "\": interrupted");
        }
    }

    /**
     * GETs {@code uri} from a kubelet; the body streams as the kubelet sends it. A kubelet
     * that answers other than 2xx becomes the Status it means (its message the kubelet's text).
     */
    InputStream get(URI uri) {
        Answer r = send(uri);
        if (r.code() / 100 == 2) {
            return r.body();
        }
        String text;
        try (InputStream in = r.body()) {
            text = new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            text = "";
        }
        throw relayed(r.code(), text);
    }

    /**
     * Passes a kubelet's answer on as it comes, flushed whenever the kubelet pauses; a side
     * that goes ends it quietly, as a stream ends.
     */
    public static void relay(InputStream from, java.io.OutputStream to) {
        try (from) {
            byte[] buf = new byte[16 * 1024];
            int n;
            to.flush(); // the headers go at once: a follower sees its stream open before the first line
            while ((n = from.read(buf)) >= 0) {
                to.write(buf, 0, n);
                if (from.available() == 0) {
                    to.flush();
                }
            }
        } catch (IOException e) {
            // the caller or the node went mid-answer
        }
    }

    /** A kubelet's refusal as the Status kube-apiserver makes of it. */
    static ApiException relayed(int code, String text) {
        String reason = switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 409 -> "Conflict";
            default -> code >= 500 ? "InternalError" : "";
        };
        return ApiException.of(code, reason, text.isEmpty() ? "the server rejected our request for an unknown reason"
                : text);
    }

    /** A failed dial, worded as Go's HTTP client words it. */
    static ApiException unreachable(URI uri, IOException e) {
        return ApiException.of(500, "", "Get \"" + uri + "\": " + dialError(uri, e));
    }

    /** A stream's upgrade that could not reach the kubelet, in kube-apiserver's proxy's words. */
    static ApiException unreachableForUpgrade(URI uri, IOException e) {
        return ApiException.of(500, "", "error dialing backend: " + dialError(uri, e));
    }

    private static String dialError(URI uri, IOException e) {
        String hostPort = uri.getHost() + ":" + uri.getPort();
        if (e instanceof ConnectException) {
            return "dial tcp " + hostPort + ": connect: connection refused";
        }
        if (e instanceof HttpConnectTimeoutException || e instanceof HttpTimeoutException
                || e instanceof java.net.SocketTimeoutException) {
            return "dial tcp " + hostPort + ": i/o timeout";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** Writes a JSON Status for a refusal before any of the stream went out. */
    static byte[] status(ApiException e) {
        return Json.MAPPER.writeValueAsBytes(e.toJson());
    }
}

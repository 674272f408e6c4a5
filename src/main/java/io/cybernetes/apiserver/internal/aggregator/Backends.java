package io.cybernetes.apiserver.internal.aggregator;

import io.cybernetes.api.ApiException;
import io.cybernetes.apiserver.internal.handlers.GroupProxy;
import io.cybernetes.apiserver.internal.handlers.ServletCall;
import io.cybernetes.apiserver.internal.kubelet.KubeletClient;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The extension API servers this server fronts, by group version, and the proxy to them:
 * a request for their group, authenticated and authorized here, goes on whole (method,
 * path, query, body, content type and accept) with the user in the front-proxy headers
 * ({@code X-Remote-User}, {@code X-Remote-Group}, {@code X-Remote-Extra-*}) over TLS with
 * the front-proxy client certificate; the answer streams back as it comes (watches too).
 */
@Component
public class Backends implements GroupProxy {

    /**
     * One APIService's server: where it answers, and the resources its discovery lists; an
     * unavailable one (null base, client and resources) keeps its group listed and answers 503.
     */
    public record Backend(String apiService, String group, String version, int groupPriority, int versionPriority, URI base,
                   HttpClient http, ObjectNode resources) {
        public boolean available() {
            return http != null && resources != null;
        }

        static Backend unavailable(String apiService, String group, String version, int groupPriority,
                                   int versionPriority) {
            return new Backend(apiService, group, version, groupPriority, versionPriority, null, null, null);
        }
    }

    private static final Set<String> PASSED_ON = Set.of("accept", "content-type", "user-agent");
    /** Hop-by-hop headers and those the servlet container writes itself: not copied from an answer. */
    private static final Set<String> NOT_RETURNED = Set.of("connection", "keep-alive", "transfer-encoding",
            "content-length", "upgrade", "proxy-authenticate", "trailer", "te", "date", "server", ":status");
    private final Map<String, Backend> byGroupVersion = new ConcurrentHashMap<>();

    @Override
    public boolean serves(String group, String version) {
        return byGroupVersion.containsKey(group + "/" + version);
    }

    Optional<Backend> of(String group, String version) {
        return Optional.ofNullable(byGroupVersion.get(group + "/" + version));
    }

    /** The group versions served elsewhere now. */
    public Collection<Backend> all() {
        return List.copyOf(byGroupVersion.values());
    }

    void put(Backend b) {
        byGroupVersion.put(b.group() + "/" + b.version(), b);
    }

    void retainOnly(Set<String> groupVersions) {
        byGroupVersion.keySet().retainAll(groupVersions);
    }

    @Override
    public void proxy(ServletCall call) throws IOException {
        var request = call.servletRequest();
        HttpServletResponse response = call.servletResponse();
        String[] parts = request.getRequestURI().split("/"); // "", "apis", group, version, ...
        Backend b = (parts.length >= 4 ? of(parts[2], parts[3]) : Optional.<Backend>empty())
                .orElseThrow(ApiException::pathNotFound);
        if (!b.available()) {
            plain(response, "service unavailable"); // as kube-aggregator answers for an APIService not Available
            return;
        }
        URI uri = URI.create(b.base() + request.getRequestURI() + (request.getQueryString() == null ? ""
                : "?" + request.getQueryString()));
        byte[] body;
        try (InputStream in = call.body()) {
            body = in.readAllBytes();
        }
        HttpRequest.Builder out = HttpRequest.newBuilder(uri).timeout(Duration.ofHours(1))
                .method(request.getMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        for (String name : java.util.Collections.list(request.getHeaderNames())) {
            if (PASSED_ON.contains(name.toLowerCase())) {
                out.header(name, request.getHeader(name));
            }
        }
        identity(out, call.user());
        HttpResponse<InputStream> answer;
        try {
            answer = b.http().send(out.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            plain(response, "error trying to reach service: " + (e instanceof java.net.ConnectException
                    ? "dial tcp " + uri.getHost() + ":" + uri.getPort() + ": connect: connection refused"
                    : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            plain(response, "error trying to reach service: interrupted");
            return;
        }
        response.setStatus(answer.statusCode());
        answer.headers().map().forEach((name, values) -> {
            if (!NOT_RETURNED.contains(name.toLowerCase()) && !response.containsHeader(name)) {
                values.forEach(v -> response.addHeader(name, v));
            }
        });
        KubeletClient.relay(answer.body(), response.getOutputStream());
    }

    /** A 503 in plain text, as kube-aggregator's proxy writes one (kubectl: "the server is currently unable ..."). */
    private static void plain(HttpServletResponse response, String message) throws IOException {
        response.setStatus(503);
        response.setContentType("text/plain; charset=utf-8");
        response.getOutputStream().write((message + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** The user, as kube-apiserver's proxy tells an extension server who asks. */
    static void identity(HttpRequest.Builder out, UserInfo user) {
        out.header("X-Remote-User", user.name());
        for (String g : user.groups()) {
            out.header("X-Remote-Group", g);
        }
        user.extra().forEach((key, values) -> values.forEach(v -> out.header("X-Remote-Extra-"
                + URLEncoder.encode(key, StandardCharsets.UTF_8), v)));
    }
}

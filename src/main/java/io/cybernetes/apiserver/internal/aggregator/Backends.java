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

    /** One available APIService's server: where it answers, and the resources its discovery lists. */
    public record Backend(String apiService, String group, String version, int groupPriority, int versionPriority, URI base,
                   HttpClient http, ObjectNode resources) {
    }

    private static final Set<String> PASSED_ON = Set.of("accept", "content-type", "user-agent");
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
            throw ApiException.of(503, "ServiceUnavailable", "error trying to reach service: "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(503, "ServiceUnavailable", "error trying to reach service: interrupted");
        }
        response.setStatus(answer.statusCode());
        answer.headers().firstValue("content-type").ifPresent(response::setContentType);
        answer.headers().allValues("warning").forEach(w -> response.addHeader("Warning", w));
        KubeletClient.relay(answer.body(), response.getOutputStream());
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

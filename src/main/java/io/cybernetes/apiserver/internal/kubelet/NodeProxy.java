package io.cybernetes.apiserver.internal.kubelet;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.handlers.StreamedSubresource;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.net.URI;

/**
 * {@code nodes/proxy}: {@code GET /api/v1/nodes/{name}/proxy/{path}} passed to the node's
 * kubelet endpoint ({@code /healthz}, {@code /pods}, {@code /containerLogs/...}) as the API
 * server, its answer streamed back with its status and content type — as kube-apiserver
 * proxies to a kubelet for whoever may {@code get nodes/proxy}.
 */
@Component
final class NodeProxy implements StreamedSubresource {

    private final KubeletClient kubelets;

    NodeProxy(KubeletClient kubelets) {
        this.kubelets = kubelets;
    }

    @Override
    public boolean serves(ResourceType type, String subresource) {
        return "proxy".equals(subresource) && "Node".equals(type.kind()) && type.group().isEmpty();
    }

    @Override
    public void serve(HttpServletRequest request, HttpServletResponse response, ResourceType type, String namespace,
                      String name, String subresource) throws IOException {
        if (!request.getMethod().equals("GET")) {
            throw ApiException.methodNotAllowed("the simulated kubelet endpoints answer GET only");
        }
        String uri = request.getRequestURI();
        String marker = "/nodes/" + name + "/proxy";
        int at = uri.indexOf(marker);
        String rest = at < 0 ? "/" : uri.substring(at + marker.length());
        if (rest.isEmpty()) {
            rest = "/";
        }
        String query = request.getQueryString() == null ? "" : "?" + request.getQueryString();
        KubeletClient.Answer answer = kubelets.send(URI.create(kubelets.base(name) + rest + query));
        response.setStatus(answer.code());
        if (answer.contentType() != null) {
            response.setContentType(answer.contentType());
        }
        KubeletClient.relay(answer.body(), response.getOutputStream());
    }
}

package io.cybernetes.apiserver.internal.kubelet;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.KubeletApi;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.StreamedSubresource;
import io.fabric8.kubernetes.api.model.StatusCause;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * {@code pods/log}, as kube-apiserver serves it: the options checked as PodLogOptions are
 * ({@code container}, {@code follow}, {@code previous}, {@code tailLines},
 * {@code sinceSeconds} or {@code sinceTime}, {@code timestamps}, {@code limitBytes}), the
 * container named or the pod's only one, and the request passed to the kubelet of the
 * pod's node, whose answer streams back as it comes ({@code text/plain}, flushed as it
 * arrives). A pod not yet on a node has an empty log.
 */
@Component
final class PodLogs implements StreamedSubresource {

    private final ResourceService service;
    private final KubeletClient kubelets;

    PodLogs(ResourceService service, KubeletClient kubelets) {
        this.service = service;
        this.kubelets = kubelets;
    }

    @Override
    public boolean serves(ResourceType type, String subresource) {
        return "log".equals(subresource) && "Pod".equals(type.kind()) && type.group().isEmpty();
    }

    @Override
    public void serve(HttpServletRequest request, HttpServletResponse response, ResourceType type, String namespace,
                      String name, String subresource) throws IOException {
        if (!request.getMethod().equals("GET")) {
            throw ApiException.methodNotAllowed();
        }
        String query = kubeletQuery(request, name);
        ObjectNode pod = service.get(type, namespace, name).value();
        String container = container(pod, name, request.getParameter("container"));
        String node = pod.path("spec").path("nodeName").asString("");
        response.setContentType("text/plain");
        if (node.isEmpty()) {
            response.setStatus(200); // not on a node yet: nothing logged, as kube-apiserver answers
            return;
        }
        URI uri = URI.create(kubelets.base(node) + KubeletApi.CONTAINER_LOGS + enc(namespace) + "/" + enc(name) + "/"
                + enc(container) + query);
        InputStream in = kubelets.get(uri);
        response.setStatus(200);
        response.setHeader("Cache-Control", "no-cache, private");
        KubeletClient.relay(in, response.getOutputStream());
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * The container the log is of: the one asked for, or the pod's only one; kube-apiserver's
     * words when none is named among several, or the one named is not the pod's.
     */
    static String container(JsonNode pod, String name, String asked) {
        List<String> containers = names(pod.path("spec").path("containers"));
        List<String> init = names(pod.path("spec").path("initContainers"));
        List<String> ephemeral = names(pod.path("spec").path("ephemeralContainers"));
        if (asked == null || asked.isEmpty()) {
            if (containers.size() == 1) {
                return containers.get(0);
            }
            if (containers.isEmpty()) {
                throw ApiException.badRequest("a container name must be specified for pod " + name);
            }
            String message = "a container name must be specified for pod " + name + ", choose one of: ["
                    + String.join(" ", containers) + "]";
            if (!init.isEmpty()) {
                message += " or one of the init containers: [" + String.join(" ", init) + "]";
            }
            if (!ephemeral.isEmpty()) {
                message += " or one of the ephemeral containers: [" + String.join(" ", ephemeral) + "]";
            }
            throw ApiException.badRequest(message);
        }
        if (!containers.contains(asked) && !init.contains(asked) && !ephemeral.contains(asked)) {
            throw ApiException.badRequest("container " + asked + " is not valid for pod " + name);
        }
        return asked;
    }

    private static List<String> names(JsonNode containers) {
        List<String> out = new ArrayList<>();
        containers.forEach(c -> out.add(c.path("name").asString("")));
        return out;
    }

    /** The kubelet's query for the request's log options, after checking them as PodLogOptions are checked. */
    static String kubeletQuery(HttpServletRequest request, String name) {
        List<StatusCause> causes = new ArrayList<>();
        Long tail = integer(request, "tailLines");
        Long limit = integer(request, "limitBytes");
        Long sinceSeconds = integer(request, "sinceSeconds");
        String sinceTime = request.getParameter("sinceTime");
        if (tail != null && tail < 0) {
            causes.add(ApiException.cause("tailLines", "FieldValueInvalid", "Invalid value: " + tail
                    + ": must be greater than or equal to 0"));
        }
        if (limit != null && limit < 1) {
            causes.add(ApiException.cause("limitBytes", "FieldValueInvalid", "Invalid value: " + limit
                    + ": must be greater than 0"));
        }
        if (sinceSeconds != null && sinceTime != null) {
            causes.add(ApiException.cause("", "FieldValueForbidden",
                    "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"));
        }
        if (sinceSeconds != null && sinceSeconds < 1) {
            causes.add(ApiException.cause("sinceSeconds", "FieldValueInvalid", "Invalid value: " + sinceSeconds
                    + ": must be greater than 0"));
        }
        if (sinceTime != null) {
            try {
                Instant.parse(sinceTime);
            } catch (DateTimeParseException e) {
                throw ApiException.badRequest("parsing time \"" + sinceTime + "\" as \"2006-01-02T15:04:05Z07:00\":"
                        + " cannot parse \"" + sinceTime + "\" as \"2006\"");
            }
        }
        if (!causes.isEmpty()) {
            throw ApiException.invalid("", "PodLogOptions", name, causes);
        }
        StringJoiner q = new StringJoiner("&", "?", "");
        q.setEmptyValue("");
        for (String flag : List.of("follow", "previous", "timestamps")) {
            if (bool(request, flag)) {
                q.add(flag + "=true");
            }
        }
        if (tail != null) {
            q.add("tailLines=" + tail);
        }
        if (limit != null) {
            q.add("limitBytes=" + limit);
        }
        if (sinceSeconds != null) {
            q.add("sinceSeconds=" + sinceSeconds);
        }
        if (sinceTime != null) {
            q.add("sinceTime=" + URLEncoder.encode(sinceTime, StandardCharsets.UTF_8));
        }
        return q.toString();
    }

    private static Long integer(HttpServletRequest request, String name) {
        String v = request.getParameter(name);
        if (v == null || v.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("strconv.ParseInt: parsing " + goQuote(v) + ": invalid syntax");
        }
    }

    private static boolean bool(HttpServletRequest request, String name) {
        String v = request.getParameter(name);
        if (v == null || v.isEmpty()) {
            return false;
        }
        return switch (v) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            case "0", "f", "F", "false", "FALSE", "False" -> false;
            default -> throw ApiException.badRequest("strconv.ParseBool: parsing " + goQuote(v) + ": invalid syntax");
        };
    }

    private static String goQuote(String v) {
        return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}

package io.cybernetes.apiserver.internal.registry;

import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.cybernetes.apiserver.internal.registry.TableColumn.AGE;
import static io.cybernetes.apiserver.internal.registry.TableColumn.NAME;
import static io.cybernetes.apiserver.internal.registry.TableColumn.text;

/** The Table columns of Services, Endpoints and EndpointSlices, as kube-apiserver prints them. */
final class ServiceColumns {

    private static final int SHOWN = 3;

    private ServiceColumns() {
    }

    static final Map<String, List<TableColumn>> BY_KIND = Map.of(
            "Service", List.of(NAME,
                    text("Type", 0, o -> o.path("spec").path("type").asString("")),
                    text("Cluster-IP", 0, o -> orNone(o.path("spec").path("clusterIP").asString(""))),
                    text("External-IP", 0, ServiceColumns::externalIp),
                    text("Port(s)", 0, ServiceColumns::ports),
                    AGE,
                    text("Selector", 1, ServiceColumns::selector)),
            "Endpoints", List.of(NAME, text("Endpoints", 0, ServiceColumns::endpoints), AGE),
            "EndpointSlice", List.of(NAME,
                    text("AddressType", 0, o -> o.path("addressType").asString("")),
                    text("Ports", 0, ServiceColumns::slicePorts),
                    text("Endpoints", 0, ServiceColumns::sliceEndpoints),
                    AGE));

    private static String externalIp(JsonNode o) {
        JsonNode spec = o.path("spec");
        List<String> ips = new ArrayList<>();
        switch (spec.path("type").asString("")) {
            case "ExternalName" -> {
                return spec.path("externalName").asString("");
            }
            case "LoadBalancer" -> {
                for (JsonNode in : o.path("status").path("loadBalancer").path("ingress")) {
                    ips.add(in.hasNonNull("ip") ? in.path("ip").asString("") : in.path("hostname").asString(""));
                }
                spec.path("externalIPs").forEach(ip -> ips.add(ip.asString("")));
                return ips.isEmpty() ? "<pending>" : String.join(",", ips);
            }
            default -> {
                spec.path("externalIPs").forEach(ip -> ips.add(ip.asString("")));
                return ips.isEmpty() ? "<none>" : String.join(",", ips);
            }
        }
    }

    private static String ports(JsonNode o) {
        List<String> out = new ArrayList<>();
        for (JsonNode p : o.path("spec").path("ports")) {
            int nodePort = p.path("nodePort").asInt(0);
            out.add(p.path("port").asInt() + (nodePort > 0 ? ":" + nodePort : "") + "/" + p.path("protocol").asString(""));
        }
        return out.isEmpty() ? "<none>" : String.join(",", out);
    }

    private static String selector(JsonNode o) {
        List<String> out = new ArrayList<>();
        o.path("spec").path("selector").properties().forEach(e -> out.add(e.getKey() + "=" + e.getValue().asString("")));
        return out.isEmpty() ? "<none>" : String.join(",", out);
    }

    /** Up to three address:port pairs and how many more, as kubectl shows an Endpoints object. */
    private static String endpoints(JsonNode o) {
        JsonNode subsets = o.path("subsets");
        if (subsets.isEmpty()) {
            return "<none>";
        }
        List<String> shown = new ArrayList<>();
        int count = 0;
        for (JsonNode ss : subsets) {
            if (ss.path("ports").isEmpty()) {
                for (JsonNode a : ss.path("addresses")) {
                    count = add(shown, count, a.path("ip").asString(""));
                }
            } else {
                for (JsonNode port : ss.path("ports")) {
                    for (JsonNode a : ss.path("addresses")) {
                        count = add(shown, count, hostPort(a.path("ip").asString(""), port.path("port").asInt()));
                    }
                }
            }
        }
        return withMore(shown, count);
    }

    private static String slicePorts(JsonNode o) {
        JsonNode ports = o.path("ports");
        if (ports.isEmpty()) {
            return "<unset>";
        }
        List<String> shown = new ArrayList<>();
        int count = 0;
        for (JsonNode p : ports) {
            count = add(shown, count, p.hasNonNull("port") ? Integer.toString(p.path("port").asInt()) : "<unset>");
        }
        return withMore(shown, count);
    }

    private static String sliceEndpoints(JsonNode o) {
        List<String> shown = new ArrayList<>();
        int count = 0;
        for (JsonNode e : o.path("endpoints")) {
            for (JsonNode a : e.path("addresses")) {
                count = add(shown, count, a.asString(""));
            }
        }
        return count == 0 ? "<unset>" : withMore(shown, count);
    }

    private static int add(List<String> shown, int count, String item) {
        if (shown.size() < SHOWN) {
            shown.add(item);
        }
        return count + 1;
    }

    private static String withMore(List<String> shown, int count) {
        String joined = String.join(",", shown);
        return count > SHOWN ? joined + " + " + (count - SHOWN) + " more..." : joined;
    }

    private static String hostPort(String ip, int port) {
        return (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + port;
    }

    private static String orNone(String s) {
        return s.isEmpty() ? "<none>" : s;
    }
}

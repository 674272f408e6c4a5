package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.ResourceType.NameRule;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** A Service's spec as Kubernetes validates it (ValidateService, ValidateServiceUpdate), in its words. */
final class ServiceValidation {

    private static final String TYPES = "\"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\"";
    private static final String PROTOCOLS = "\"SCTP\", \"TCP\", \"UDP\"";
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
    private static final int MAX_AFFINITY_SECONDS = 86400;

    private ServiceValidation() {
    }

    static void validate(JsonNode spec, List<StatusCause> causes) {
        String type = spec.path("type").asString("");
        String clusterIp = spec.path("clusterIP").asString("");
        boolean headless = "None".equals(clusterIp);
        JsonNode ports = spec.path("ports");
        if (ports.isEmpty() && !headless && !"ExternalName".equals(type)) {
            causes.add(MetaValidation.required("spec.ports"));
        }
        if (!List.of("ClusterIP", "ExternalName", "LoadBalancer", "NodePort").contains(type)) {
            causes.add(MetaValidation.notSupported("spec.type", type, TYPES));
        }
        switch (type) {
            case "LoadBalancer", "NodePort" -> {
                if (headless) {
                    causes.add(MetaValidation.invalid("spec.clusterIPs[0]", clusterIp, "may not be set to 'None' for "
                            + type + " services"));
                }
            }
            case "ExternalName" -> {
                if (!clusterIp.isEmpty() || !spec.path("clusterIPs").isEmpty()) {
                    causes.add(forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
                }
                for (String f : List.of("ipFamilies", "ipFamilyPolicy")) {
                    if (spec.hasNonNull(f) && !spec.get(f).isEmpty()) {
                        causes.add(forbidden("spec." + f, "may not be set for ExternalName services"));
                    }
                }
                String name = spec.path("externalName").asString("");
                if (name.isEmpty()) {
                    causes.add(MetaValidation.required("spec.externalName"));
                } else {
                    MetaValidation.validateName(name.endsWith(".") ? name.substring(0, name.length() - 1) : name,
                            NameRule.DNS1123_SUBDOMAIN, "spec.externalName", causes);
                }
            }
            default -> {
            }
        }
        if (!clusterIp.isEmpty() && !headless && !isIp(clusterIp)) {
            causes.add(MetaValidation.invalid("spec.clusterIPs[0]", clusterIp,
                    "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
        }
        JsonNode ips = spec.path("clusterIPs");
        if (!ips.isEmpty() && !clusterIp.isEmpty() && !clusterIp.equals(ips.path(0).asString(""))) {
            causes.add(ApiException.cause("spec.clusterIPs", "FieldValueInvalid", "Invalid value: " + goStrings(ips)
                    + ": first value must match `clusterIP`"));
        }
        if (ips.size() > 1) {
            causes.add(ApiException.cause("spec.clusterIPs", "FieldValueInvalid", "Invalid value: " + goStrings(ips)
                    + ": may only hold up to 1 values when `ipFamilyPolicy` is 'SingleStack'"));
        }
        validatePorts(spec, type, causes);
        validateAffinity(spec, causes);
        validateTrafficPolicies(spec, type, causes);
        for (JsonNode ip : spec.path("externalIPs")) {
            if (!isIp(ip.asString(""))) {
                causes.add(MetaValidation.invalid("spec.externalIPs", ip.asString(""),
                        "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
            }
        }
        if (spec.path("selector").isObject()) {
            for (Map.Entry<String, JsonNode> e : spec.get("selector").properties()) {
                MetaValidation.validateQualifiedName(e.getKey(), "spec.selector", causes);
            }
        }
    }

    private static void validatePorts(JsonNode spec, String type, List<StatusCause> causes) {
        JsonNode ports = spec.path("ports");
        Set<String> names = new HashSet<>();
        Set<String> keys = new HashSet<>();
        Set<String> nodePorts = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            JsonNode p = ports.get(i);
            String at = "spec.ports[" + i + "]";
            String name = p.path("name").asString("");
            if (ports.size() > 1 && name.isEmpty()) {
                causes.add(MetaValidation.required(at + ".name"));
            } else if (!name.isEmpty()) {
                MetaValidation.validateName(name, NameRule.DNS1123_LABEL, at + ".name",
                        causes);
                if (!names.add(name)) {
                    causes.add(MetaValidation.duplicate(at + ".name", name));
                }
            }
            int port = p.path("port").asInt(0);
            if (port < 1 || port > 65535) {
                causes.add(invalidNumber(at + ".port", port, "must be between 1 and 65535, inclusive"));
            }
            String protocol = p.path("protocol").asString("");
            if (!List.of("TCP", "UDP", "SCTP").contains(protocol)) {
                causes.add(MetaValidation.notSupported(at + ".protocol", protocol, PROTOCOLS));
            }
            JsonNode target = p.path("targetPort");
            if (target.isNumber()) {
                if (target.asInt() < 1 || target.asInt() > 65535) {
                    causes.add(invalidNumber(at + ".targetPort", target.asInt(), "must be between 1 and 65535, inclusive"));
                }
            } else if (target.isString()) {
                String why = MetaValidation.portNameProblem(target.asString());
                if (why != null) {
                    causes.add(MetaValidation.invalid(at + ".targetPort", target.asString(), why));
                }
            }
            int nodePort = p.path("nodePort").asInt(0);
            if (nodePort != 0 && ("ClusterIP".equals(type) || "ExternalName".equals(type))) {
                causes.add(forbidden(at + ".nodePort", "may not be used when `type` is '" + type + "'"));
            } else if (nodePort != 0 && !nodePorts.add(protocol + "/" + nodePort)) {
                causes.add(ApiException.cause(at + ".nodePort", "FieldValueDuplicate", "Duplicate value: " + nodePort));
            }
            if (!keys.add(protocol + "/" + port)) {
                causes.add(ApiException.cause(at, "FieldValueDuplicate", "Duplicate value: core.ServicePort{Name:\"\","
                        + " Protocol:\"" + protocol + "\", AppProtocol:(*string)(nil), Port:" + port + ","
                        + " TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}"));
            }
        }
    }

    private static void validateAffinity(JsonNode spec, List<StatusCause> causes) {
        String affinity = spec.path("sessionAffinity").asString("");
        if (!List.of("ClientIP", "None").contains(affinity)) {
            causes.add(MetaValidation.notSupported("spec.sessionAffinity", affinity, "\"ClientIP\", \"None\""));
        } else if ("ClientIP".equals(affinity)) {
            JsonNode timeout = spec.path("sessionAffinityConfig").path("clientIP").path("timeoutSeconds");
            if (timeout.asInt(0) <= 0 || timeout.asInt(0) > MAX_AFFINITY_SECONDS) {
                causes.add(invalidNumber("spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout.asInt(0),
                        "must be greater than 0 and less than " + MAX_AFFINITY_SECONDS));
            }
        } else if (spec.hasNonNull("sessionAffinityConfig")) {
            causes.add(forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"));
        }
    }

    private static void validateTrafficPolicies(JsonNode spec, String type, List<StatusCause> causes) {
        boolean external = "NodePort".equals(type) || "LoadBalancer".equals(type);
        String etp = spec.path("externalTrafficPolicy").asString("");
        if (!etp.isEmpty() && !external) {
            causes.add(MetaValidation.invalid("spec.externalTrafficPolicy", etp,
                    "may only be set when `type` is 'NodePort' or 'LoadBalancer'"));
        } else if (!etp.isEmpty() && !List.of("Cluster", "Local").contains(etp)) {
            causes.add(MetaValidation.notSupported("spec.externalTrafficPolicy", etp, "\"Cluster\", \"Local\""));
        }
        String itp = spec.path("internalTrafficPolicy").asString("");
        if (!itp.isEmpty() && !List.of("Cluster", "Local").contains(itp)) {
            causes.add(MetaValidation.notSupported("spec.internalTrafficPolicy", itp, "\"Cluster\", \"Local\""));
        }
        int hc = spec.path("healthCheckNodePort").asInt(0);
        if (hc != 0 && !("LoadBalancer".equals(type) && "Local".equals(etp))) {
            causes.add(invalidNumber("spec.healthCheckNodePort", hc,
                    "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
        }
        String policy = spec.path("ipFamilyPolicy").asString("");
        if (!policy.isEmpty() && !List.of("SingleStack", "PreferDualStack", "RequireDualStack").contains(policy)) {
            causes.add(MetaValidation.notSupported("spec.ipFamilyPolicy", policy,
                    "\"PreferDualStack\", \"RequireDualStack\", \"SingleStack\""));
        }
        // the cluster serves IPv4 Service addresses only, as a kube-apiserver with one IPv4 range
        boolean headlessWithoutSelector = "None".equals(spec.path("clusterIP").asString(""))
                && spec.path("selector").isEmpty();
        if ("RequireDualStack".equals(policy) && !headlessWithoutSelector) {
            causes.add(MetaValidation.invalid("spec.ipFamilyPolicy", policy,
                    "this cluster is not configured for dual-stack services"));
        }
        for (int i = 0; i < spec.path("ipFamilies").size(); i++) {
            String family = spec.path("ipFamilies").path(i).asString("");
            if (!"IPv4".equals(family)) {
                causes.add(MetaValidation.invalid("spec.ipFamilies[" + i + "]", family, "not configured on this cluster"));
            }
        }
    }

    /** The cluster IP stays as first given, unless the Service is or was an ExternalName. */
    static void validateUpdate(JsonNode spec, JsonNode old, List<StatusCause> causes) {
        if ("ExternalName".equals(spec.path("type").asString("")) || "ExternalName".equals(old.path("type").asString(""))) {
            return;
        }
        String was = old.path("clusterIP").asString("");
        String now = spec.path("clusterIP").asString("");
        if (!was.isEmpty() && !was.equals(now)) {
            causes.add(ApiException.cause("spec.clusterIPs[0]", "FieldValueInvalid", "Invalid value: "
                    + goStrings(spec.path("clusterIPs")) + ": may not change once set"));
        }
    }

    static boolean isIp(String s) {
        return IPV4.matcher(s).matches() || (IPV6.matcher(s).matches() && isIpv6(s));
    }

    private static boolean isIpv6(String s) {
        try {
            // only hexadecimal digits, colons and dots: a literal, never looked up
            return java.net.InetAddress.getByName(s) instanceof java.net.Inet6Address;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** A list of strings as Go's %#v prints it: {@code []string{"a", "b"}}. */
    private static String goStrings(JsonNode values) {
        StringBuilder sb = new StringBuilder("[]string{");
        for (int i = 0; i < values.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append('"').append(values.get(i).asString("")).append('"');
        }
        return sb.append('}').toString();
    }

    private static StatusCause forbidden(String field, String why) {
        return ApiException.cause(field, "FieldValueForbidden", "Forbidden: " + why);
    }

    private static StatusCause invalidNumber(String field, int value, String why) {
        return ApiException.cause(field, "FieldValueInvalid", "Invalid value: " + value + ": " + why);
    }
}

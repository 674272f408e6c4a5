package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.ResourceType.NameRule;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * Endpoints (core/v1) and EndpointSlices (discovery.k8s.io/v1): addresses that are IPs but
 * not special ones (a loopback, link-local or unspecified address routes nowhere), ports in
 * range with a supported protocol, names where several ports need them; a slice's address
 * type is one of Kubernetes' and never changes, and it holds at most 1,000 endpoints.
 */
public final class EndpointsStrategy implements KindStrategy {

    private static final String PROTOCOLS = "\"SCTP\", \"TCP\", \"UDP\"";
    private static final int MAX_SLICE_ENDPOINTS = 1000;
    private static final int MAX_SLICE_PORTS = 100;

    private final boolean slice;

    /** The strategy of Endpoints ({@code slice} false) or of EndpointSlices. */
    public EndpointsStrategy(boolean slice) {
        this.slice = slice;
    }

    @Override
    public void prepareForCreate(ObjectNode obj) {
        if (!slice) {
            return;
        }
        for (JsonNode p : obj.path("ports")) {
            if (p instanceof ObjectNode port && !port.hasNonNull("protocol")) {
                port.put("protocol", "TCP");
            }
        }
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        prepareForCreate(obj);
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        if (slice) {
            validateSlice(obj, causes);
            return;
        }
        JsonNode subsets = obj.path("subsets");
        for (int i = 0; i < subsets.size(); i++) {
            String at = "subsets[" + i + "]";
            JsonNode ss = subsets.get(i);
            for (String list : List.of("addresses", "notReadyAddresses")) {
                JsonNode addresses = ss.path(list);
                for (int j = 0; j < addresses.size(); j++) {
                    validateAddress(addresses.get(j).path("ip").asString(""), at + "." + list + "[" + j + "].ip", causes);
                }
            }
            validatePorts(ss.path("ports"), at + ".ports", true, causes);
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        if (slice && !obj.path("addressType").equals(old.path("addressType"))) {
            causes.add(MetaValidation.immutable("addressType"));
        }
    }

    private static void validateSlice(ObjectNode obj, List<StatusCause> causes) {
        String type = obj.path("addressType").asString("");
        if (type.isEmpty()) {
            causes.add(MetaValidation.required("addressType"));
        } else if (!List.of("FQDN", "IPv4", "IPv6").contains(type)) {
            causes.add(MetaValidation.notSupported("addressType", type, "\"FQDN\", \"IPv4\", \"IPv6\""));
        }
        JsonNode endpoints = obj.path("endpoints");
        if (endpoints.size() > MAX_SLICE_ENDPOINTS) {
            causes.add(ApiException.cause("endpoints", "FieldValueTooMany", "Too many: " + endpoints.size()
                    + ": must have at most " + MAX_SLICE_ENDPOINTS + " items"));
        }
        for (int i = 0; i < endpoints.size(); i++) {
            JsonNode addresses = endpoints.get(i).path("addresses");
            String at = "endpoints[" + i + "].addresses";
            if (addresses.isEmpty() || addresses.size() > 100) {
                causes.add(ApiException.cause(at, "FieldValueInvalid", "Invalid value: " + addresses.size()
                        + ": must contain at least 1 address but no more than 100"));
            }
            for (int j = 0; j < addresses.size(); j++) {
                String a = addresses.get(j).asString("");
                if ("IPv4".equals(type) && !a.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
                    causes.add(MetaValidation.invalid(at + "[" + j + "]", a, "must be a valid IPv4 address"));
                } else if ("IPv6".equals(type) && !(a.contains(":") && ServiceValidation.isIp(a))) {
                    causes.add(MetaValidation.invalid(at + "[" + j + "]", a, "must be a valid IPv6 address"));
                } else if ("FQDN".equals(type)) {
                    MetaValidation.validateName(a, NameRule.DNS1123_SUBDOMAIN,
                            at + "[" + j + "]", causes);
                }
            }
        }
        if (obj.path("ports").size() > MAX_SLICE_PORTS) {
            causes.add(ApiException.cause("ports", "FieldValueTooMany", "Too many: " + obj.path("ports").size()
                    + ": must have at most " + MAX_SLICE_PORTS + " items"));
        }
        validatePorts(obj.path("ports"), "ports", false, causes);
    }

    private static void validatePorts(JsonNode ports, String at, boolean requireNames, List<StatusCause> causes) {
        for (int k = 0; k < ports.size(); k++) {
            JsonNode p = ports.get(k);
            String pat = at + "[" + k + "]";
            String name = p.path("name").asString("");
            if (requireNames && ports.size() > 1 && name.isEmpty()) {
                causes.add(MetaValidation.required(pat + ".name"));
            } else if (!name.isEmpty()) {
                MetaValidation.validateName(name, NameRule.DNS1123_LABEL, pat + ".name",
                        causes);
            }
            if (p.has("port") || requireNames) {
                int port = p.path("port").asInt(0);
                if (port < 1 || port > 65535) {
                    causes.add(ApiException.cause(pat + ".port", "FieldValueInvalid", "Invalid value: " + port
                            + ": must be between 1 and 65535, inclusive"));
                }
            }
            String protocol = p.path("protocol").asString("TCP");
            if (!List.of("TCP", "UDP", "SCTP").contains(protocol)) {
                causes.add(MetaValidation.notSupported(pat + ".protocol", protocol, PROTOCOLS));
            }
        }
    }

    /** An endpoint address: an IP, and not one that routes nowhere, in Kubernetes' words. */
    private static void validateAddress(String ip, String field, List<StatusCause> causes) {
        if (!ServiceValidation.isIp(ip)) {
            causes.add(MetaValidation.invalid(field, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
        } else if (ip.equals("0.0.0.0") || ip.equals("::")) {
            causes.add(MetaValidation.invalid(field, ip, "may not be unspecified (0.0.0.0, ::)"));
        } else if (ip.startsWith("127.") || ip.equals("::1")) {
            causes.add(MetaValidation.invalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
        } else if (ip.startsWith("169.254.") || ip.toLowerCase().startsWith("fe80:")) {
            causes.add(MetaValidation.invalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
        } else if (ip.startsWith("224.0.0.") || ip.toLowerCase().startsWith("ff02:")) {
            causes.add(MetaValidation.invalid(field, ip,
                    "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
        }
    }
}

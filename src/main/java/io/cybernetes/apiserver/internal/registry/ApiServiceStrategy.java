package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Base64;
import java.util.List;

/**
 * APIServices (apiregistration.k8s.io/v1), as kube-aggregator validates them: named
 * {@code version.group}, a group that is a DNS subdomain (empty only for the core v1), a
 * version that is a DNS-1035 label, priorities in range, and for a service: its namespace,
 * name and port, and either a caBundle or insecureSkipTLSVerify, not both; a local one (no
 * service) has neither. The service port defaults to 443; status is the availability
 * controller's.
 */
public final class ApiServiceStrategy extends DefaultingStrategy {

    @Override
    void setDefaults(ObjectNode obj) {
        if (obj.path("spec").path("service") instanceof ObjectNode svc && !svc.hasNonNull("port")) {
            svc.put("port", 443);
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode spec = obj.path("spec");
        String group = spec.path("group").asString("");
        String version = spec.path("version").asString("");
        String name = Json.text(obj, "metadata.name");
        if (name != null && !name.equals(version + "." + group)) {
            causes.add(MetaValidation.invalid("metadata.name", name, "must be `spec.version+\".\"+spec.group`"));
        }
        if (group.isEmpty() && !version.equals("v1")) {
            causes.add(MetaValidation.required("spec.group", "only v1 may have an empty group and it better be legacy"
                    + " kube"));
        }
        if (!group.isEmpty() && (group.length() > 253 || !MetaValidation.DNS1123_SUBDOMAIN.matcher(group).matches())) {
            causes.add(MetaValidation.invalid("spec.group", group, "a lowercase RFC 1123 subdomain must consist of"
                    + " lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric"
                    + " character (e.g. 'example.com', regex used for validation is"
                    + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
        }
        if (version.length() > 63 || !MetaValidation.DNS1035_LABEL.matcher(version).matches()) {
            causes.add(MetaValidation.invalid("spec.version", version, MetaValidation.DNS1035_MESSAGE));
        }
        int groupPriority = spec.path("groupPriorityMinimum").asInt(0);
        if (groupPriority <= 0 || groupPriority > 20000) {
            causes.add(number("spec.groupPriorityMinimum", groupPriority, "must be positive and less than 20000"));
        }
        int versionPriority = spec.path("versionPriority").asInt(0);
        if (versionPriority <= 0 || versionPriority > 1000) {
            causes.add(number("spec.versionPriority", versionPriority, "must be positive and less than 1000"));
        }
        String caBundle = spec.path("caBundle").asString("");
        boolean insecure = spec.path("insecureSkipTLSVerify").asBoolean(false);
        JsonNode service = spec.path("service");
        if (!service.isObject()) {
            if (!caBundle.isEmpty()) {
                causes.add(MetaValidation.invalid("spec.caBundle", bytes(caBundle) + " bytes",
                        "local APIServices may not have a caBundle"));
            }
            if (insecure) {
                causes.add(ApiException.cause("spec.insecureSkipTLSVerify", "FieldValueInvalid",
                        "Invalid value: true: local APIServices may not have insecureSkipTLSVerify"));
            }
            return;
        }
        if (service.path("namespace").asString("").isEmpty()) {
            causes.add(MetaValidation.required("spec.service.namespace"));
        }
        if (service.path("name").asString("").isEmpty()) {
            causes.add(MetaValidation.required("spec.service.name"));
        }
        int port = service.path("port").asInt(443);
        if (port < 1 || port > 65535) {
            causes.add(number("spec.service.port", port, "must be between 1 and 65535, inclusive"));
        }
        if (insecure && !caBundle.isEmpty()) {
            causes.add(ApiException.cause("spec.insecureSkipTLSVerify", "FieldValueInvalid",
                    "Invalid value: true: may not be true if caBundle is present"));
        }
    }

    private static int bytes(String base64) {
        try {
            return Base64.getDecoder().decode(base64).length;
        } catch (IllegalArgumentException e) {
            return base64.length();
        }
    }

    private static StatusCause number(String field, int value, String why) {
        return ApiException.cause(field, "FieldValueInvalid", "Invalid value: " + value + ": " + why);
    }
}

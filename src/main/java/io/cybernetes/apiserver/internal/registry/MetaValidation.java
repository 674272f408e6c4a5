package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Validation of object metadata shared by every kind: names, labels, annotations. */
public final class MetaValidation {

    public static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    public static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    public static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final int ANNOTATIONS_MAX_BYTES = 256 * 1024;

    /** Why a name is no DNS-1035 label (a Service's name, a port's name), in Kubernetes' words. */
    public static final String DNS1035_MESSAGE = "a DNS-1035 label must consist of lower case alphanumeric characters"
            + " or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', "
            + " or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

    private MetaValidation() {
    }

    public static void validateName(String name, ResourceType.NameRule rule, String field, List<StatusCause> causes) {
        if (name == null || name.isEmpty()) {
            causes.add(ApiException.cause(field, "FieldValueRequired", "Required value: name or generateName is required"));
            return;
        }
        switch (rule) {
            case DNS1123_LABEL -> {
                if (name.length() > 63) {
                    causes.add(invalid(field, name, "must be no more than 63 characters"));
                } else if (!DNS1123_LABEL.matcher(name).matches()) {
                    causes.add(invalid(field, name, "a lowercase RFC 1123 label must consist of lower case alphanumeric"
                            + " characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',"
                            + " or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
                }
            }
            case DNS1035_LABEL -> {
                if (name.length() > 63) {
                    causes.add(invalid(field, name, "must be no more than 63 characters"));
                } else if (!DNS1035_LABEL.matcher(name).matches()) {
                    causes.add(invalid(field, name, DNS1035_MESSAGE));
                }
            }
            case DNS1123_SUBDOMAIN -> {
                if (name.length() > 253) {
                    causes.add(invalid(field, name, "must be no more than 253 characters"));
                } else if (!DNS1123_SUBDOMAIN.matcher(name).matches()) {
                    causes.add(invalid(field, name, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
                            + " characters, '-' or '.', and must start and end with an alphanumeric character (e.g."
                            + " 'example.com', regex used for validation is"
                            + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
                }
            }
            case PATH_SEGMENT -> {
                if (name.equals(".") || name.equals("..") || name.contains("/") || name.contains("%")) {
                    causes.add(invalid(field, name, "may not be '.' or '..' and may not contain '/' or '%'"));
                }
            }
        }
    }

    /**
     * Why a text is no port name (an IANA service name: a container port's name, a Service's
     * target port by name), in Kubernetes' words; null when it is one.
     */
    public static String portNameProblem(String name) {
        if (name.length() > 15) {
            return "must be no more than 15 characters";
        }
        if (!name.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
            return "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)";
        }
        if (name.contains("--")) {
            return "must not contain consecutive hyphens";
        }
        if (name.chars().noneMatch(c -> c >= 'a' && c <= 'z')) {
            return "must contain at least one letter (a-z)";
        }
        if (name.startsWith("-") || name.endsWith("-")) {
            return "must not begin or end with a hyphen";
        }
        return null;
    }

    /** Validates labels and annotations of {@code metadata}. */
    public static void validateMeta(ObjectNode metadata, List<StatusCause> causes) {
        JsonNode labels = metadata.get("labels");
        if (labels != null && labels.isObject()) {
            for (Map.Entry<String, JsonNode> e : labels.properties()) {
                validateQualifiedName(e.getKey(), "metadata.labels", causes);
                String v = e.getValue().isNull() ? "" : e.getValue().asString();
                if (v.length() > 63) {
                    causes.add(invalid("metadata.labels", v, "must be no more than 63 characters"));
                } else if (!LABEL_VALUE.matcher(v).matches()) {
                    causes.add(invalid("metadata.labels", v, "a valid label must be an empty string or consist of"
                            + " alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric"
                            + " character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is"
                            + " '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
                }
            }
        }
        JsonNode annotations = metadata.get("annotations");
        if (annotations != null && annotations.isObject()) {
            long total = 0;
            for (Map.Entry<String, JsonNode> e : annotations.properties()) {
                validateQualifiedName(e.getKey().toLowerCase(), "metadata.annotations", causes);
                total += e.getKey().length() + (e.getValue().isNull() ? 0
                        : e.getValue().asString().getBytes(StandardCharsets.UTF_8).length);
            }
            if (total > ANNOTATIONS_MAX_BYTES) {
                causes.add(ApiException.cause("metadata.annotations", "FieldValueTooLong",
                        "Too long: must have at most " + ANNOTATIONS_MAX_BYTES + " bytes"));
            }
        }
        JsonNode finalizers = metadata.get("finalizers");
        if (finalizers != null && finalizers.isArray()) {
            for (JsonNode f : finalizers) {
                validateQualifiedName(f.asString(), "metadata.finalizers", causes);
            }
        }
    }

    public static void validateQualifiedName(String key, String field, List<StatusCause> causes) {
        String name = key;
        int slash = key.indexOf('/');
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.isEmpty() || prefix.length() > 253 || !DNS1123_SUBDOMAIN.matcher(prefix).matches()) {
                causes.add(invalid(field, key, "prefix part a lowercase RFC 1123 subdomain must consist of lower case"
                        + " alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"));
                return;
            }
        }
        if (name.isEmpty() || name.length() > 63 || !QUALIFIED_NAME.matcher(name).matches()) {
            causes.add(invalid(field, key, "name part must consist of alphanumeric characters, '-', '_' or '.', and must"
                    + " start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex"
                    + " used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') and be at most 63 characters"));
        }
    }

    public static StatusCause invalid(String field, String value, String why) {
        return ApiException.cause(field, "FieldValueInvalid", "Invalid value: \"" + value + "\": " + why);
    }

    public static StatusCause required(String field) {
        return ApiException.cause(field, "FieldValueRequired", "Required value");
    }

    public static StatusCause required(String field, String detail) {
        return ApiException.cause(field, "FieldValueRequired", "Required value: " + detail);
    }

    public static StatusCause duplicate(String field, String value) {
        return ApiException.cause(field, "FieldValueDuplicate", "Duplicate value: \"" + value + "\"");
    }

    public static StatusCause notSupported(String field, String value, String supported) {
        return ApiException.cause(field, "FieldValueNotSupported", "Unsupported value: \"" + value
                + "\": supported values: " + supported);
    }

    public static StatusCause immutable(String field) {
        return ApiException.cause(field, "FieldValueInvalid", "Invalid value: field is immutable");
    }

    public static String text(JsonNode n, String path) {
        return Json.text(n, path);
    }
}

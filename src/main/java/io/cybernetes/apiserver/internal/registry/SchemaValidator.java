package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Quantities;
import io.cybernetes.api.ResourceType;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Validates an object against its kind's schema after mutating admission: required
 * fields, minimum and maximum, enums, name formats and quantities, with one cause per
 * field worded as Kubernetes words it ({@code spec.replicas: Invalid value: -1: must be
 * greater than or equal to 0}). Types were checked when the body was decoded.
 */
public final class SchemaValidator {

    private SchemaValidator() {
    }

    public static void validate(JsonNode node, Schema schema, String path, List<StatusCause> causes) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return;
        }
        Schema.Rules r = schema.rules();
        switch (schema.type()) {
            case OBJECT -> {
                for (String req : r.required()) {
                    JsonNode v = node.get(req);
                    if (v == null || v.isNull() || (v.isString() && v.asString().isEmpty())) {
                        causes.add(MetaValidation.required(join(path, req)));
                    }
                }
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    Schema child = schema.properties().get(e.getKey());
                    if (child != null) {
                        validate(e.getValue(), child, join(path, e.getKey()), causes);
                    }
                }
            }
            case MAP -> {
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    validate(e.getValue(), schema.items(), path + "[" + e.getKey() + "]", causes);
                }
            }
            case ARRAY -> {
                if (r.minItems() != null && node.size() < r.minItems()) {
                    causes.add(node.isEmpty() ? MetaValidation.required(path) : ApiException.cause(path,
                            "FieldValueInvalid", "Invalid value: " + node.size() + ": must have at least " + r.minItems()
                                    + " items"));
                }
                for (int i = 0; i < node.size(); i++) {
                    validate(node.get(i), schema.items(), path + "[" + i + "]", causes);
                }
            }
            case STRING -> {
                String v = node.asString("");
                if (!r.enumValues().isEmpty() && !r.enumValues().contains(v)) {
                    causes.add(MetaValidation.notSupported(path, v, r.enumValues().stream().map(x -> "\"" + x + "\"")
                            .collect(Collectors.joining(", "))));
                }
                if ("dns-label".equals(r.format()) && !v.isEmpty()) {
                    MetaValidation.validateName(v, ResourceType.NameRule.DNS1123_LABEL, path, causes);
                } else if ("dns-subdomain".equals(r.format()) && !v.isEmpty()) {
                    MetaValidation.validateName(v, ResourceType.NameRule.DNS1123_SUBDOMAIN, path, causes);
                }
            }
            case INT32, INTEGER, NUMBER -> {
                // compared exactly: a number past a double's range is still a number
                if (node.isNumber() && !(node.isDouble() && !Double.isFinite(node.asDouble()))) {
                    java.math.BigDecimal v = node.decimalValue();
                    if (r.minimum() != null && v.compareTo(java.math.BigDecimal.valueOf(r.minimum())) < 0) {
                        causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: " + node.asString()
                                + ": must be greater than or equal to " + r.minimum()));
                    }
                    if (r.maximum() != null && v.compareTo(java.math.BigDecimal.valueOf(r.maximum())) > 0) {
                        causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: " + node.asString()
                                + ": must be less than or equal to " + r.maximum()));
                    }
                }
            }
            case QUANTITY -> {
                if (node.isString() && !Quantities.isValid(node.asString())) {
                    causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: \"" + node.asString()
                            + "\": quantities must match the regular expression"
                            + " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
                }
            }
            default -> {
            }
        }
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }
}

package io.cybernetes.apiserver.internal.apiextensions;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.GoStrings;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Validation of a CustomResourceDefinition as apiextensions-apiserver validates one: its
 * name is {@code <plural>.<group>}, its names are DNS labels (the kind a mixed-case one),
 * it has versions with exactly one storage version, each with a structural schema (a
 * type on every node, the metadata of the root limited to name and generateName, no
 * {@code properties} beside {@code additionalProperties}), its subresource paths point
 * into spec and status, its printer columns have known types, and on update its scope
 * and stored versions hold.
 */
public final class CrdValidation {

    private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern KIND = Pattern.compile("[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?");
    private static final Set<String> TYPES = Set.of("object", "array", "string", "integer", "number", "boolean");
    private static final Set<String> COLUMN_TYPES = Set.of("integer", "number", "string", "boolean", "date");
    private static final Set<String> COLUMN_FORMATS = Set.of("int32", "int64", "float", "double", "byte", "date",
            "date-time", "password");
    private static final String COLUMN_TYPES_TEXT = "boolean,date,integer,number,string";
    private static final String COLUMN_FORMATS_TEXT = "byte,date,date-time,double,float,int32,int64,password";
    private static final String SCHEMA_PATH = "schema.openAPIV3Schema";

    private static final String APPROVAL = "api-approved.kubernetes.io";

    private CrdValidation() {
    }

    /** Kubernetes' own groups, where a CRD needs the API reviewers' approval. */
    private static boolean protectedGroup(String group) {
        return group.equals("k8s.io") || group.endsWith(".k8s.io") || group.equals("kubernetes.io")
                || group.endsWith(".kubernetes.io");
    }

    /** The causes of a new CRD (spec and name). */
    public static List<StatusCause> validate(ObjectNode crd) {
        List<StatusCause> causes = new ArrayList<>();
        JsonNode spec = crd.path("spec");
        String group = text(spec, "group");
        JsonNode names = spec.path("names");
        String plural = text(names, "plural");
        String name = Json.text(crd, "metadata.name");
        if (name != null && plural != null && group != null && !name.equals(plural + "." + group)) {
            causes.add(invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
        }
        if (group == null || group.isEmpty()) {
            causes.add(required("spec.group", ""));
        } else if (!DNS1123_SUBDOMAIN.matcher(group).matches()) {
            causes.add(invalid("spec.group", group, "a lowercase RFC 1123 subdomain must consist of lower case"
                    + " alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g."
                    + " 'example.com', regex used for validation is"
                    + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
        } else if (!group.contains(".")) {
            causes.add(invalid("spec.group", group, "should be a domain with at least one dot"));
        } else if (protectedGroup(group) && !crd.path("metadata").path("annotations").has(APPROVAL)) {
            causes.add(required("metadata.annotations[" + APPROVAL + "]", "protected groups must have approval"
                    + " annotation \"" + APPROVAL + "\", see https://github.com/kubernetes/enhancements/pull/1111"));
        }
        String scope = text(spec, "scope");
        if (scope == null || scope.isEmpty()) {
            causes.add(required("spec.scope", ""));
        } else if (!scope.equals("Cluster") && !scope.equals("Namespaced")) {
            causes.add(ApiException.cause("spec.scope", "FieldValueNotSupported", "Unsupported value: "
                    + GoStrings.quote(scope) + ": supported values: \"Cluster\", \"Namespaced\""));
        }
        validateNames(names, "spec.names", causes);
        validateVersions(spec, causes);
        validateConversion(spec.path("conversion"), causes);
        return causes;
    }

    /** The causes of an update: those of the new CRD, its immutable scope, and stored versions still served. */
    public static List<StatusCause> validateUpdate(ObjectNode crd, ObjectNode old) {
        List<StatusCause> causes = validate(crd);
        immutable(crd, old, "spec.group", causes);
        immutable(crd, old, "spec.names.plural", causes);
        if (CrdConditions.isTrue(old.path("status"), "Established")) {
            immutable(crd, old, "spec.scope", causes);
            immutable(crd, old, "spec.names.kind", causes);
        }
        validateStoredVersions(crd, causes);
        return causes;
    }

    private static void immutable(ObjectNode crd, ObjectNode old, String field, List<StatusCause> causes) {
        String now = Json.text(crd, field);
        if (now != null && !now.equals(Json.text(old, field))) {
            causes.add(invalid(field, now, "field is immutable"));
        }
    }

    /** The causes of a status write: every stored version is still one of the spec's versions. */
    public static List<StatusCause> validateStatus(ObjectNode crd) {
        List<StatusCause> causes = new ArrayList<>();
        validateStoredVersions(crd, causes);
        return causes;
    }

    private static void validateStoredVersions(ObjectNode crd, List<StatusCause> causes) {
        Set<String> versions = new HashSet<>();
        crd.path("spec").path("versions").forEach(v -> versions.add(text(v, "name")));
        JsonNode stored = crd.path("status").path("storedVersions");
        for (int i = 0; i < stored.size(); i++) {
            String v = stored.get(i).asString();
            if (!versions.contains(v)) {
                causes.add(invalid("status.storedVersions[" + i + "]", v, "must appear in spec.versions"));
            }
        }
    }

    private static void validateNames(JsonNode names, String path, List<StatusCause> causes) {
        String plural = text(names, "plural");
        if (plural == null || plural.isEmpty()) {
            causes.add(required(path + ".plural", ""));
        } else {
            label(plural, path + ".plural", causes);
        }
        String singular = text(names, "singular");
        if (singular != null && !singular.isEmpty()) {
            label(singular, path + ".singular", causes);
        }
        String kind = text(names, "kind");
        if (kind == null || kind.isEmpty()) {
            causes.add(required(path + ".kind", ""));
        } else if (!KIND.matcher(kind).matches()) {
            causes.add(invalid(path + ".kind", kind, "may have mixed case, but should otherwise match: "
                    + DNS1035_MESSAGE));
        }
        String listKind = text(names, "listKind");
        if (listKind == null || listKind.isEmpty()) {
            causes.add(required(path + ".listKind", ""));
        } else if (!KIND.matcher(listKind).matches()) {
            causes.add(invalid(path + ".listKind", listKind, "may have mixed case, but should otherwise match: "
                    + DNS1035_MESSAGE));
        } else if (listKind.equals(kind)) {
            causes.add(invalid(path + ".listKind", listKind, "kind and listKind may not be the same"));
        }
        JsonNode shortNames = names.path("shortNames");
        for (int i = 0; i < shortNames.size(); i++) {
            label(shortNames.get(i).asString(), path + ".shortNames[" + i + "]", causes);
        }
        JsonNode categories = names.path("categories");
        for (int i = 0; i < categories.size(); i++) {
            label(categories.get(i).asString(), path + ".categories[" + i + "]", causes);
        }
    }

    private static final String DNS1035_MESSAGE = "a DNS-1035 label must consist of lower case alphanumeric"
            + " characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g."
            + " 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

    private static void label(String value, String path, List<StatusCause> causes) {
        if (value.length() > 63) {
            causes.add(invalid(path, value, "must be no more than 63 characters"));
        }
        if (!DNS1035_LABEL.matcher(value).matches()) {
            causes.add(invalid(path, value, DNS1035_MESSAGE));
        }
    }

    /**
     * The versions, and what each holds. A schema, subresources or printer columns that
     * every version has alike are checked once and reported where Kubernetes' internal
     * form keeps them ({@code spec.validation.openAPIV3Schema}, {@code spec.subresources},
     * {@code spec.additionalPrinterColumns}), as kube-apiserver reports them.
     */
    private static void validateVersions(JsonNode spec, List<StatusCause> causes) {
        JsonNode versions = spec.path("versions");
        if (versions.isEmpty()) {
            causes.add(ApiException.cause("spec.versions", "FieldValueInvalid", "Invalid value: "
                    + versionsValue(versions) + ": must have exactly one version marked as storage version"));
            causes.add(ApiException.cause("status.storedVersions", "FieldValueInvalid",
                    "Invalid value: []string(nil): must have at least one stored version"));
            return;
        }
        boolean sameSchema = alike(versions, "schema");
        boolean sameSubresources = alike(versions, "subresources");
        boolean sameColumns = alike(versions, "additionalPrinterColumns");
        int storage = 0;
        boolean served = false;
        boolean unique = true;
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < versions.size(); i++) {
            JsonNode v = versions.get(i);
            String path = "spec.versions[" + i + "]";
            String name = text(v, "name");
            if (name == null || name.isEmpty()) {
                causes.add(required(path + ".name", ""));
            } else if (!DNS1035_LABEL.matcher(name).matches() || name.length() > 63) {
                causes.add(invalid(path + ".name", name, DNS1035_MESSAGE));
            } else if (!seen.add(name)) {
                unique = false;
            }
            if (v.path("storage").asBoolean(false)) {
                storage++;
            }
            served |= v.path("served").asBoolean(false);
            JsonNode schema = v.path("schema").get("openAPIV3Schema");
            boolean first = i == 0;
            if (schema == null || !schema.isObject()) {
                causes.add(required(path + "." + SCHEMA_PATH, "schemas are required"));
            } else if (!sameSchema || first) {
                boolean status = v.path("subresources").has("status");
                String schemaPath = (sameSchema ? "spec.validation" : path + ".schema") + ".openAPIV3Schema";
                int before = causes.size();
                validateSchema(schema, schemaPath, true, status, causes);
                if (causes.size() == before) {
                    causes.addAll(CelRules.errors(schema, schemaPath));
                }
            }
            if (schema != null && schema.isObject() && (!sameSubresources || first)) {
                validateSubresources(v.path("subresources"), sameSubresources ? "spec.subresources"
                        : path + ".subresources", StructuralSchema.of(schema), causes);
            }
            if (!sameColumns || first) {
                validateColumns(v.path("additionalPrinterColumns"), sameColumns ? "spec.additionalPrinterColumns"
                        : path + ".additionalPrinterColumns", causes);
            }
        }
        if (!unique) {
            causes.add(ApiException.cause("spec.versions", "FieldValueInvalid", "Invalid value: "
                    + versionsValue(versions) + ": must contain unique version names"));
        }
        if (storage != 1) {
            causes.add(ApiException.cause("spec.versions", "FieldValueInvalid", "Invalid value: "
                    + versionsValue(versions) + ": must have exactly one version marked as storage version"));
        }
        if (!served) {
            causes.add(ApiException.cause("spec.versions", "FieldValueInvalid", "Invalid value: "
                    + versionsValue(versions) + ": must have at least one version marked as served"));
        }
    }

    /** Whether every version has the same value of a field (or none). */
    private static boolean alike(JsonNode versions, String field) {
        JsonNode first = versions.get(0).get(field);
        for (JsonNode v : versions) {
            if (!java.util.Objects.equals(first, v.get(field))) {
                return false;
            }
        }
        return true;
    }

    private static String versionsValue(JsonNode versions) {
        List<String> names = new ArrayList<>();
        versions.forEach(v -> names.add(text(v, "name")));
        return "[]apiextensions.CustomResourceDefinitionVersion{" + String.join(", ", names.stream()
                .map(n -> "{Name:" + GoStrings.quote(n == null ? "" : n) + "}").toList()) + "}";
    }

    /** The structural schema rules, with the restrictions of the root (type object, limited metadata). */
    private static void validateSchema(JsonNode s, String path, boolean root, boolean status,
                                       List<StatusCause> causes) {
        if (s.has("$ref")) {
            causes.add(forbidden(path + ".$ref", "$ref is not supported"));
        }
        String type = text(s, "type");
        boolean intOrString = s.path("x-kubernetes-int-or-string").asBoolean(false);
        boolean preserve = s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        if (root) {
            if (type == null || type.isEmpty()) {
                causes.add(required(path + ".type", "must not be empty at the root"));
            } else if (!type.equals("object")) {
                causes.add(invalid(path + ".type", type, "must be object at the root"));
                if (status) {
                    causes.add(invalid(path + ".type", type, "only \"object\" is allowed as the type at the root of"
                            + " the schema if the status subresource is enabled"));
                }
            }
            JsonNode meta = s.path("properties").get("metadata");
            if (meta != null) {
                validateRootMetadata(meta, path + ".properties[metadata]", causes);
            }
            if (s.has("additionalProperties")) {
                causes.add(forbidden(path + ".additionalProperties", "must not be used at the root"));
            }
            if (s.path("nullable").asBoolean(false)) {
                causes.add(forbidden(path + ".nullable", "nullable cannot be true at the root"));
            }
            for (String typed : List.of("apiVersion", "kind")) {
                JsonNode t = s.path("properties").get(typed);
                if (t != null && text(t, "type") != null && !"string".equals(text(t, "type"))) {
                    causes.add(invalid(path + ".properties[" + typed + "].type", text(t, "type"), "must be string"));
                }
            }
        }
        if (s.path("uniqueItems").asBoolean(false)) {
            causes.add(forbidden(path + ".uniqueItems",
                    "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
        }
        if (s.has("x-kubernetes-preserve-unknown-fields")
                && !s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
            causes.add(invalid(path + ".x-kubernetes-preserve-unknown-fields", "false", "must be true or undefined"));
        }
        if (type != null && !type.isEmpty() && !TYPES.contains(type)) {
            causes.add(ApiException.cause(path + ".type", "FieldValueNotSupported", "Unsupported value: "
                    + GoStrings.quote(type) + ": supported values: \"array\", \"boolean\", \"integer\", \"number\","
                    + " \"object\", \"string\""));
        }
        if (intOrString && type != null && !type.isEmpty()) {
            causes.add(invalid(path + ".type", type, "must be empty to be structural"));
        }
        if (s.has("properties") && s.has("additionalProperties") && !root) {
            causes.add(forbidden(path + ".additionalProperties",
                    "additionalProperties and properties are mutual exclusive"));
        }
        String pattern = text(s, "pattern");
        if (pattern != null) {
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                causes.add(invalid(path + ".pattern", pattern, "must be a valid regular expression, but isn't: "
                        + e.getDescription()));
            }
        }
        if ("array".equals(type) && !s.has("items")) {
            causes.add(required(path + ".items", "must be specified"));
        }
        String listType = text(s, "x-kubernetes-list-type");
        if (listType != null) {
            if (!Set.of("atomic", "set", "map").contains(listType)) {
                causes.add(ApiException.cause(path + ".x-kubernetes-list-type", "FieldValueNotSupported",
                        "Unsupported value: " + GoStrings.quote(listType)
                                + ": supported values: \"atomic\", \"set\", \"map\""));
            } else if (!"array".equals(type)) {
                causes.add(invalid(path + ".type", type == null ? "" : type,
                        "must be array if x-kubernetes-list-type is specified"));
            }
            if (listType.equals("map") && s.path("x-kubernetes-list-map-keys").isEmpty()) {
                causes.add(required(path + ".x-kubernetes-list-map-keys",
                        "must not be empty if x-kubernetes-list-type is map"));
            }
        }
        for (String unsupported : List.of("oneOf", "anyOf", "allOf", "not")) {
            // allowed by Kubernetes only when they repeat what the structure says; kept out here
            if (s.has(unsupported) && !s.get(unsupported).isArray() && !s.get(unsupported).isObject()) {
                causes.add(invalid(path + "." + unsupported, s.get(unsupported).toString(), "must be a schema"));
            }
        }
        for (Map.Entry<String, JsonNode> p : s.path("properties").properties()) {
            String childPath = path + ".properties[" + p.getKey() + "]";
            JsonNode child = p.getValue();
            if (missingType(child)) {
                causes.add(required(childPath + ".type", "must not be empty for specified object fields"));
            }
            if (!(root && p.getKey().equals("metadata"))) {
                validateSchema(child, childPath, false, false, causes);
            }
        }
        JsonNode items = s.get("items");
        if (items != null && items.isObject()) {
            if (missingType(items)) {
                causes.add(required(path + ".items.type", "must not be empty for specified array items"));
            }
            validateSchema(items, path + ".items", false, false, causes);
        } else if (items != null && items.isArray()) {
            causes.add(forbidden(path + ".items", "items must be a schema object and not an array"));
        }
        JsonNode additional = s.get("additionalProperties");
        if (additional != null && additional.isObject()) {
            if (missingType(additional)) {
                causes.add(required(path + ".additionalProperties.type",
                        "must not be empty for specified additionalProperties"));
            }
            validateSchema(additional, path + ".additionalProperties", false, false, causes);
        }
        if (preserve && type != null && !type.isEmpty() && !type.equals("object")) {
            causes.add(invalid(path + ".type", type, "must be object if x-kubernetes-preserve-unknown-fields is true"));
        }
    }

    private static boolean missingType(JsonNode s) {
        String t = text(s, "type");
        return (t == null || t.isEmpty()) && !s.path("x-kubernetes-int-or-string").asBoolean(false)
                && !s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    }

    /** A root's metadata may only constrain name and generateName. */
    private static void validateRootMetadata(JsonNode meta, String path, List<StatusCause> causes) {
        Set<String> allowed = Set.of("type", "properties");
        for (Map.Entry<String, JsonNode> e : meta.properties()) {
            if (!allowed.contains(e.getKey())) {
                causes.add(forbidden(path, "must not specify anything other than name and generateName, but metadata"
                        + " is implicitly specified"));
                return;
            }
        }
        String type = text(meta, "type");
        if (type != null && !type.equals("object")) {
            causes.add(invalid(path + ".type", type, "must be object"));
        }
        for (Map.Entry<String, JsonNode> p : meta.path("properties").properties()) {
            if (!p.getKey().equals("name") && !p.getKey().equals("generateName")) {
                causes.add(forbidden(path + ".properties[" + p.getKey() + "]", "must not specify anything other than"
                        + " name and generateName, but metadata is implicitly specified"));
            } else if (!"string".equals(text(p.getValue(), "type"))) {
                causes.add(invalid(path + ".properties[" + p.getKey() + "].type", String.valueOf(text(p.getValue(),
                        "type")), "must be string"));
            }
        }
    }

    private static void validateSubresources(JsonNode sub, String path, StructuralSchema schema,
                                             List<StatusCause> causes) {
        JsonNode scale = sub.get("scale");
        if (scale == null || scale.isNull()) {
            return;
        }
        String spec = text(scale, "specReplicasPath");
        if (spec == null || spec.isEmpty()) {
            causes.add(required(path + ".scale.specReplicasPath", ""));
        } else if (!spec.startsWith(".")) {
            causes.add(invalid(path + ".scale.specReplicasPath", spec, "must be a simple json path starting with ."));
        } else if (!spec.startsWith(".spec.")) {
            causes.add(invalid(path + ".scale.specReplicasPath", spec, "should be a json path under .spec"));
        } else if (!integerAt(schema, spec)) {
            causes.add(invalid(path + ".scale.specReplicasPath", spec,
                    "specReplicasPath should point to a json path in the schema of type integer"));
        }
        String status = text(scale, "statusReplicasPath");
        if (status == null || status.isEmpty()) {
            causes.add(required(path + ".scale.statusReplicasPath", ""));
        } else if (!status.startsWith(".")) {
            causes.add(invalid(path + ".scale.statusReplicasPath", status,
                    "must be a simple json path starting with ."));
        } else if (!status.startsWith(".status.")) {
            causes.add(invalid(path + ".scale.statusReplicasPath", status, "should be a json path under .status"));
        } else if (!integerAt(schema, status)) {
            causes.add(invalid(path + ".scale.statusReplicasPath", status,
                    "statusReplicasPath should point to a json path in the schema of type integer"));
        }
        String selector = text(scale, "labelSelectorPath");
        if (selector != null && !selector.isEmpty() && !selector.startsWith(".spec.")
                && !selector.startsWith(".status.")) {
            causes.add(invalid(path + ".scale.labelSelectorPath", selector,
                    "should be a json path under either .spec or .status"));
        }
    }

    /** Whether a simple path ({@code .spec.replicas}) names an integer in the schema. */
    private static boolean integerAt(StructuralSchema schema, String path) {
        StructuralSchema s = schema;
        for (String part : path.substring(1).split("\\.")) {
            s = s == null ? null : s.property(part);
        }
        return s != null && "integer".equals(s.type);
    }

    private static void validateColumns(JsonNode columns, String path, List<StatusCause> causes) {
        for (int i = 0; i < columns.size(); i++) {
            JsonNode c = columns.get(i);
            String p = path + "[" + i + "]";
            if (text(c, "name") == null || text(c, "name").isEmpty()) {
                causes.add(required(p + ".name", ""));
            }
            String type = text(c, "type");
            if (type == null || type.isEmpty()) {
                causes.add(required(p + ".type", "must be one of " + COLUMN_TYPES_TEXT));
            } else if (!COLUMN_TYPES.contains(type)) {
                causes.add(invalid(p + ".type", type, "must be one of " + COLUMN_TYPES_TEXT));
            }
            String format = text(c, "format");
            if (format != null && !format.isEmpty() && !COLUMN_FORMATS.contains(format)) {
                causes.add(invalid(p + ".format", format, "must be one of " + COLUMN_FORMATS_TEXT));
            }
            String jsonPath = text(c, "jsonPath");
            if (jsonPath == null || jsonPath.isEmpty()) {
                causes.add(required(p + ".JSONPath", ""));
            } else {
                try {
                    JsonPath.parse(jsonPath);
                } catch (IllegalArgumentException e) {
                    causes.add(invalid(p + ".JSONPath", jsonPath, "must be a simple json path starting with ."));
                }
            }
        }
    }

    private static void validateConversion(JsonNode conversion, List<StatusCause> causes) {
        String strategy = text(conversion, "strategy");
        if (strategy == null) {
            return;
        }
        if (!strategy.equals("None") && !strategy.equals("Webhook")) {
            causes.add(ApiException.cause("spec.conversion.strategy", "FieldValueNotSupported", "Unsupported value: "
                    + GoStrings.quote(strategy) + ": supported values: \"None\", \"Webhook\""));
        } else if (strategy.equals("Webhook")) {
            JsonNode webhook = conversion.path("webhook");
            if (webhook.path("clientConfig").isMissingNode()) {
                causes.add(required("spec.conversion.webhook.clientConfig",
                        "required when strategy is set to Webhook"));
            } else {
                JsonNode cc = webhook.path("clientConfig");
                boolean url = cc.hasNonNull("url");
                boolean service = cc.hasNonNull("service");
                if (url == service) {
                    causes.add(required("spec.conversion.webhook.clientConfig",
                            "exactly one of url or service is required"));
                }
            }
            if (webhook.path("conversionReviewVersions").isEmpty()) {
                causes.add(required("spec.conversion.webhook.conversionReviewVersions",
                        "must include at least one of v1, v1beta1"));
            }
        }
    }

    private static StatusCause required(String field, String detail) {
        return ApiException.cause(field, "FieldValueRequired", detail.isEmpty() ? "Required value"
                : "Required value: " + detail);
    }

    private static StatusCause invalid(String field, String value, String why) {
        return ApiException.cause(field, "FieldValueInvalid", "Invalid value: " + GoStrings.quote(value) + ": " + why);
    }

    private static StatusCause forbidden(String field, String why) {
        return ApiException.cause(field, "FieldValueForbidden", "Forbidden: " + why);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n == null ? null : n.get(field);
        return v != null && v.isString() ? v.asString() : null;
    }
}

package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.CertificateRequests;
import io.cybernetes.api.Json;
import io.cybernetes.auth.UserInfo;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * CertificateSigningRequests (certificates.k8s.io/v1), as Kubernetes' strategies keep them: the
 * requester recorded from the request, never from the body; the spec never changes; Approved and
 * Denied conditions only through {@code /approval} and never removed; the certificate only through
 * {@code /status}, once. The request must be a PKCS#10 request whose signature holds.
 */
public final class CertificateSigningRequestStrategy implements KindStrategy {

    public static final String APPROVED = "Approved";
    public static final String DENIED = "Denied";
    public static final String FAILED = "Failed";

    /** Every key usage Kubernetes knows, in the order its messages list them. */
    public static final Set<String> USAGES = new TreeSet<>(List.of("signing", "digital signature",
            "content commitment", "key encipherment", "key agreement", "data encipherment", "cert sign", "crl sign",
            "encipher only", "decipher only", "any", "server auth", "client auth", "code signing", "email protection",
            "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
            "microsoft sgc", "netscape sgc"));
    private static final Set<String> TRUE_ONLY = Set.of(APPROVED, DENIED, FAILED);
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    @Override
    public void prepareForCreate(ObjectNode obj, UserInfo requester) {
        ObjectNode spec = Json.child(obj, "spec");
        for (String f : List.of("username", "uid", "groups", "extra")) {
            spec.remove(f);
        }
        if (requester != null) {
            spec.put("username", requester.name());
            if (requester.uid() != null && !requester.uid().isEmpty()) {
                spec.put("uid", requester.uid());
            }
            if (!requester.groups().isEmpty()) {
                ArrayNode groups = spec.putArray("groups");
                requester.groups().forEach(groups::add);
            }
            if (!requester.extra().isEmpty()) {
                ObjectNode extra = spec.putObject("extra");
                for (Map.Entry<String, List<String>> e : requester.extra().entrySet()) {
                    ArrayNode values = extra.putArray(e.getKey());
                    e.getValue().forEach(values::add);
                }
            }
        }
        // users cannot create requests already approved or answered
        obj.putObject("status");
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old, String subresource) {
        obj.set("spec", old.path("spec").deepCopy());
        if ("status".equals(subresource)) {
            keepConditions(obj, old, APPROVED);
            keepConditions(obj, old, DENIED);
        }
        stampConditions(obj, old);
    }

    /** Through /status the Approved or Denied conditions stay as they were (adding or removing one is refused). */
    private static void keepConditions(ObjectNode obj, ObjectNode old, String type) {
        List<JsonNode> before = conditions(old, type);
        List<JsonNode> now = conditions(obj, type);
        if (before.size() != now.size() || before.isEmpty()) {
            return;
        }
        ArrayNode all = (ArrayNode) obj.path("status").path("conditions");
        int k = 0;
        for (int i = 0; i < all.size(); i++) {
            if (type.equals(all.get(i).path("type").asString(""))) {
                all.set(i, before.get(k++).deepCopy());
            }
        }
    }

    /** Conditions without times get now; a transition time carries over when the old one had that status. */
    private static void stampConditions(ObjectNode obj, ObjectNode old) {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        for (JsonNode n : obj.path("status").path("conditions")) {
            if (!(n instanceof ObjectNode c)) {
                continue;
            }
            if (Json.text(c, "lastUpdateTime") == null) {
                c.put("lastUpdateTime", now);
            }
            if (Json.text(c, "lastTransitionTime") == null) {
                String transition = now;
                for (JsonNode o : old.path("status").path("conditions")) {
                    if (o.path("type").equals(c.path("type")) && o.path("status").equals(c.path("status"))
                            && Json.text(o, "lastTransitionTime") != null) {
                        transition = Json.text(o, "lastTransitionTime");
                        break;
                    }
                }
                c.put("lastTransitionTime", transition);
            }
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        validate(obj, null, causes);
    }

    private static void validate(ObjectNode obj, ObjectNode old, List<StatusCause> causes) {
        JsonNode spec = obj.path("spec");
        String request = spec.path("request").asString("");
        String problem = CertificateRequests.problem(request);
        if (problem != null) {
            causes.add(ApiException.cause("spec.request", "FieldValueInvalid", "Invalid value: \"" + request + "\": "
                    + problem));
        }
        JsonNode usages = spec.path("usages");
        if (usages.isEmpty()) {
            causes.add(MetaValidation.required("spec.usages"));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < usages.size(); i++) {
            String u = usages.get(i).asString("");
            // an update keeps the spec it had: what was accepted then is not judged again
            if (!USAGES.contains(u) && old == null) {
                causes.add(MetaValidation.notSupported("spec.usages[" + i + "]", u, quoted(USAGES)));
            }
            if (!seen.add(u) && old == null) {
                causes.add(MetaValidation.duplicate("spec.usages[" + i + "]", u));
            }
        }
        validateSignerName(spec.path("signerName").asString(""), causes);
        JsonNode seconds = spec.get("expirationSeconds");
        if (seconds != null && !seconds.isNull() && seconds.asLong() < 600) {
            causes.add(ApiException.cause("spec.expirationSeconds", "FieldValueInvalid", "Invalid value: "
                    + seconds.asLong() + ": may not specify a duration less than 600 seconds (10 minutes)"));
        }
        validateConditions(obj, causes);
        String certificate = obj.path("status").path("certificate").asString("");
        boolean unchanged = old != null && certificate.equals(old.path("status").path("certificate").asString(""));
        String bad = unchanged ? null : CertificateRequests.certificateProblem(certificate);
        if (bad != null) {
            causes.add(ApiException.cause("status.certificate", "FieldValueInvalid", "Invalid value: \"<certificate"
                    + " data>\": " + bad));
        }
    }

    private static void validateSignerName(String name, List<StatusCause> causes) {
        String field = "spec.signerName";
        if (name.isEmpty()) {
            causes.add(MetaValidation.required(field));
            return;
        }
        String[] segments = name.split("/", -1);
        if (segments.length != 2) {
            causes.add(MetaValidation.invalid(field, name, "must be a fully qualified domain and path of the form"
                    + " 'example.com/signer-name'"));
            return;
        }
        String[] domain = segments[0].split("\\.", -1);
        for (String label : domain) {
            if (label.length() > 63 || !LABEL.matcher(label).matches()) {
                causes.add(MetaValidation.invalid(field, segments[0], "validating label \"" + label + "\": a lowercase"
                        + " RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and"
                        + " end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation"
                        + " is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
                break;
            }
        }
        if (domain.length < 2) {
            causes.add(MetaValidation.invalid(field, segments[0], "should be a domain with at least two segments"
                    + " separated by dots"));
        }
        if (segments[1].isEmpty() || !MetaValidation.DNS1123_SUBDOMAIN.matcher(segments[1]).matches()) {
            causes.add(MetaValidation.invalid(field, segments[1], "validating label \"" + segments[1] + "\": a"
                    + " lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.',"
                    + " and must start and end with an alphanumeric character (e.g. 'example.com', regex used for"
                    + " validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
        }
    }

    private static void validateConditions(ObjectNode obj, List<StatusCause> causes) {
        JsonNode conditions = obj.path("status").path("conditions");
        Set<String> seen = new HashSet<>();
        boolean approved = false;
        boolean denied = false;
        for (int i = 0; i < conditions.size(); i++) {
            String at = "status.conditions[" + i + "]";
            String type = conditions.get(i).path("type").asString("");
            String status = conditions.get(i).path("status").asString("");
            if (type.isEmpty()) {
                causes.add(MetaValidation.required(at + ".type"));
            }
            if (status.isEmpty()) {
                causes.add(MetaValidation.required(at + ".status"));
            } else if (TRUE_ONLY.contains(type) ? !status.equals("True")
                    : !List.of("False", "True", "Unknown").contains(status)) {
                causes.add(MetaValidation.notSupported(at + ".status", status, TRUE_ONLY.contains(type)
                        ? "\"True\"" : "\"False\", \"True\", \"Unknown\""));
            }
            if (type.equals(APPROVED) && denied || type.equals(DENIED) && approved) {
                causes.add(MetaValidation.invalid(at + ".type", type, "Approved and Denied conditions are mutually"
                        + " exclusive"));
            }
            approved |= type.equals(APPROVED);
            denied |= type.equals(DENIED);
            if (!type.isEmpty() && !seen.add(type)) {
                causes.add(MetaValidation.duplicate(at + ".type", type));
            }
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, old, causes);
        for (String type : List.of(APPROVED, DENIED, FAILED)) {
            if (conditions(obj, type).size() < conditions(old, type).size()) {
                causes.add(forbidden("status.conditions", "updates may not remove a condition of type \"" + type
                        + "\""));
            }
        }
        if (!"approval".equals(subresource)) {
            for (String type : List.of(APPROVED, DENIED)) {
                List<JsonNode> before = conditions(old, type);
                List<JsonNode> now = conditions(obj, type);
                if (now.size() > before.size()) {
                    causes.add(forbidden("status.conditions", "updates may not add a condition of type \"" + type
                            + "\""));
                } else if (now.size() == before.size() && !now.equals(before)) {
                    causes.add(forbidden("status.conditions", "updates may not modify a condition of type \"" + type
                            + "\""));
                }
            }
        }
        String before = old.path("status").path("certificate").asString("");
        String now = obj.path("status").path("certificate").asString("");
        if (!before.equals(now)) {
            if (!"status".equals(subresource)) {
                causes.add(forbidden("status.certificate", "updates may not set certificate content"));
            } else if (!before.isEmpty()) {
                causes.add(forbidden("status.certificate", "updates may not modify existing certificate content"));
            }
        }
    }

    private static StatusCause forbidden(String field, String why) {
        return ApiException.cause(field, "FieldValueForbidden", "Forbidden: " + why);
    }

    static List<JsonNode> conditions(JsonNode obj, String type) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode c : obj.path("status").path("conditions")) {
            if (type.equals(c.path("type").asString(""))) {
                out.add(c);
            }
        }
        return out;
    }

    private static String quoted(Set<String> values) {
        return String.join(", ", values.stream().map(v -> "\"" + v + "\"").toList());
    }

    /** kubectl's CONDITION column: Pending, Approved or Denied, then Failed and Issued. */
    public static String condition(JsonNode obj) {
        boolean approved = !conditions(obj, APPROVED).isEmpty();
        boolean denied = !conditions(obj, DENIED).isEmpty();
        String s = denied ? "Denied" : approved ? "Approved" : "Pending";
        if (!conditions(obj, FAILED).isEmpty()) {
            s += ",Failed";
        }
        if (!obj.path("status").path("certificate").asString("").isEmpty()) {
            s += ",Issued";
        }
        return s;
    }
}

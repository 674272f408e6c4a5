package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Bad input of every kind gets a Kubernetes Status with the right code and reason, and
 * the store is left exactly as it was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedRequestsTest extends ApiTestSupport {

    private static final String NS = "malformed";
    private static final String CM = "/api/v1/namespaces/" + NS + "/configmaps";
    private static final String DEPLOY = "/apis/apps/v1/namespaces/" + NS + "/deployments";

    @BeforeAll
    void setUp() {
        createNamespace(NS);
        post(CM, "{\"metadata\":{\"name\":\"existing\"},\"data\":{\"k\":\"v\"}}");
    }

    static Stream<Arguments> cases() {
        String big = "{\"metadata\":{\"name\":\"big\"},\"data\":{\"k\":\"" + "x".repeat(3 * 1024 * 1024) + "\"}}";
        return Stream.of(
                arguments("malformed JSON is a 400", "POST", CM, "application/json", "{\"metadata\":", 400, "BadRequest"),
                arguments("malformed YAML is a 400", "POST", CM, "application/yaml", "a: [b\n  c: :", 400, "BadRequest"),
                arguments("a JSON array instead of an object is a 400", "POST", CM, "application/json", "[1,2]", 400,
                        "BadRequest"),
                arguments("an empty body is a 400", "POST", CM, "application/json", "", 400, "BadRequest"),
                arguments("a kind that does not match the URL is a 400", "POST", CM, "application/json",
                        "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"x\"}}", 400, "BadRequest"),
                arguments("an apiVersion that does not match the URL is a 400", "POST", CM, "application/json",
                        "{\"apiVersion\":\"apps/v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}", 400,
                        "BadRequest"),
                arguments("a namespace in the body that differs from the URL is a 400", "POST", CM, "application/json",
                        "{\"metadata\":{\"name\":\"x\",\"namespace\":\"other\"}}", 400, "BadRequest"),
                arguments("a name in the body that differs from the URL is a 400", "PUT", CM + "/existing",
                        "application/json", "{\"metadata\":{\"name\":\"other\"}}", 400, "BadRequest"),
                arguments("an invalid name is a 422 naming the field", "POST", CM, "application/json",
                        "{\"metadata\":{\"name\":\"Not_Valid\"}}", 422, "Invalid"),
                arguments("a missing name is a 422", "POST", CM, "application/json", "{\"metadata\":{}}", 422, "Invalid"),
                arguments("an invalid label is a 422", "POST", CM, "application/json",
                        "{\"metadata\":{\"name\":\"x\",\"labels\":{\"bad key!\":\"v\"}}}", 422, "Invalid"),
                arguments("a string where an object belongs is a 400", "POST", CM, "application/json",
                        "{\"metadata\":{\"name\":\"x\"},\"data\":\"nope\"}", 400, "BadRequest"),
                arguments("a deployment without containers is a 422", "POST", DEPLOY, "application/json",
                        "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},"
                                + "\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{}}}}", 422, "Invalid"),
                arguments("a selector that does not match the template is a 422", "POST", DEPLOY, "application/json",
                        "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},"
                                + "\"template\":{\"metadata\":{\"labels\":{\"a\":\"c\"}},\"spec\":{\"containers\":"
                                + "[{\"name\":\"c\",\"image\":\"i\"}]}}}}", 422, "Invalid"),
                arguments("a resourceVersion on create is a 400", "POST", CM, "application/json",
                        "{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"5\"}}", 400, "BadRequest"),
                arguments("a stale resourceVersion on update is a 409", "PUT", CM + "/existing", "application/json",
                        "{\"metadata\":{\"name\":\"existing\",\"resourceVersion\":\"1\"},\"data\":{\"k\":\"w\"}}", 409,
                        "Conflict"),
                arguments("an unparsable resourceVersion is a 400", "PUT", CM + "/existing", "application/json",
                        "{\"metadata\":{\"name\":\"existing\",\"resourceVersion\":\"abc\"}}", 400, "BadRequest"),
                arguments("an unknown body media type is a 415", "POST", CM, "text/plain", "hello", 415,
                        "UnsupportedMediaType"),
                arguments("an unknown patch type is a 415", "PATCH", CM + "/existing", "application/json", "{}", 415,
                        "UnsupportedMediaType"),
                arguments("a JSON patch that is not a list is a 400", "PATCH", CM + "/existing",
                        "application/json-patch+json", "{\"op\":\"add\"}", 400, "BadRequest"),
                arguments("a JSON patch on a missing path is a 422", "PATCH", CM + "/existing",
                        "application/json-patch+json", "[{\"op\":\"remove\",\"path\":\"/nope/deeper\"}]", 422, "Invalid"),
                arguments("a body over 3 MiB is a 413", "POST", CM, "application/json", big, 413,
                        "RequestEntityTooLarge"),
                arguments("an unknown resource is a 404", "GET", "/api/v1/namespaces/" + NS + "/widgets", null, null, 404,
                        "NotFound"),
                arguments("an unknown group is a 404", "GET", "/apis/example.com/v1/widgets", null, null, 404, "NotFound"),
                arguments("a missing object is a 404", "GET", CM + "/missing", null, null, 404, "NotFound"),
                arguments("an unsupported method is a 405", "PUT", CM, "application/json", "{}", 405, "MethodNotAllowed"),
                arguments("a subresource a kind does not have is a 404", "GET", CM + "/existing/scale", null, null, 404,
                        "NotFound"),
                arguments("a bad label selector is a 400", "GET", CM + "?labelSelector=a%20in%20b", null, null, 400,
                        "BadRequest"),
                arguments("an unsupported field selector is a 400", "GET", CM + "?fieldSelector=data.k%3Dv", null, null,
                        400, "BadRequest"),
                arguments("a bad limit is a 400", "GET", CM + "?limit=many", null, null, 400, "BadRequest"),
                arguments("a bad fieldValidation is a 400", "POST", CM + "?fieldValidation=Loud", "application/json",
                        "{\"metadata\":{\"name\":\"x\"}}", 400, "BadRequest"),
                arguments("a bad propagationPolicy is a 400", "DELETE", CM + "/existing", "application/json",
                        "{\"propagationPolicy\":\"Sideways\"}", 400, "BadRequest"),
                arguments("a delete body that is not DeleteOptions is a 400", "DELETE", CM + "/existing",
                        "application/json", "{\"kind\":\"Pod\"}", 400, "BadRequest"),
                arguments("a path with .. is a 400", "GET", "/api/v1/namespaces/" + NS + "/../kube-system/configmaps",
                        null, null, 400, "BadRequest"),
                arguments("a path with // is a 400", "GET", "/api/v1//namespaces", null, null, 400, "BadRequest"),
                arguments("a path with ; is a 400", "GET", "/api/v1/namespaces;x=y", null, null, 400, "BadRequest"),
                arguments("a path with an encoded dot is a 400", "GET", "/api/v1/namespaces/%2e%2e/configmaps", null,
                        null, 400, "BadRequest"),
                arguments("/error asked for is a path this server does not serve", "GET", "/error", null, null, 404,
                        "NotFound"),
                arguments("a content type that is only parameters is a 415", "POST", CM, ";", "{}", 415,
                        "UnsupportedMediaType"),
                arguments("a secret's data that is not base64 is a 400", "POST", "/api/v1/namespaces/" + NS + "/secrets",
                        "application/json", "{\"metadata\":{\"name\":\"s\"},\"data\":{\"k\":\"not base64!\"}}", 400,
                        "BadRequest"),
                arguments("an int32 field past its range is a 400", "POST", DEPLOY, "application/json",
                        "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":3000000000}}", 400, "BadRequest"),
                arguments("a float where an integer belongs is a 400", "POST", DEPLOY, "application/json",
                        "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":1.5}}", 400, "BadRequest"),
                arguments("a number past a double's range is a 400", "POST", DEPLOY, "application/json",
                        "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":1e400}}", 400, "BadRequest"),
                arguments("an int64 field past its range is a 400", "POST", "/api/v1/namespaces/" + NS + "/pods",
                        "application/json", "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"terminationGracePeriodSeconds\":"
                                + "99999999999999999999,\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}", 400, "BadRequest"),
                arguments("a negative request is a 422", "POST", "/api/v1/namespaces/" + NS + "/pods", "application/json",
                        "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\","
                                + "\"resources\":{\"requests\":{\"cpu\":\"-1\"}}}]}}", 422, "Invalid"),
                arguments("a request above its limit is a 422", "POST", "/api/v1/namespaces/" + NS + "/pods",
                        "application/json", "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                                + "\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2\"},\"limits\":{\"cpu\":\"1\"}}}]}}",
                        422, "Invalid"),
                arguments("a quantity with an absurd exponent is a 422, at once", "POST", "/api/v1/namespaces/" + NS
                        + "/pods", "application/json", "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{"
                        + "\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1e10000000\"}}}]}}", 422,
                        "Invalid"));
    }

    /**
     * What the requests could have changed: the ConfigMaps and Deployments of the namespace
     * with their resourceVersions. (Not the store's revision: the controllers write too.)
     */
    private String contents() {
        StringBuilder sb = new StringBuilder();
        for (String path : new String[] {CM, DEPLOY}) {
            for (var item : get(path).json().path("items")) {
                sb.append(item.path("metadata").path("name").asString()).append('@')
                        .append(item.path("metadata").path("resourceVersion").asString()).append(' ');
            }
        }
        return sb.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void badInputGetsAStatusAndChangesNothing(String why, String method, String path, String contentType, String body,
                                              int code, String reason) {
        String before = contents();
        Response r = call(method, path, contentType, body);
        assertThat(r.code()).as(r.body()).isEqualTo(code);
        assertThat(r.headers().firstValue("Content-Type")).get().asString().startsWith("application/json");
        assertThat(r.text("kind")).isEqualTo("Status");
        assertThat(r.text("apiVersion")).isEqualTo("v1");
        assertThat(r.text("status")).isEqualTo("Failure");
        assertThat(r.text("reason")).isEqualTo(reason);
        assertThat(r.text("code")).isEqualTo(Integer.toString(code));
        assertThat(r.text("message")).isNotBlank().doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(contents()).as("nothing was stored").isEqualTo(before);
        if (code == 422 && r.json().at("/details/causes").size() > 0) {
            assertThat(r.json().at("/details/causes/0/field").asString()).isNotEmpty();
        }
    }

    @ParameterizedTest(name = "without credentials: {0} {1}")
    @MethodSource("unauthenticated")
    void requestsWithoutCredentialsAre401(String method, String path) {
        Response r = call(method, path, "application/json", "{}", "application/json", false);
        assertThat(r.code()).isEqualTo(401);
        assertThat(r.text("kind")).isEqualTo("Status");
        assertThat(r.text("reason")).isEqualTo("Unauthorized");
    }

    static Stream<Arguments> unauthenticated() {
        return Stream.of(arguments("GET", CM), arguments("POST", CM), arguments("GET", "/api"),
                arguments("GET", "/apis/apps/v1"), arguments("GET", "/openapi/v3"));
    }

    @Test
    void headersUpToTheLimitAreServedLargerOnesAndWhatTheContainerRefusesAreAStatus() throws Exception {
        Response big = callWithHeaders(token(), "GET", CM, null, null, "application/json",
                "X-Big", "x".repeat(60 * 1024));
        assertThat(big.code()).isEqualTo(200);
        try (Socket s = new Socket("127.0.0.1", endpoints.httpPort())) {
            s.getOutputStream().write(("GET /api/v1 HTTP/1.1\r\nHost: x\r\nX-Big: " + "x".repeat(70 * 1024)
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 431").contains("Content-Type: application/json")
                    .contains("\"kind\":\"Status\"", "\"code\":431").doesNotContain("<html");
        }
        try (Socket s = new Socket("127.0.0.1", endpoints.httpPort())) {
            s.getOutputStream().write("GET /api/v1 HTTP/1.1\r\nHost: x\r\nthis line is no header\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 400").contains("Content-Type: application/json")
                    .contains("\"kind\":\"Status\"", "\"reason\":\"BadRequest\"").doesNotContain("<html");
        }
    }

    /**
     * A header value with bytes from 0x80 up (HTTP's obs-text) is taken, as kube-apiserver's Go server takes it,
     * also where the server reads it (User-Agent; Spring's firewall answered a 400 about the path); one with a
     * control character (DEL) is a 400 Status.
     */
    @Test
    void headerValuesAreJudgedAsKubeApiserverJudgesThem() throws Exception {
        assertThat(raw("User-Agent: kubectl\u0085x")).startsWith("HTTP/1.1 200").contains("\"kind\":\"ConfigMapList\"");
        assertThat(raw("User-Agent: kubectl\u007fx")).startsWith("HTTP/1.1 400")
                .contains("\"kind\":\"Status\"", "\"reason\":\"BadRequest\"").doesNotContain("canonical");
    }

    /** A GET of the config map list over the plain port with the header given, sent as ISO-8859-1 bytes. */
    private String raw(String header) throws Exception {
        try (Socket s = new Socket("127.0.0.1", endpoints.httpPort())) {
            s.getOutputStream().write(("GET " + CM + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token()
                    + "\r\n" + header + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static Stream<Arguments> decodingErrors() {
        return Stream.of(
                arguments(CM, "application/json", "{bad", "the object provided is unrecognized (must be of type"
                        + " ConfigMap): couldn't get version/kind; json parse error: invalid character 'b' looking for"
                        + " beginning of object key string ({bad)"),
                arguments(CM, "application/json", "[1,2]", "the object provided is unrecognized (must be of type"
                        + " ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go"
                        + " value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string"
                        + " \"json:\\\"kind,omitempty\\\"\" } (5b312c325d)"),
                arguments(CM, "application/json", "{\"metadata\":{\"name\":\"a\"}} {}", "the object provided is"
                        + " unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid"
                        + " character '{' after top-level value ({\"metadata\":{\"name\":\"a\"}} {})"),
                arguments(CM, "application/json", "", "the object provided is unrecognized (must be of type ConfigMap):"
                        + " couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)"),
                arguments(DEPLOY, "application/json", "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":3000000000}}",
                        "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal number"
                        + " 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32"),
                arguments(DEPLOY, "application/json", "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"template\":{\"spec\":"
                        + "{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":\"80\"}]}]}}}}",
                        "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into"
                        + " Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32"),
                arguments("/api/v1/namespaces/" + NS + "/secrets", "application/json",
                        "{\"metadata\":{\"name\":\"s\"},\"data\":{\"k\":\"abc!\"}}", "Secret in version \"v1\" cannot be"
                        + " handled as a Secret: illegal base64 data at input byte 3"));
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("decodingErrors")
    void aBodyThatDoesNotDecodeIsRefusedInKubeApiserversWords(String path, String contentType, String body,
                                                              String message) {
        Response r = call("POST", path, contentType, body);
        assertThat(r.code()).as(r.body()).isEqualTo(400);
        assertThat(r.text("message")).isEqualTo(message);
    }

    @Test
    void subresourceBodiesAreDecodedAsStrictlyAsObjects() {
        createNamespace("malformed-scale");
        String deployments = "/apis/apps/v1/namespaces/malformed-scale/deployments";
        post(deployments, "{\"metadata\":{\"name\":\"scaled\"},\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},"
                + "\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
                + "\"image\":\"i\"}]}}}}");
        Response scale = put(deployments + "/scaled/scale", "{\"spec\":{\"replicas\":3000000000}}");
        assertThat(scale.code()).isEqualTo(400);
        assertThat(scale.text("message")).isEqualTo("Scale in version \"v1\" cannot be handled as a Scale: json: cannot"
                + " unmarshal number 3000000000 into Go struct field ScaleSpec.spec.replicas of type int32");
        Response patched = patch(deployments + "/scaled/scale", "application/merge-patch+json",
                "{\"spec\":{\"replicas\":99999999999999999999}}");
        assertThat(patched.code()).isEqualTo(400);
        assertThat(get(deployments + "/scaled").json().at("/spec/replicas").asInt()).isEqualTo(1);
        post("/api/v1/namespaces/" + NS + "/serviceaccounts", "{\"metadata\":{\"name\":\"tok\"}}");
        Response token = post("/api/v1/namespaces/" + NS + "/serviceaccounts/tok/token",
                "{\"spec\":{\"expirationSeconds\":99999999999999999999}}");
        assertThat(token.code()).isEqualTo(400);
        assertThat(token.text("message")).isEqualTo("TokenRequest in version \"v1\" cannot be handled as a TokenRequest:"
                + " json: cannot unmarshal number 99999999999999999999 into Go struct field"
                + " TokenRequestSpec.spec.expirationSeconds of type int64");
    }
}

package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status line as Go's net/http writes it, reason phrase included, on both ports: the
 * Kubernetes Python client shows the phrase ("Error from server (Conflict)").
 */
class StatusLineTest extends ApiTestSupport {

    @Test
    void theStatusLineCarriesGosReasonPhraseOverHttp() throws Exception {
        createNamespace("status-line");
        String cm = "/api/v1/namespaces/status-line/configmaps";
        assertThat(statusLine(new Socket("127.0.0.1", endpoints.httpPort()), "GET", cm, null))
                .isEqualTo("HTTP/1.1 200 OK");
        assertThat(statusLine(new Socket("127.0.0.1", endpoints.httpPort()), "POST", cm, "{\"metadata\":{\"name\":\"a\"}}"))
                .isEqualTo("HTTP/1.1 201 Created");
        assertThat(statusLine(new Socket("127.0.0.1", endpoints.httpPort()), "POST", cm, "{\"metadata\":{\"name\":\"a\"}}"))
                .isEqualTo("HTTP/1.1 409 Conflict");
        assertThat(statusLine(new Socket("127.0.0.1", endpoints.httpPort()), "POST", cm, "{\"metadata\":{\"name\":\"A\"}}"))
                .isEqualTo("HTTP/1.1 422 Unprocessable Entity");
        assertThat(statusLine(new Socket("127.0.0.1", endpoints.httpPort()), "GET", cm + "/absent", null))
                .isEqualTo("HTTP/1.1 404 Not Found");
        assertThat(statusLine(new Socket("127.0.0.1", endpoints.httpPort()), "PUT", "/version", null))
                .startsWith("HTTP/1.1 405 Method Not Allowed");
    }

    @Test
    void theStatusLineCarriesGosReasonPhraseOverHttps() throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[]{new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", endpoints.httpsPort());
        assertThat(statusLine(s, "GET", "/api/v1/namespaces/default/configmaps/absent", null))
                .isEqualTo("HTTP/1.1 404 Not Found");
        SSLSocket anonymous = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", endpoints.httpsPort());
        assertThat(statusLineAs(anonymous, "Bearer not-a-token")).isEqualTo("HTTP/1.1 401 Unauthorized");
    }

    private String statusLine(Socket s, String method, String path, String body) throws IOException {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        return exchange(s, method + " " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token()
                + "\r\nConnection: close\r\n"
                + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n")
                + "\r\n", bytes);
    }

    private static String statusLineAs(Socket s, String authorization) throws IOException {
        return exchange(s, "GET /api HTTP/1.1\r\nHost: x\r\nAuthorization: " + authorization
                + "\r\nConnection: close\r\n\r\n", new byte[0]);
    }

    private static String exchange(Socket s, String head, byte[] body) throws IOException {
        try (s) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                line.append((char) c);
            }
            assertThat(line.toString()).endsWith("\r");
            return line.substring(0, line.length() - 1);
        }
    }
}

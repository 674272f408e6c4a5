package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.auth.ClusterPki;
import org.apache.catalina.connector.Connector;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * Adds the HTTPS port kubectl talks to, next to the plain HTTP port: the serving
 * certificate from the cluster PKI, client certificates requested but optional (token
 * clients need none), taken whatever they are and judged by the x509 authenticator, and
 * HTTP/2 offered next to HTTP/1.1.
 */
@Component
class HttpsConnector implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

    private final ClusterPki pki;
    private final ApiServerProperties props;
    private final int maxThreads;

    HttpsConnector(ClusterPki pki, ApiServerProperties props, @Value("${server.tomcat.threads.max:500}") int maxThreads) {
        this.pki = pki;
        this.props = props;
        this.maxThreads = maxThreads;
    }

    /**
     * What both ports share. Request bodies are read without blocking
     * ({@link RequestBodyFilter}); the container must not read one in blocking mode behind
     * the application's back: no form parameters parsed from a body, and the unread body of
     * a refused request never drained ("swallowed") by a request thread: that connection
     * is closed instead. Headers may take what {@code max-request-header-bytes} allows:
     * the container holds a buffer that large for each open request, where Go's server
     * (kube-apiserver's limit is 1 MiB) grows one as the headers come, so the limit is
     * lower by default and raised only where such headers are sent.
     */
    private void servingPolicy(Connector connector) {
        connector.setParseBodyMethods("");
        connector.setProperty("maxSwallowSize", "0");
        if (connector.getProtocolHandler() instanceof AbstractHttp11Protocol<?> http) {
            http.setMaxHttpRequestHeaderSize(props.maxRequestHeaderBytes());
            http.setMaxHeaderCount(-1);
        }
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.setProtocol(ReasonPhraseProtocol.class.getName());
        factory.addConnectorCustomizers(this::servingPolicy);
        factory.addContextCustomizers(context -> context.getParent().getPipeline().addValve(
                new StatusErrorValve(props.maxRequestHeaderBytes())));
        Connector https = new Connector(ReasonPhraseProtocol.class.getName());
        servingPolicy(https);
        https.setScheme("https");
        https.setSecure(true);
        https.setPort(props.httpsPort());
        https.setProperty("address", props.httpsAddress());
        https.setProperty("SSLEnabled", "true");
        https.setProperty("sslImplementationName", ClientCertificatesJudgedLater.class.getName());
        https.setProperty("maxThreads", Integer.toString(maxThreads));
        https.setProperty("maxKeepAliveRequests", "-1");
        SSLHostConfig ssl = new SSLHostConfig();
        ssl.setHostName("_default_");
        // A client certificate is asked for (the cluster CA named as its issuer), and any the client sends is taken
        // in the handshake and judged by the x509 authenticator (ClientCertificatesJudgedLater), so one from
        // another CA, or one not meant for clients, gets a 401 Status (as from kube-apiserver), not a TLS alert.
        ssl.setCertificateVerification("optional_no_ca");
        ssl.setTrustStore(pki.clientTrustStore());
        ssl.setProtocols("TLSv1.2+TLSv1.3");
        SSLHostConfigCertificate cert = new SSLHostConfigCertificate(ssl, SSLHostConfigCertificate.Type.UNDEFINED);
        cert.setCertificateKeystore(pki.servingKeyStore());
        cert.setCertificateKeyAlias("apiserver");
        cert.setCertificateKeystorePassword("");
        cert.setCertificateKeyPassword("");
        ssl.addCertificate(cert);
        https.addSslHostConfig(ssl);
        https.addUpgradeProtocol(http2());
        factory.addAdditionalConnectors(https);
    }

    /**
     * HTTP/2 on the HTTPS port (ALPN {@code h2}, HTTP/1.1 still offered), as kube-apiserver
     * serves it: kubectl and client-go multiplex their requests and watches over one
     * connection. A connection carries as many streams at once as Go's server allows (250,
     * kube-apiserver's default), each running at once (a watch holds its stream for its
     * whole life); headers are limited as on HTTP/1.1 (Tomcat takes the limit from there).
     */
    private Http2Protocol http2() {
        Http2Protocol h2 = new Http2Protocol();
        h2.setMaxConcurrentStreams(HTTP2_STREAMS);
        h2.setMaxConcurrentStreamExecution(HTTP2_STREAMS);
        h2.setMaxHeaderCount(-1);
        // Each stream its own request and response objects, never ones another stream used: Tomcat hands a
        // finished stream's objects to the next stream, and when a client resets a watch mid-turn (kubectl's
        // rollout status, logs, attach) it could hand them on before that stream was done with them — the next
        // request on any connection then failed inside Tomcat ("Mapping was already done on this request") and
        // its client got 500 with an empty body (1 in 6 kubectl commands right after a rollout status).
        h2.setDiscardRequestsAndResponses(true);
        return h2;
    }

    /** Streams at once on one HTTP/2 connection (Go's http2 server default, which kube-apiserver keeps). */
    static final int HTTP2_STREAMS = 250;

    /** The port the HTTPS connector listens on (useful when configured as 0). */
    static int httpsPort(WebServer server) {
        if (server instanceof TomcatWebServer tomcat) {
            for (Connector c : tomcat.getTomcat().getService().findConnectors()) {
                if ("https".equals(c.getScheme())) {
                    return c.getLocalPort();
                }
            }
        }
        return -1;
    }
}

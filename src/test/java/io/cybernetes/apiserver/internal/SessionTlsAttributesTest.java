package io.cybernetes.apiserver.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.cybernetes.TestCertificates;
import java.lang.reflect.Proxy;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLSession;
import org.apache.tomcat.util.net.SSLSupport;
import org.apache.tomcat.util.net.jsse.JSSESupport;
import org.junit.jupiter.api.Test;

class SessionTlsAttributesTest {

    /** A TLS session that counts what is asked of it, and keeps bound values as a real one does. */
    private static final class CountingSession {
        final Map<String, Integer> calls = new ConcurrentHashMap<>();
        final Map<String, Object> values = new ConcurrentHashMap<>();
        final SSLSession session;

        CountingSession(byte[] id, Certificate[] peer) {
            session = (SSLSession) Proxy.newProxyInstance(SSLSession.class.getClassLoader(),
                    new Class<?>[] {SSLSession.class}, (proxy, method, args) -> {
                        calls.merge(method.getName(), 1, Integer::sum);
                        return switch (method.getName()) {
                            case "getId" -> id.clone();
                            case "getCipherSuite" -> "TLS_AES_128_GCM_SHA256";
                            case "getProtocol" -> "TLSv1.3";
                            case "getPeerCertificates" -> {
                                if (peer == null) {
                                    throw new javax.net.ssl.SSLPeerUnverifiedException("no certificate");
                                }
                                yield peer.clone();
                            }
                            case "getValue" -> values.get((String) args[0]);
                            case "putValue" -> {
                                values.put((String) args[0], args[1]);
                                yield null;
                            }
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> throw new UnsupportedOperationException(method.getName());
                        };
                    });
        }
    }

    private static Map<String, List<String>> offers(String... ciphers) {
        Map<String, List<String>> m = new HashMap<>();
        m.put(SSLSupport.REQUESTED_CIPHERS_KEY, new ArrayList<>(List.of(ciphers)));
        m.put(SSLSupport.REQUESTED_PROTOCOL_VERSIONS_KEY, new ArrayList<>(List.of("TLSv1.3", "TLSv1.2")));
        return m;
    }

    @Test
    void theAttributesAreThoseTomcatGivesAndWorkedOutOncePerSession() throws Exception {
        X509Certificate cert = TestCertificates.forLocalhost().ca();
        CountingSession s = new CountingSession(new byte[] {1, 2, (byte) 0xfe}, new Certificate[] {cert});
        Map<String, List<String>> handshake = offers("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384");
        JSSESupport plain = new JSSESupport(s.session, handshake);
        SessionTlsAttributes implementation = new SessionTlsAttributes();

        for (int request = 0; request < 3; request++) {
            // Tomcat asks a new SSLSupport for every request on the connection
            SSLSupport cached = implementation.getSSLSupport(s.session, handshake);
            assertThat(cached.getCipherSuite()).isEqualTo(plain.getCipherSuite());
            assertThat(cached.getPeerCertificateChain()).containsExactly(plain.getPeerCertificateChain());
            assertThat(cached.getKeySize()).isEqualTo(plain.getKeySize()).isEqualTo(128);
            assertThat(cached.getSessionId()).isEqualTo(plain.getSessionId()).isEqualTo("0102fe");
            assertThat(cached.getProtocol()).isEqualTo(plain.getProtocol());
            assertThat(cached.getRequestedCiphers()).isEqualTo(plain.getRequestedCiphers())
                    .isEqualTo("TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384");
            assertThat(cached.getRequestedProtocols()).isEqualTo(plain.getRequestedProtocols());
        }
        // the session was asked once by the cache (the rest are the plain support's three rounds)
        assertThat(s.calls.get("getPeerCertificates")).isEqualTo(1 + 3);
        assertThat(s.calls.get("getId")).isEqualTo(1 + 3);
        // and each request looked its session's attributes up once, not once for each attribute
        assertThat(s.calls.get("getValue")).isEqualTo(3);

        // a caller changing the chain it got does not change the next request's
        SSLSupport one = implementation.getSSLSupport(s.session, handshake);
        one.getPeerCertificateChain()[0] = null;
        assertThat(implementation.getSSLSupport(s.session, handshake).getPeerCertificateChain()).containsExactly(cert);
    }

    @Test
    void anotherHandshakeOnTheSameSessionHasItsOwnOffersAndAnotherSessionItsOwnEverything() throws Exception {
        CountingSession s = new CountingSession(new byte[] {7}, null);
        SessionTlsAttributes implementation = new SessionTlsAttributes();
        assertThat(implementation.getSSLSupport(s.session, offers("A", "B")).getRequestedCiphers()).isEqualTo("A,B");
        // a TLS 1.2 session resumed by another connection: that connection's ClientHello offered other suites
        assertThat(implementation.getSSLSupport(s.session, offers("C")).getRequestedCiphers()).isEqualTo("C");
        assertThat(implementation.getSSLSupport(s.session, offers("C")).getPeerCertificateChain()).isNull();

        CountingSession other = new CountingSession(new byte[] {8}, null);
        SSLSupport renegotiated = implementation.getSSLSupport(s.session, offers("A"));
        assertThat(renegotiated.getSessionId()).isEqualTo("07");
        ((JSSESupport) renegotiated).setSession(other.session);
        assertThat(renegotiated.getSessionId()).isEqualTo("08");
        assertThat(implementation.getSSLSupport(null, offers("A")).getCipherSuite()).isNull();
    }
}

package io.cybernetes.apiserver.internal;

import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSession;
import org.apache.tomcat.util.net.SSLSupport;
import org.apache.tomcat.util.net.jsse.JSSEImplementation;
import org.apache.tomcat.util.net.jsse.JSSESupport;

/**
 * Tomcat's JSSE implementation, with what it reads from a TLS session worked out once per session
 * rather than for every request.
 *
 * <p>The authentication filter asks every request for its client certificate (the first
 * authenticator, as in kube-apiserver), and Tomcat answers the first question about any TLS
 * attribute by filling in all of them: the client's offered cipher suites and protocols joined into
 * strings, the session id in hex, the peer's chain converted, from a new {@link SSLSupport} made for
 * each request. On a kept-alive connection (or an HTTP/2 one, with hundreds of streams) these are
 * the same for every request; here they are kept with the session ({@link SSLSession#putValue}), and
 * the joined offers with the very lists of the handshake they came from, so a session resumed by
 * another connection (TLS 1.2) recomputes those. Used as the HTTPS connector's
 * {@code sslImplementationName}, which Tomcat instantiates by name.
 */
public class SessionTlsAttributes extends JSSEImplementation {

    @Override
    public SSLSupport getSSLSupport(SSLSession session, Map<String, List<String>> additionalAttributes) {
        return new Support(session, additionalAttributes);
    }

    /** The name the derived attributes are bound under in a session. */
    static final String SESSION_VALUE = SessionTlsAttributes.class.getName();

    /** A request's view of its connection's TLS session; what it derives is shared through the session. */
    static final class Support extends JSSESupport {

        private final Map<String, List<String>> additionalAttributes;
        private volatile SSLSession session;
        /** The session's attributes as this request last looked them up. */
        private volatile Derived looked;

        Support(SSLSession session, Map<String, List<String>> additionalAttributes) {
            super(session, additionalAttributes);
            this.session = session;
            this.additionalAttributes = additionalAttributes;
        }

        @Override
        public void setSession(SSLSession session) {
            super.setSession(session);
            this.session = session;
        }

        @Override
        public String getCipherSuite() throws IOException {
            Derived d = derived();
            return d == null ? super.getCipherSuite() : d.cipherSuite;
        }

        @Override
        public X509Certificate[] getPeerCertificateChain() throws IOException {
            Derived d = derived();
            if (d == null) {
                return super.getPeerCertificateChain();
            }
            return d.peerChain == null ? null : d.peerChain.clone();
        }

        @Override
        public Integer getKeySize() throws IOException {
            Derived d = derived();
            return d == null ? super.getKeySize() : d.keySize;
        }

        @Override
        public String getSessionId() throws IOException {
            Derived d = derived();
            return d == null ? super.getSessionId() : d.sessionId;
        }

        @Override
        public String getProtocol() throws IOException {
            Derived d = derived();
            return d == null ? super.getProtocol() : d.protocol;
        }

        @Override
        public String getRequestedProtocols() throws IOException {
            Derived d = derived();
            if (d == null) {
                return super.getRequestedProtocols();
            }
            List<String> offered = offered(REQUESTED_PROTOCOL_VERSIONS_KEY);
            Joined j = d.requestedProtocols;
            if (j == null || j.from != offered) {
                d.requestedProtocols = j = new Joined(offered, super.getRequestedProtocols());
            }
            return j.joined;
        }

        @Override
        public String getRequestedCiphers() throws IOException {
            Derived d = derived();
            if (d == null) {
                return super.getRequestedCiphers();
            }
            List<String> offered = offered(REQUESTED_CIPHERS_KEY);
            Joined j = d.requestedCiphers;
            if (j == null || j.from != offered) {
                d.requestedCiphers = j = new Joined(offered, super.getRequestedCiphers());
            }
            return j.joined;
        }

        private List<String> offered(String key) {
            return additionalAttributes == null ? null : additionalAttributes.get(key);
        }

        /** The session's derived attributes, worked out by the first request that asks; null without a session. */
        private Derived derived() throws IOException {
            SSLSession s = session;
            if (s == null) {
                return null;
            }
            Derived d = looked;
            if (d != null && d.session == s) {
                return d; // Tomcat asks for each attribute in turn: the session is looked up once for all
            }
            if (s.getValue(SESSION_VALUE) instanceof Derived bound) {
                d = bound;
            } else {
                d = new Derived(s, super.getCipherSuite(), super.getPeerCertificateChain(), super.getKeySize(),
                        super.getSessionId(), super.getProtocol());
                s.putValue(SESSION_VALUE, d);
            }
            looked = d;
            return d;
        }
    }

    /** What a session's attributes are, once worked out; two requests racing both work them out, alike. */
    static final class Derived {
        final SSLSession session;
        final String cipherSuite;
        final X509Certificate[] peerChain;
        final Integer keySize;
        final String sessionId;
        final String protocol;
        volatile Joined requestedProtocols;
        volatile Joined requestedCiphers;

        Derived(SSLSession session, String cipherSuite, X509Certificate[] peerChain, Integer keySize, String sessionId,
                String protocol) {
            this.session = session;
            this.cipherSuite = cipherSuite;
            this.peerChain = peerChain;
            this.keySize = keySize;
            this.sessionId = sessionId;
            this.protocol = protocol;
        }
    }

    /** A handshake's offers joined, with the list they were joined from (compared by identity). */
    record Joined(List<String> from, String joined) {
    }
}

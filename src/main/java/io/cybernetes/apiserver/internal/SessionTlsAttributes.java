package io.cybernetes.apiserver.internal;

import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
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
            return attribute(d -> d.cipherSuite, super::getCipherSuite);
        }

        @Override
        public X509Certificate[] getPeerCertificateChain() throws IOException {
            X509Certificate[] chain = attribute(d -> d.peerChain, super::getPeerCertificateChain);
            return chain == null ? null : chain.clone(); // the session's own stays as it is, whatever a caller does
        }

        @Override
        public Integer getKeySize() throws IOException {
            return attribute(d -> d.keySize, super::getKeySize);
        }

        @Override
        public String getSessionId() throws IOException {
            return attribute(d -> d.sessionId, super::getSessionId);
        }

        @Override
        public String getProtocol() throws IOException {
            return attribute(d -> d.protocol, super::getProtocol);
        }

        @Override
        public String getRequestedProtocols() throws IOException {
            Offers offers = attribute(d -> d.requestedProtocols, () -> null);
            return offers == null ? super.getRequestedProtocols()
                    : offers.joined(offered(REQUESTED_PROTOCOL_VERSIONS_KEY), super::getRequestedProtocols);
        }

        @Override
        public String getRequestedCiphers() throws IOException {
            Offers offers = attribute(d -> d.requestedCiphers, () -> null);
            return offers == null ? super.getRequestedCiphers()
                    : offers.joined(offered(REQUESTED_CIPHERS_KEY), super::getRequestedCiphers);
        }

        /** One of the session's attributes, or Tomcat's own answer when there is no session. */
        private <T> T attribute(Function<Derived, T> of, Lookup<T> withoutSession)
                throws IOException {
            Derived d = derived();
            return d == null ? withoutSession.get() : of.apply(d);
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
        final Offers requestedProtocols = new Offers();
        final Offers requestedCiphers = new Offers();

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

    /** A handshake's offers joined, kept with the list they were joined from (compared by identity). */
    static final class Offers {
        private record Joined(List<String> from, String joined) {
        }

        private volatile Joined last;

        String joined(List<String> offered, Lookup<String> join) throws IOException {
            Joined j = last;
            if (j == null || j.from() != offered) {
                last = j = new Joined(offered, join.get());
            }
            return j.joined();
        }
    }

    /** One of Tomcat's own TLS lookups, which may fail. */
    @FunctionalInterface
    interface Lookup<T> {
        T get() throws IOException;
    }
}

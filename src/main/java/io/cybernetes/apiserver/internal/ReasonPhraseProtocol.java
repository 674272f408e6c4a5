package io.cybernetes.apiserver.internal;

import org.apache.coyote.Processor;
import org.apache.coyote.Response;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.coyote.http11.Http11OutputBuffer;
import org.apache.coyote.http11.Http11Processor;
import org.apache.coyote.http11.OutputFilter;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Tomcat's HTTP/1.1 protocol with the status line Go's {@code net/http} writes, reason
 * phrase included ({@code HTTP/1.1 409 Conflict}): Tomcat leaves it out, and clients show
 * it (the Kubernetes Python client's {@code ApiException.reason}, "Error from server
 * (Conflict)"). Both ports use it.
 *
 * <p>Tomcat builds a processor's output buffer in the processor's constructor and offers
 * no way to replace it: this protocol builds its processors as Tomcat does and then swaps
 * in an output buffer that writes the phrase, taking over the filters Tomcat set up.
 * Instantiated by Tomcat by name, so it is public with a public constructor.
 */
public class ReasonPhraseProtocol extends Http11NioProtocol {

    private static final Field OUTPUT_BUFFER = outputBufferField();

    @Override
    protected Processor createProcessor() {
        Http11Processor processor = (Http11Processor) super.createProcessor();
        try {
            Http11OutputBuffer tomcats = (Http11OutputBuffer) OUTPUT_BUFFER.get(processor);
            Response response = processor.getRequest().getResponse();
            WithReasonPhrase ours = new WithReasonPhrase(response, getMaxHttpResponseHeaderSize());
            for (OutputFilter filter : tomcats.getFilters()) {
                ours.addFilter(filter);
            }
            OUTPUT_BUFFER.set(processor, ours);
            response.setOutputBuffer(ours);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot set the output buffer of Tomcat's HTTP/1.1 processor", e);
        }
        return processor;
    }

    private static Field outputBufferField() {
        try {
            Field f = Http11Processor.class.getDeclaredField("outputBuffer");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("Tomcat's HTTP/1.1 processor has no output buffer", e);
        }
    }

    /** Tomcat's output buffer, writing the status line with its reason phrase. */
    static final class WithReasonPhrase extends Http11OutputBuffer {

        WithReasonPhrase(Response response, int headerBufferSize) {
            super(response, headerBufferSize);
        }

        @Override
        public void sendStatus(int status) {
            write(statusLine(status));
        }
    }

    /** {@code HTTP/1.1 <code> <phrase>} and its line end, as Go writes it. */
    static byte[] statusLine(int status) {
        String phrase = PHRASES.get(status);
        return ("HTTP/1.1 " + status + " " + (phrase != null ? phrase : "status code " + status) + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** The reason phrases of Go's {@code http.StatusText}. */
    static final Map<Integer, String> PHRASES = Map.ofEntries(
            Map.entry(100, "Continue"), Map.entry(101, "Switching Protocols"), Map.entry(102, "Processing"),
            Map.entry(103, "Early Hints"),
            Map.entry(200, "OK"), Map.entry(201, "Created"), Map.entry(202, "Accepted"),
            Map.entry(203, "Non-Authoritative Information"), Map.entry(204, "No Content"),
            Map.entry(205, "Reset Content"), Map.entry(206, "Partial Content"), Map.entry(207, "Multi-Status"),
            Map.entry(208, "Already Reported"), Map.entry(226, "IM Used"),
            Map.entry(300, "Multiple Choices"), Map.entry(301, "Moved Permanently"), Map.entry(302, "Found"),
            Map.entry(303, "See Other"), Map.entry(304, "Not Modified"), Map.entry(305, "Use Proxy"),
            Map.entry(307, "Temporary Redirect"), Map.entry(308, "Permanent Redirect"),
            Map.entry(400, "Bad Request"), Map.entry(401, "Unauthorized"), Map.entry(402, "Payment Required"),
            Map.entry(403, "Forbidden"), Map.entry(404, "Not Found"), Map.entry(405, "Method Not Allowed"),
            Map.entry(406, "Not Acceptable"), Map.entry(407, "Proxy Authentication Required"),
            Map.entry(408, "Request Timeout"), Map.entry(409, "Conflict"), Map.entry(410, "Gone"),
            Map.entry(411, "Length Required"), Map.entry(412, "Precondition Failed"),
            Map.entry(413, "Request Entity Too Large"), Map.entry(414, "Request URI Too Long"),
            Map.entry(415, "Unsupported Media Type"), Map.entry(416, "Requested Range Not Satisfiable"),
            Map.entry(417, "Expectation Failed"), Map.entry(418, "I'm a teapot"),
            Map.entry(421, "Misdirected Request"), Map.entry(422, "Unprocessable Entity"), Map.entry(423, "Locked"),
            Map.entry(424, "Failed Dependency"), Map.entry(425, "Too Early"), Map.entry(426, "Upgrade Required"),
            Map.entry(428, "Precondition Required"), Map.entry(429, "Too Many Requests"),
            Map.entry(431, "Request Header Fields Too Large"), Map.entry(451, "Unavailable For Legal Reasons"),
            Map.entry(500, "Internal Server Error"), Map.entry(501, "Not Implemented"),
            Map.entry(502, "Bad Gateway"), Map.entry(503, "Service Unavailable"), Map.entry(504, "Gateway Timeout"),
            Map.entry(505, "HTTP Version Not Supported"), Map.entry(506, "Variant Also Negotiates"),
            Map.entry(507, "Insufficient Storage"), Map.entry(508, "Loop Detected"), Map.entry(510, "Not Extended"),
            Map.entry(511, "Network Authentication Required"));
}

package io.cybernetes.node;

import io.fabric8.kubernetes.api.model.Pod;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * What a forwarded port of a simulated pod reaches: by default a small HTTP responder on
 * the node that answers every request with the pod's namespace and name, the port and the
 * request's method and path; or, when the pod's annotation {@value #POD_ANNOTATION} (every
 * port) or {@value #PORT_ANNOTATION_PREFIX}{@code <port>} (one) names a local address
 * ({@code 127.0.0.1:9000}, {@code localhost:9000}), that address — so a real process can
 * stand behind a simulated pod. Only loopback addresses are dialled: a pod's author may not
 * make its node connect anywhere else.
 */
final class PortTargets {

    static final String POD_ANNOTATION = "cybernetes.io/port-forward";
    static final String PORT_ANNOTATION_PREFIX = "port-forward.cybernetes.io/";

    /** One forwarded connection: what comes back from the port, what goes to it, and its end. */
    interface Target {
        InputStream from();

        OutputStream to();

        /** No more is sent to the port (the client closed its side). */
        void endInput() throws IOException;

        void close();
    }

    private PortTargets() {
    }

    /** Opens a connection to the pod's port; a refusal comes as an IOException worded for the client. */
    static Target open(Pod pod, int port) throws IOException {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        String address = a == null ? null : a.getOrDefault(PORT_ANNOTATION_PREFIX + port, a.get(POD_ANNOTATION));
        if (address == null || address.isBlank()) {
            return responder(pod, port);
        }
        int colon = address.lastIndexOf(':');
        String host = colon < 0 ? address : address.substring(0, colon);
        int to = colon < 0 ? port : Integer.parseInt(address.substring(colon + 1).trim());
        InetAddress ip = InetAddress.getByName(host.replace("[", "").replace("]", "").trim());
        if (!ip.isLoopbackAddress()) {
            throw new IOException("port forward to " + address + " refused: only a loopback address may stand"
                    + " behind a simulated pod");
        }
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(ip, to), 5000);
        } catch (IOException e) {
            s.close();
            throw new IOException("error forwarding port " + port + " to pod " + pod.getMetadata().getName()
                    + ", uid : failed to connect to " + address + ": " + e.getMessage());
        }
        return new Target() {
            @Override
            public InputStream from() {
                try {
                    return s.getInputStream();
                } catch (IOException e) {
                    return InputStream.nullInputStream();
                }
            }

            @Override
            public OutputStream to() {
                try {
                    return s.getOutputStream();
                } catch (IOException e) {
                    return OutputStream.nullOutputStream();
                }
            }

            @Override
            public void endInput() throws IOException {
                s.shutdownOutput();
            }

            @Override
            public void close() {
                try {
                    s.close();
                } catch (IOException e) {
                    // gone already
                }
            }
        };
    }

    /** The HTTP responder: requests read from what the client sends, answers written back, until it closes. */
    private static Target responder(Pod pod, int port) throws IOException {
        PipedOutputStream toResponder = new PipedOutputStream();
        PipedInputStream requests = new PipedInputStream(toResponder, 64 * 1024);
        PipedInputStream answers = new PipedInputStream(64 * 1024);
        PipedOutputStream fromResponder = new PipedOutputStream(answers);
        Thread t = new Thread(() -> {
            try (requests; fromResponder) {
                serve(pod, port, requests, fromResponder);
            } catch (IOException e) {
                // the client went
            }
        }, "port-forward-responder");
        t.setDaemon(true);
        t.start();
        return new Target() {
            @Override
            public InputStream from() {
                return answers;
            }

            @Override
            public OutputStream to() {
                return toResponder;
            }

            @Override
            public void endInput() throws IOException {
                toResponder.close();
            }

            @Override
            public void close() {
                t.interrupt();
                try {
                    toResponder.close();
                    answers.close();
                } catch (IOException e) {
                    // closed already
                }
            }
        };
    }

    /** Answers HTTP/1.1 requests one after another (keep-alive) until the input ends or one asks to close. */
    static void serve(Pod pod, int port, InputStream in, OutputStream out) throws IOException {
        while (true) {
            String head = readHead(in);
            if (head == null) {
                return;
            }
            String[] lines = head.split("\r\n");
            String[] first = lines[0].split(" ");
            String method = first[0];
            String path = first.length > 1 ? first[1] : "/";
            long length = 0;
            boolean close = first.length > 2 && first[2].equals("HTTP/1.0");
            for (String l : lines) {
                String lower = l.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(l.substring(15).trim());
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
                    close = true;
                }
            }
            in.skipNBytes(length);
            String body = "pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + " port "
                    + port + ": " + method + " " + path + "\n";
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            String response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                    + b.length + "\r\nServer: cybernetes-simulated-pod\r\n" + (close ? "Connection: close\r\n" : "")
                    + "\r\n";
            out.write(response.getBytes(StandardCharsets.ISO_8859_1));
            if (!method.equals("HEAD")) {
                out.write(b);
            }
            out.flush();
            if (close) {
                return;
            }
        }
    }

    /** A request's line and headers, or null at the end of the input. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            if (head.size() > 64 * 1024) {
                return null;
            }
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : b == '\r' ? 1 : 0;
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        return h.substring(0, h.length() - 4);
    }
}

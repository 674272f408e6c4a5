package io.cybernetes.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * etcd from the Debian {@code etcd-server} package, started on 127.0.0.1 with a temporary
 * data directory (one member, or three as a cluster on this machine), and driven the way
 * kube-apiserver's create drives it: one transaction per object that puts the key only if
 * its mod revision is 0 (it does not exist). Requests go to etcd's HTTP/JSON gateway
 * ({@code /v3/kv/txn}, {@code /v3/watch}) over kept-alive connections, one per client: the
 * gateway translates into the same gRPC service kube-apiserver calls, at some cost of its own.
 */
final class EtcdBaseline implements AutoCloseable {

    private static final Base64.Encoder B64 = Base64.getEncoder();

    private final List<Process> members = new ArrayList<>();
    private final int[] clientPorts;
    private final Path dir;
    private final List<Conn> opened = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Conn> conns = new ThreadLocal<>();

    private EtcdBaseline(int size, Path dir) throws IOException {
        this.dir = dir;
        this.clientPorts = new int[size];
        int[] peerPorts = new int[size];
        for (int m = 0; m < size; m++) {
            clientPorts[m] = freePort();
            peerPorts[m] = freePort();
        }
        StringBuilder cluster = new StringBuilder();
        for (int m = 0; m < size; m++) {
            cluster.append(m == 0 ? "" : ",").append("m").append(m).append("=http://127.0.0.1:").append(peerPorts[m]);
        }
        for (int m = 0; m < size; m++) {
            Path data = dir.resolve("m" + m);
            Files.createDirectories(data);
            members.add(new ProcessBuilder("etcd", "--name", "m" + m, "--data-dir", data.toString(),
                    "--listen-client-urls", "http://127.0.0.1:" + clientPorts[m],
                    "--advertise-client-urls", "http://127.0.0.1:" + clientPorts[m],
                    "--listen-peer-urls", "http://127.0.0.1:" + peerPorts[m],
                    "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPorts[m],
                    "--initial-cluster", cluster.toString(), "--initial-cluster-state", "new",
                    "--quota-backend-bytes", Long.toString(8L << 30), "--log-level", "error")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("m" + m + ".log").toFile()).start());
        }
    }

    /** Starts {@code size} members and waits until the cluster answers. */
    static EtcdBaseline start(int size, Path dir) throws Exception {
        EtcdBaseline etcd = new EtcdBaseline(size, dir);
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int port : etcd.clientPorts) {
            while (true) {
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                            + "/health")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200 && r.body().contains("\"true\"")) {
                        break;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                if (System.nanoTime() > deadline) {
                    etcd.close();
                    throw new IllegalStateException("etcd did not become healthy; see " + dir);
                }
                Thread.sleep(100);
            }
        }
        return etcd;
    }

    /** Whether the etcd binary is installed. */
    static boolean installed() {
        return Files.isExecutable(Path.of("/usr/bin/etcd"));
    }

    /**
     * Creates {@code key} with {@code value} if it does not exist (kube-apiserver's create:
     * a transaction comparing the key's mod revision with 0), over this thread's connection,
     * which goes to member {@code thread number mod size}. Returns whether it was created.
     */
    boolean create(String key, String value) throws IOException {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        String body = "{\"compare\":[{\"key\":\"" + B64.encodeToString(k) + "\",\"target\":\"MOD\",\"result\":\"EQUAL\","
                + "\"mod_revision\":\"0\"}],\"success\":[{\"request_put\":{\"key\":\"" + B64.encodeToString(k)
                + "\",\"value\":\"" + B64.encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "\"}}],"
                + "\"failure\":[{\"request_range\":{\"key\":\"" + B64.encodeToString(k) + "\"}}]}";
        String answer = conn().post("/v3/kv/txn", body);
        return answer.contains("\"succeeded\":true");
    }

    private Conn conn() throws IOException {
        Conn c = conns.get();
        if (c == null) {
            c = new Conn(clientPorts[opened.size() % clientPorts.length]);
            conns.set(c);
            opened.add(c);
        }
        return c;
    }

    /**
     * Opens a watch of every key under {@code prefix} on member {@code n mod size}: the
     * stream of its responses (chunked JSON objects whose events carry base64 values).
     */
    InputStream watch(String prefix, int n) throws IOException {
        byte[] start = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] end = start.clone();
        end[end.length - 1]++;
        String body = "{\"create_request\":{\"key\":\"" + B64.encodeToString(start) + "\",\"range_end\":\""
                + B64.encodeToString(end) + "\"}}";
        Socket s = new Socket("127.0.0.1", clientPorts[n % clientPorts.length]);
        s.setTcpNoDelay(true);
        OutputStream out = s.getOutputStream();
        out.write(("POST /v3/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s.getInputStream();
    }

    @Override
    public void close() throws IOException {
        for (Conn c : opened) {
            c.socket.close();
        }
        for (Process p : members) {
            p.destroy();
        }
        for (Process p : members) {
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** One kept-alive plain HTTP/1.1 connection. */
    private static final class Conn {
        final Socket socket;
        final InputStream in;
        final OutputStream out;

        Conn(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream(), 16384);
            out = socket.getOutputStream();
        }

        String post(String path, String body) throws IOException {
            byte[] payload = body.getBytes(StandardCharsets.UTF_8);
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + payload.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(payload);
            out.flush();
            String status = line();
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException("etcd answered " + status);
            }
            int length = -1;
            boolean chunked = false;
            for (String h; !(h = line()).isEmpty(); ) {
                String lower = h.toLowerCase(java.util.Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Integer.parseInt(h.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            if (!chunked) {
                return new String(in.readNBytes(Math.max(0, length)), StandardCharsets.UTF_8);
            }
            StringBuilder sb = new StringBuilder();
            for (int size; (size = Integer.parseInt(line().trim(), 16)) > 0; ) {
                sb.append(new String(in.readNBytes(size), StandardCharsets.UTF_8));
                line();
            }
            line();
            return sb.toString();
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            for (int b; (b = in.read()) != '\n'; ) {
                if (b < 0) {
                    throw new IOException("etcd closed the connection");
                }
                if (b != '\r') {
                    sb.append((char) b);
                }
            }
            return sb.toString();
        }
    }
}

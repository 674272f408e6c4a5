package io.cybernetes.store.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on 127.0.0.1 in front of a database server, for outages on demand:
 * {@link #cut()} drops every connection and refuses new ones, as a stopped or unreachable
 * server does; {@link #restore()} listens again on the same port.
 */
final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;

    TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        ServerSocket s = listen(0);
        this.port = s.getLocalPort();
        start(s);
    }

    int port() {
        return port;
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private void start(ServerSocket s) {
        server = s;
        Thread accept = new Thread(() -> {
            while (!s.isClosed()) {
                try {
                    Socket client = s.accept();
                    Socket upstream = new Socket(targetHost, targetPort);
                    if (!register(s, client, upstream)) {
                        return;
                    }
                    pump(client, upstream);
                    pump(upstream, client);
                } catch (IOException closed) {
                    return;
                }
            }
        }, "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /**
     * Counts a pair among the open ones, unless {@link #cut()} closed the listening socket it came from
     * meanwhile (between accepting it and connecting upstream): then the pair is closed, as cut() would have.
     */
    private synchronized boolean register(ServerSocket from, Socket client, Socket upstream) {
        if (from.isClosed()) {
            closeQuietly(client);
            closeQuietly(upstream);
            return false;
        }
        open.add(client);
        open.add(upstream);
        return true;
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException dropped) {
                // the other direction or cut() closes the pair
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Every connection dropped, new ones refused. */
    synchronized void cut() {
        closeQuietly(server);
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    /**
     * Listening again, on the same port (once the accepting thread has let go of the old
     * socket: a socket closed while a thread accepts on it is released when that thread returns).
     */
    synchronized void restore() throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                start(listen(port));
                return;
            } catch (java.net.BindException stillHeld) {
                if (attempt == 100) {
                    throw stillHeld;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw stillHeld;
                }
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (Exception ignored) {
            // closing is all that is asked
        }
    }

    @Override
    public void close() {
        cut();
    }
}

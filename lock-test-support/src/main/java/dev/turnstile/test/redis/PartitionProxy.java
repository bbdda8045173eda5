package dev.turnstile.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import redis.clients.jedis.HostAndPort;

/**
 * A TCP proxy in front of one server that can cut the network without closing anything: {@link
 * #partition()} stops forwarding bytes in both directions (no RST, no FIN: connections stay open,
 * new ones are accepted, every read on the client's side just waits), and {@link #heal()} delivers
 * what was held back, in order, and forwards again. That is a network partition as a client sees
 * it, as opposed to a refused or reset connection.
 *
 * <p>Thread-safe. Binds a free port on 127.0.0.1; {@link #close()} closes every connection.
 */
public final class PartitionProxy implements AutoCloseable {

    private final HostAndPort target;
    private final ServerSocket listener;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean partitioned;
    private volatile boolean closed;

    private PartitionProxy(HostAndPort target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "partition-proxy-" + this.listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a proxy forwarding to {@code target}. */
    public static PartitionProxy to(HostAndPort target) {
        try {
            return new PartitionProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Returns the address clients connect to instead of the server. */
    public HostAndPort hostAndPort() {
        return new HostAndPort("127.0.0.1", this.listener.getLocalPort());
    }

    /** Stops forwarding: bytes already read are held, later ones wait in the sockets' buffers. */
    public void partition() {
        synchronized (this.gate) {
            this.partitioned = true;
        }
    }

    /** Delivers what was held back and forwards again. */
    public void heal() {
        synchronized (this.gate) {
            this.partitioned = false;
            this.gate.notifyAll();
        }
    }

    /** Returns whether the proxy is partitioned now. */
    public boolean isPartitioned() {
        synchronized (this.gate) {
            return this.partitioned;
        }
    }

    @Override
    public void close() {
        this.closed = true;
        heal();
        closeQuietly(this.listener);
        this.sockets.forEach(PartitionProxy::closeQuietly);
    }

    private void accept() {
        while (!this.closed) {
            try {
                Socket client = this.listener.accept();
                Socket server = new Socket(this.target.getHost(), this.target.getPort());
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                this.sockets.add(client);
                this.sockets.add(server);
                pump(client, server, "up");
                pump(server, client, "down");
            } catch (IOException e) {
                if (!this.closed) {
                    // A failed connection to the server: the client sees its socket closed.
                    continue;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, String direction) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread pump = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try {
                        int read;
                        while ((read = in.read(buffer)) >= 0) {
                            awaitHealed();
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    } catch (IOException | InterruptedException e) {
                        // the other side closed, or the proxy did
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "partition-proxy-" + direction);
        pump.setDaemon(true);
        pump.start();
    }

    private void awaitHealed() throws InterruptedException {
        synchronized (this.gate) {
            while (this.partitioned && !this.closed) {
                this.gate.wait();
            }
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}

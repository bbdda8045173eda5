package dev.turnstile.redis.internal;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.util.Locale;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Recognises the failures of a connection whose TLS settings do not match the server's (an
 * untrusted authority, a certificate for another host, TLS against a plain port, plain TCP against
 * a TLS port) and says in one sentence what happened and what to check, so that a misconfigured
 * client does not surface as a bare {@code SSLHandshakeException} or "Connection reset".
 */
final class TlsFailures {

    /** Where Spring Boot users set what the advice names, for the application's Redis. */
    static final String SERVER_SETTINGS = ". With Spring Boot, check spring.data.redis.ssl.bundle,"
            + " spring.data.redis.ssl.enabled, spring.data.redis.host and the scheme of spring.data.redis.url"
            + " (redis:// or rediss://)";

    /** Where Spring Boot users set what the advice names, for Redlock's masters. */
    static final String REDLOCK_SETTINGS = ". With Spring Boot, check turnstile.redlock.ssl.bundle and the"
            + " scheme of turnstile.redlock.nodes (redis:// or rediss://)";

    private TlsFailures() {}

    /**
     * Returns what went wrong and what to check when {@code failure} comes from a TLS mismatch, or
     * null when it does not look like one.
     *
     * @param settings where Spring Boot users set it: {@link #SERVER_SETTINGS} or {@link #REDLOCK_SETTINGS}
     */
    static @Nullable String explain(@Nullable Throwable failure, String settings) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof CertPathBuilderException
                    || String.valueOf(cause.getMessage()).contains("PKIX path")) {
                return "the server's TLS certificate is not signed by a certificate authority the client trusts ("
                        + rootMessage(cause) + "). Trust the authority that signed the server's certificate: an SSL"
                        + " bundle whose trust store holds it, else the JVM's default trust store is used"
                        + settings;
            }
            if (cause instanceof CertificateException && isHostNameMismatch(cause.getMessage())) {
                return "the server's TLS certificate does not name the host the client connects to ("
                        + cause.getMessage() + "). Connect with a host name the certificate names, or have the"
                        + " server's certificate name this host; Turnstile checks it as HTTPS does"
                        + settings;
            }
            if (cause instanceof SSLException && isPlainAnswer(cause.getMessage())) {
                return "the server did not answer in TLS (" + cause.getMessage() + "): the port looks like a plain"
                        + " (non-TLS) port. Point the client at the server's TLS port, or connect without TLS"
                        + settings;
            }
            if (cause instanceof SocketTimeoutException && inTlsHandshake(cause)) {
                return "the server did not complete a TLS handshake in time: the port may be a plain (non-TLS) port."
                        + " Point the client at the server's TLS port, or connect without TLS" + settings;
            }
            if (closedWhileConnecting(cause)) {
                return "the server closed the connection as soon as the client opened it (" + cause.getMessage()
                        + "), as a server that accepts only TLS on that port does with a plain client. If it"
                        + " does, connect with TLS (rediss://)" + settings;
            }
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException) {
                return "the TLS handshake with the server failed (" + rootMessage(cause)
                        + "). Check the client's TLS settings against the server's" + settings;
            }
        }
        return null;
    }

    private static boolean isHostNameMismatch(@Nullable String message) {
        String text = String.valueOf(message);
        return text.startsWith("No subject alternative") || text.startsWith("No name matching");
    }

    private static boolean isPlainAnswer(@Nullable String message) {
        String text = String.valueOf(message).toLowerCase(Locale.ROOT);
        return text.contains("unsupported or unrecognized ssl message") || text.contains("plaintext connection");
    }

    /** Whether the timeout happened while a TLS socket waited for the server's handshake. */
    private static boolean inTlsHandshake(Throwable timeout) {
        for (StackTraceElement frame : timeout.getStackTrace()) {
            if (frame.getClassName().startsWith("sun.security.ssl.")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the server reset or closed the connection while Jedis was still setting it up (its
     * first commands, before any of Turnstile's): what a TLS-only port does with plain TCP.
     */
    private static boolean closedWhileConnecting(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        boolean closed = (cause instanceof SocketException && message.contains("Connection reset"))
                || message.startsWith("Unexpected end of stream");
        if (!closed) {
            return false;
        }
        for (StackTraceElement frame : cause.getStackTrace()) {
            if (frame.getClassName().equals("redis.clients.jedis.Connection")
                    && (frame.getMethodName().equals("initializeFromClientConfig")
                            || frame.getMethodName().equals("<init>"))) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }
}

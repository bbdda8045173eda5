package dev.turnstile.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Certificates made at test time by {@code openssl}, for {@code redis-server --tls-port} and the
 * clients that connect to it: a certificate authority; a server certificate it signed for {@code
 * localhost} and {@code 127.0.0.1}; a server certificate it signed for another host name only (the
 * wrong-host case); and a second, unrelated authority (the wrong-CA case). Keys are EC P-256, valid
 * for two days. {@link #shared()} makes them once per JVM, in a temporary folder deleted at exit.
 *
 * <p>Needs {@code openssl} on the {@code PATH} (Debian: {@code apt-get install openssl}).
 */
public final class TlsCertificates {

    /** The only name {@link #wrongHost()} is valid for. */
    public static final String WRONG_HOST_NAME = "wrong-host.invalid";

    /** The password of {@link #trustStore()}. */
    public static final String TRUST_STORE_PASSWORD = "changeit";

    private static @Nullable TlsCertificates shared;

    private final Path directory;
    private final Identity server;
    private final Identity wrongHost;

    /**
     * A server's certificate and key, and the authority that signed it.
     *
     * @param certificate the server certificate (PEM)
     * @param key its private key (PEM)
     * @param authority the certificate of the authority that signed it (PEM)
     */
    public record Identity(Path certificate, Path key, Path authority) {}

    private TlsCertificates(Path directory) {
        this.directory = directory;
        newKey("ca", "ca.crt", "/CN=Turnstile Test CA", "-x509", "-days", "2");
        newKey("other-ca", "other-ca.crt", "/CN=Unrelated Test CA", "-x509", "-days", "2");
        this.server = sign("server", "localhost", "DNS:localhost,IP:127.0.0.1");
        this.wrongHost = sign("wrong-host", WRONG_HOST_NAME, "DNS:" + WRONG_HOST_NAME);
    }

    /**
     * Returns the certificates of this JVM, made on first use.
     *
     * @throws IllegalStateException if {@code openssl} is missing or fails; the message says which
     */
    public static synchronized TlsCertificates shared() {
        if (shared == null) {
            try {
                Path directory = Files.createTempDirectory("turnstile-tls-");
                directory.toFile().deleteOnExit();
                shared = new TlsCertificates(directory);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    /** Returns the authority's certificate (PEM): what a client trusts. */
    public Path authority() {
        return this.directory.resolve("ca.crt");
    }

    /** Returns an unrelated authority's certificate (PEM): trusting it alone, a client refuses the servers. */
    public Path otherAuthority() {
        return this.directory.resolve("other-ca.crt");
    }

    /** Returns the server identity for {@code localhost} and {@code 127.0.0.1}, signed by {@link #authority()}. */
    public Identity server() {
        return this.server;
    }

    /** Returns a server identity signed by {@link #authority()} for {@link #WRONG_HOST_NAME} only. */
    public Identity wrongHost() {
        return this.wrongHost;
    }

    /**
     * Returns a PKCS12 trust store holding {@link #authority()}, password {@link
     * #TRUST_STORE_PASSWORD}: for {@code javax.net.ssl.trustStore} or Jedis's {@code SslOptions}.
     */
    public synchronized Path trustStore() {
        Path store = this.directory.resolve("truststore.p12");
        if (!Files.exists(store)) {
            try {
                KeyStore keyStore = holding(KeyStore.getInstance("PKCS12"), "turnstile-test-ca", authority());
                try (var out = Files.newOutputStream(store)) {
                    keyStore.store(out, TRUST_STORE_PASSWORD.toCharArray());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("Could not write " + store, e);
            }
            store.toFile().deleteOnExit();
        }
        return store;
    }

    /** Returns a TLS context that trusts exactly the authority whose PEM certificate is {@code authority}. */
    public static SSLContext trusting(Path authority) {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(holding(KeyStore.getInstance(KeyStore.getDefaultType()), "ca", authority));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Could not trust " + authority, e);
        }
    }

    /** Returns the empty {@code keyStore} with the PEM certificate {@code certificate} as its one entry. */
    private static KeyStore holding(KeyStore keyStore, String alias, Path certificate)
            throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(certificate)) {
            keyStore.load(null, null);
            keyStore.setCertificateEntry(
                    alias, CertificateFactory.getInstance("X.509").generateCertificate(in));
            return keyStore;
        }
    }

    /** Returns parameters that make a TLS socket check the server's host name, as HTTPS does. */
    public static SSLParameters verifyingHostName() {
        SSLParameters parameters = new SSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        return parameters;
    }

    private Identity sign(String name, String commonName, String subjectAltNames) {
        try {
            Files.writeString(
                    this.directory.resolve(name + ".ext"),
                    String.join(
                            "\n",
                            "subjectAltName=" + subjectAltNames,
                            "basicConstraints=CA:FALSE",
                            "keyUsage=digitalSignature,keyEncipherment",
                            "extendedKeyUsage=serverAuth",
                            ""),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        newKey(name, name + ".csr", "/CN=" + commonName);
        openssl(
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                name + ".crt",
                "-days",
                "2",
                "-extfile",
                name + ".ext");
        for (String file : List.of(name + ".key", name + ".csr", name + ".crt", name + ".ext")) {
            this.directory.resolve(file).toFile().deleteOnExit();
        }
        return new Identity(this.directory.resolve(name + ".crt"), this.directory.resolve(name + ".key"), authority());
    }

    /**
     * Makes a new EC P-256 key in {@code name.key} and, with {@code subject}, a certificate request in
     * {@code out}, or with {@code -x509} among {@code options} a self-signed certificate.
     */
    private void newKey(String name, String out, String subject, String... options) {
        List<String> arguments = new ArrayList<>(List.of("req"));
        arguments.addAll(List.of(options));
        arguments.addAll(List.of(
                "-new",
                "-nodes",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-keyout",
                name + ".key",
                "-out",
                out,
                "-subj",
                subject));
        openssl(arguments.toArray(String[]::new));
    }

    private void openssl(String... arguments) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .directory(this.directory.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Could not run openssl, which makes the test certificates: install it (Debian: apt-get install"
                            + " openssl)",
                    e);
        }
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("openssl " + String.join(" ", arguments) + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while making test certificates", e);
        }
        for (String file : List.of("ca.key", "ca.crt", "ca.srl", "other-ca.key", "other-ca.crt")) {
            this.directory.resolve(file).toFile().deleteOnExit();
        }
    }
}

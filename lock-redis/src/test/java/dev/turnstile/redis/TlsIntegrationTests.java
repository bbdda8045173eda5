package dev.turnstile.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.redis.semaphore.Permit;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import dev.turnstile.test.redis.TlsCertificates;
import java.io.File;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Turnstile in plain Java over TLS, against redis-server processes that accept only TLS ({@code
 * --port 0 --tls-port}) with certificates made by openssl for this run: the clients a user builds
 * (Jedis's {@code SslOptions}, a {@code rediss://} URL with a socket factory), Redlock over three TLS
 * masters, and what each kind of mismatch says.
 */
class TlsIntegrationTests {

    private static final TlsCertificates certificates = TlsCertificates.shared();

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension(server -> server.tls(certificates.server()));

    /** What the docs show: Jedis's own TLS options, a PKCS12 trust store, host names checked. */
    private static JedisClientConfig sslOptions(Duration timeout) {
        SslOptions tls = SslOptions.builder()
                .truststore(
                        new File(certificates.trustStore().toString()),
                        TlsCertificates.TRUST_STORE_PASSWORD.toCharArray())
                .sslVerifyMode(SslVerifyMode.FULL)
                .build();
        return DefaultJedisClientConfig.builder()
                .sslOptions(tls)
                .timeoutMillis((int) timeout.toMillis())
                .build();
    }

    private static UnifiedJedis trusting(TlsCertificates.Identity identity, String host, int port) {
        return RedisClients.standalone(
                new HostAndPort(host, port),
                DefaultJedisClientConfig.builder()
                        .ssl(true)
                        .sslSocketFactory(socketFactory(identity.authority().toFile()))
                        .sslParameters(TlsCertificates.verifyingHostName())
                        .build());
    }

    private static SSLSocketFactory socketFactory(File authority) {
        return TlsCertificates.trusting(authority.toPath()).getSocketFactory();
    }

    @Test
    void theServerRefusesPlainConnections() {
        assertThat(redis.server().isTls()).isTrue();
        assertThat(redis.server().uri()).hasScheme("rediss");
        try (UnifiedJedis plain = RedisClients.standalone(
                redis.server().hostAndPort(), DefaultJedisClientConfig.builder().build())) {
            assertThatThrownBy(plain::ping).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
        }
    }

    @Test
    void locksWaitsAndCountsOverTlsWithJedisSslOptions() throws Exception {
        try (UnifiedJedis client = RedisClients.standalone(
                        new HostAndPort("localhost", redis.server().port()), sslOptions(Duration.ofSeconds(2)));
                Turnstile turnstile = Turnstile.builder(client).build();
                Turnstile other = Turnstile.builder(client).build()) {
            Lease first = turnstile.lock("item:42").acquire(Duration.ZERO, null);
            try (Jedis admin = redis.server().connect()) {
                assertThat(admin.exists("turnstile:lock:{item:42}")).isTrue();
            }
            // A waiter of another instance is woken by the release signal, which travels over TLS too.
            CompletableFuture<Lease> waiter =
                    CompletableFuture.supplyAsync(() -> other.lock("item:42").acquire(Duration.ofSeconds(10), null));
            try (Jedis admin = redis.server().connect()) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> admin.pubsubChannels().contains("turnstile:lock:{item:42}"));
            }
            long firstToken = first.fencingToken();
            first.close();
            try (Lease second = waiter.get(10, TimeUnit.SECONDS)) {
                assertThat(second.fencingToken()).isGreaterThan(firstToken);
            }
            try (Permit permit = turnstile.semaphore("account:7", 2).acquire(Duration.ZERO, null)) {
                assertThat(permit.isHeld()).isTrue();
            }
            assertThat(turnstile.diagnostics().health().up()).isTrue();
        }
    }

    @Test
    void aRedissUrlWithASocketFactoryLocks() {
        URI url = URI.create("rediss://localhost:" + redis.server().port());
        try (UnifiedJedis client = RedisClients.standalone(
                        JedisURIHelper.getHostAndPort(url),
                        DefaultJedisClientConfig.builder()
                                .ssl(JedisURIHelper.isRedisSSLScheme(url))
                                .sslSocketFactory(
                                        socketFactory(certificates.authority().toFile()))
                                .sslParameters(TlsCertificates.verifyingHostName())
                                .build());
                Turnstile turnstile = Turnstile.builder(client).build();
                Lease lease = turnstile.lock("by-url").acquire(Duration.ZERO, null)) {
            assertThat(lease.isHeld()).isTrue();
        }
    }

    @Test
    void redlockLocksOverThreeTlsMasters() {
        List<RedisServer> masters = List.of(
                redis.server(),
                redis.startServer(server -> server.tls(certificates.server())),
                redis.startServer(server -> server.tls(certificates.server())));
        List<UnifiedJedis> clients = new ArrayList<>();
        masters.forEach(master -> clients.add(trusting(certificates.server(), "localhost", master.port())));
        try (Redlock redlock =
                Redlock.builder(clients).nodeTimeout(Duration.ofSeconds(2)).build()) {
            long previous = 0;
            for (int i = 0; i < 3; i++) {
                try (Lease lease = redlock.lock("order:9").acquire(Duration.ofSeconds(2), null)) {
                    for (RedisServer master : masters) {
                        try (Jedis admin = master.connect()) {
                            assertThat(admin.exists("turnstile:lock:{order:9}"))
                                    .as("held on %s", master)
                                    .isTrue();
                        }
                    }
                    assertThat(lease.fencingToken()).isGreaterThan(previous);
                    previous = lease.fencingToken();
                }
            }
        } finally {
            clients.forEach(UnifiedJedis::close);
        }
    }

    @Test
    void anUntrustedAuthoritySaysSoAndNamesTheSettings() {
        try (UnifiedJedis client = RedisClients.standalone(
                        new HostAndPort("localhost", redis.server().port()),
                        DefaultJedisClientConfig.builder()
                                .ssl(true)
                                .sslSocketFactory(socketFactory(
                                        certificates.otherAuthority().toFile()))
                                .build());
                Turnstile turnstile = Turnstile.builder(client).build()) {
            assertThatThrownBy(() -> turnstile.lock("x").acquire(Duration.ZERO, null))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("acquire lock 'x'")
                    .hasMessageContaining("not signed by a certificate authority the client trusts")
                    .hasMessageContaining("spring.data.redis.ssl.bundle");
            assertThat(turnstile.diagnostics().health().error())
                    .hasMessageContaining("not signed by a certificate authority the client trusts");
        }
    }

    @Test
    void aCertificateForAnotherHostSaysSo() {
        RedisServer elsewhere = redis.startServer(server -> server.tls(certificates.wrongHost()));
        try (UnifiedJedis client = trusting(certificates.wrongHost(), "127.0.0.1", elsewhere.port());
                Turnstile turnstile = Turnstile.builder(client).build()) {
            assertThatThrownBy(() -> turnstile.lock("x").acquire(Duration.ZERO, null))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("does not name the host the client connects to")
                    .hasMessageContaining("127.0.0.1")
                    .hasMessageContaining("spring.data.redis.host");
        }
    }

    @Test
    void aPlainClientOnATlsPortIsToldToUseTls() {
        try (UnifiedJedis client = RedisClients.standalone(
                        redis.server().hostAndPort(),
                        DefaultJedisClientConfig.builder().build());
                Turnstile turnstile = Turnstile.builder(client).build()) {
            assertThatThrownBy(() -> turnstile.lock("x").acquire(Duration.ZERO, null))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("closed the connection as soon as the client opened it")
                    .hasMessageContaining("rediss://")
                    .hasMessageContaining("spring.data.redis.ssl.enabled");
        }
    }

    @Test
    void aTlsClientOnAPlainPortIsToldSo() {
        RedisServer plain = redis.startServer(server -> server);
        try (UnifiedJedis client = trusting(certificates.server(), "127.0.0.1", plain.port());
                Turnstile turnstile = Turnstile.builder(client).build()) {
            assertThatThrownBy(() -> turnstile.lock("x").acquire(Duration.ZERO, null))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("plain (non-TLS) port")
                    .hasMessageContaining("spring.data.redis.url");
        }
    }

    @Test
    void redlockNamesTheMastersWhoseCertificateIsNotTrustedAndItsSettings() {
        List<RedisServer> masters = List.of(
                redis.server(),
                redis.startServer(server -> server.tls(certificates.server())),
                redis.startServer(server -> server.tls(certificates.server())));
        List<UnifiedJedis> clients = new ArrayList<>();
        masters.forEach(master -> clients.add(RedisClients.standalone(
                new HostAndPort("localhost", master.port()),
                DefaultJedisClientConfig.builder()
                        .ssl(true)
                        .sslSocketFactory(
                                socketFactory(certificates.otherAuthority().toFile()))
                        .build())));
        try (Redlock redlock =
                Redlock.builder(clients).nodeTimeout(Duration.ofSeconds(2)).build()) {
            assertThatThrownBy(() -> redlock.lock("order:9").acquire(Duration.ZERO, null))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("master 0 (")
                    .hasMessageContaining("the server's TLS certificate is not signed")
                    .hasMessageContaining("turnstile.redlock.ssl.bundle")
                    .hasMessageContaining("Check the TLS settings of those masters' clients");
        } finally {
            clients.forEach(UnifiedJedis::close);
        }
    }
}

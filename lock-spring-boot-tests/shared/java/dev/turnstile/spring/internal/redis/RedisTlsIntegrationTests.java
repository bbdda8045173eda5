package dev.turnstile.spring.internal.redis;

import dev.turnstile.spring.autoconfigure.redis.RedisConnection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.redis.Lease;
import dev.turnstile.redis.RedisUnavailableException;
import dev.turnstile.redis.Turnstile;
import dev.turnstile.redis.lock.Redlock;
import dev.turnstile.spring.BootLine;
import dev.turnstile.spring.autoconfigure.TurnstileAutoConfiguration;
import dev.turnstile.test.redis.ChildJvm;
import dev.turnstile.test.redis.RedisServer;
import dev.turnstile.test.redis.RedisServerExtension;
import dev.turnstile.test.redis.TlsCertificates;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import redis.clients.jedis.Jedis;

/**
 * The starter against redis-server processes that accept only TLS, with certificates made by
 * openssl for this run: {@code spring.data.redis.ssl.bundle}, {@code ssl.enabled} and {@code
 * rediss://}, with Spring Boot's Redis auto-configuration (its connection details) and without it
 * (Turnstile reads the properties and finds the bundle in {@code SslBundles}); Redlock masters over
 * TLS; and what each mismatch says.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisTlsIntegrationTests {

    private static final TlsCertificates certificates = TlsCertificates.shared();

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension(server -> server.tls(certificates.server()));

    /** Spring Boot's Redis auto-configuration present: Turnstile takes its connection details. */
    private final ApplicationContextRunner withBootRedis = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
            .withConfiguration(BootLine.turnstile());

    /** No Spring Boot Redis auto-configuration: Turnstile reads spring.data.redis.* itself. */
    private final ApplicationContextRunner withoutBootRedis = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, TurnstileAutoConfiguration.class));

    private static String[] bundle(String name, java.nio.file.Path authority) {
        return new String[] {
            "spring.data.redis.ssl.bundle=" + name,
            "spring.ssl.bundle.pem." + name + ".truststore.certificate=file:" + authority
        };
    }

    private static String[] server(RedisServer server, String host) {
        return new String[] {"spring.data.redis.host=" + host, "spring.data.redis.port=" + server.port()};
    }

    @Test
    void anSslBundleReachesATlsOnlyServerWithAndWithoutSpringBootsRedisAutoConfiguration() {
        for (ApplicationContextRunner runner : List.of(this.withBootRedis, this.withoutBootRedis)) {
            runner.withPropertyValues(server(redis.server(), "localhost"))
                    .withPropertyValues(bundle("redis", certificates.authority()))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Turnstile turnstile = context.getBean(Turnstile.class);
                        try (Lease lease = turnstile.lock("tls").acquire(Duration.ZERO, null);
                                Jedis admin = redis.server().connect()) {
                            assertThat(admin.exists("turnstile:lock:{tls}")).isTrue();
                            assertThat(lease.fencingToken()).isPositive();
                        }
                        assertThat(turnstile.diagnostics().health().up()).isTrue();
                    });
        }
        this.withBootRedis
                .withPropertyValues(server(redis.server(), "localhost"))
                .withPropertyValues(bundle("redis", certificates.authority()))
                .run(context -> assertThat(context).hasSingleBean(RedisConnection.class));
    }

    @Test
    void theBundlesProtocolsApply() {
        RedisServer tls13 = redis.startServer(
                server -> server.tls(certificates.server()).arguments("--tls-protocols", "TLSv1.3"));
        for (ApplicationContextRunner runner : List.of(this.withBootRedis, this.withoutBootRedis)) {
            runner.withPropertyValues(server(tls13, "localhost"))
                    .withPropertyValues(bundle("redis", certificates.authority()))
                    .withPropertyValues("spring.ssl.bundle.pem.redis.options.enabled-protocols=TLSv1.2")
                    .run(context -> assertThatThrownBy(() -> context.getBean(Turnstile.class)
                                    .lock("tls")
                                    .acquire(Duration.ZERO, null))
                            .isInstanceOf(RedisUnavailableException.class)
                            .hasMessageContaining("TLS handshake with the server failed"));
            runner.withPropertyValues(server(tls13, "localhost"))
                    .withPropertyValues(bundle("redis", certificates.authority()))
                    .withPropertyValues("spring.ssl.bundle.pem.redis.options.enabled-protocols=TLSv1.3")
                    .run(context -> assertLocks(context.getBean(Turnstile.class)));
        }
    }

    /**
     * Both ways, {@code rediss://} and {@code ssl.enabled} use the JVM's trust store, which does not
     * hold this run's authority: the handshake reaches the certificate check, which shows TLS was
     * used (a plain client is disconnected before that). {@link
     * #anApplicationWithOnlyTheStarterReachesATlsOnlyRedisEveryWay()} shows them connecting when the
     * JVM trusts it.
     */
    @Test
    void aRedissUrlAndSslEnabledUseTlsWithTheJvmsTrustStoreOnBothPaths() {
        List<String[]> ways = List.of(
                new String[] {"spring.data.redis.url=rediss://localhost:" + redis.server().port()},
                new String[] {
                    "spring.data.redis.host=localhost",
                    "spring.data.redis.port=" + redis.server().port(),
                    "spring.data.redis.ssl.enabled=true"
                });
        for (ApplicationContextRunner runner : List.of(this.withBootRedis, this.withoutBootRedis)) {
            for (String[] way : ways) {
                runner.withPropertyValues(way).run(context -> assertThatThrownBy(
                                () -> context.getBean(Turnstile.class).lock("tls").acquire(Duration.ZERO, null))
                        .as(String.join(" ", way))
                        .isInstanceOf(RedisUnavailableException.class)
                        .hasMessageContaining("not signed by a certificate authority the client trusts"));
            }
        }
    }

    @Test
    void anUntrustedAuthorityIsOneWarningAtStartAndEachCallNamesTheBundleSetting(CapturedOutput output) {
        for (ApplicationContextRunner runner : List.of(this.withBootRedis, this.withoutBootRedis)) {
            runner.withPropertyValues(server(redis.server(), "localhost"))
                    .withPropertyValues(bundle("redis", certificates.otherAuthority()))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThatThrownBy(() -> context.getBean(Turnstile.class)
                                        .lock("tls")
                                        .acquire(Duration.ZERO, null))
                                .isInstanceOf(RedisUnavailableException.class)
                                .hasMessageContaining("not signed by a certificate authority the client trusts")
                                .hasMessageContaining("spring.data.redis.ssl.bundle");
                    });
        }
        assertThat(output.getOut().lines().filter(line -> line.contains("did not answer at startup")))
                .hasSize(2)
                .allSatisfy(line -> assertThat(line)
                        .contains("not signed by a certificate authority the client trusts")
                        .contains("ssl.bundle"));
    }

    @Test
    void aCertificateForAnotherHostIsRefusedNamingTheHostSetting() {
        RedisServer elsewhere = redis.startServer(server -> server.tls(certificates.wrongHost()));
        for (ApplicationContextRunner runner : List.of(this.withBootRedis, this.withoutBootRedis)) {
            runner.withPropertyValues(server(elsewhere, "localhost"))
                    .withPropertyValues(bundle("redis", certificates.authority()))
                    .run(context -> assertThatThrownBy(() -> context.getBean(Turnstile.class)
                                    .lock("tls")
                                    .acquire(Duration.ZERO, null))
                            .isInstanceOf(RedisUnavailableException.class)
                            .hasMessageContaining("does not name the host the client connects to")
                            .hasMessageContaining("spring.data.redis.host"));
        }
    }

    @Test
    void aPlainClientOnTheTlsPortIsToldToTurnTlsOn() {
        for (ApplicationContextRunner runner : List.of(this.withBootRedis, this.withoutBootRedis)) {
            runner.withPropertyValues(server(redis.server(), "localhost"))
                    .run(context -> assertThatThrownBy(() -> context.getBean(Turnstile.class)
                                    .lock("tls")
                                    .acquire(Duration.ZERO, null))
                            .isInstanceOf(RedisUnavailableException.class)
                            .hasMessageContaining("closed the connection as soon as the client opened it")
                            .hasMessageContaining("spring.data.redis.ssl.enabled"));
        }
    }

    @Test
    void aTlsClientOnAPlainPortIsToldItIsPlain() {
        RedisServer plain = redis.startServer(server -> server);
        for (ApplicationContextRunner runner : List.of(this.withBootRedis, this.withoutBootRedis)) {
            runner.withPropertyValues(server(plain, "localhost"))
                    .withPropertyValues(bundle("redis", certificates.authority()))
                    .withPropertyValues("spring.data.redis.timeout=500ms")
                    .run(context -> assertThatThrownBy(() -> context.getBean(Turnstile.class)
                                    .lock("tls")
                                    .acquire(Duration.ZERO, null))
                            .isInstanceOf(RedisUnavailableException.class)
                            .hasMessageContaining("plain (non-TLS) port")
                            .hasMessageContaining("spring.data.redis.ssl"));
        }
    }

    @Test
    void aBundleNameThatNamesNoBundleFailsTheStartNamingTheProperty() {
        this.withoutBootRedis
                .withPropertyValues(server(redis.server(), "localhost"))
                .withPropertyValues(bundle("redis", certificates.authority()))
                .withPropertyValues("spring.data.redis.ssl.bundle=cache")
                .run(context -> {
                    assertThat(context)
                            .hasFailed()
                            .getFailure()
                            .rootCause()
                            .isInstanceOf(InvalidRedisSettingsException.class)
                            .hasMessageContaining("spring.data.redis.ssl.bundle is 'cache', but no SSL bundle has"
                                    + " that name (defined: [redis])");
                    assertThat(new InvalidRedisSettingsFailureAnalyzer()
                                    .analyze(context.getStartupFailure())
                                    .getAction())
                            .contains("spring.ssl.bundle.*");
                });
    }

    @Test
    void redlockLocksOverTlsMastersWithABundle() {
        List<RedisServer> masters = List.of(
                redis.server(),
                redis.startServer(server -> server.tls(certificates.server())),
                redis.startServer(server -> server.tls(certificates.server())));
        this.withBootRedis
                .withPropertyValues(
                        "spring.data.redis.host=localhost",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.ssl.bundle=redis",
                        "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certificates.authority(),
                        "turnstile.redlock.ssl.bundle=redis",
                        "turnstile.redlock.node-timeout=2s",
                        "turnstile.redlock.nodes=" + nodes(masters, "rediss"))
                .run(context -> {
                    try (Lease lease =
                            context.getBean(Redlock.class).lock("order:9").acquire(Duration.ofSeconds(2), null)) {
                        assertThat(masters).allSatisfy(master -> {
                            try (Jedis admin = master.connect()) {
                                assertThat(admin.exists("turnstile:lock:{order:9}")).isTrue();
                            }
                        });
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void redlockMastersOverTlsWithoutATrustedAuthorityNameTheRedlockSettings() {
        List<RedisServer> masters = List.of(
                redis.server(),
                redis.startServer(server -> server.tls(certificates.server())),
                redis.startServer(server -> server.tls(certificates.server())));
        this.withoutBootRedis
                .withPropertyValues(
                        "spring.data.redis.host=localhost",
                        "spring.data.redis.port=" + redis.server().port(),
                        "turnstile.redlock.node-timeout=2s",
                        "turnstile.redlock.nodes=" + nodes(masters, "rediss"))
                .run(context -> assertThatThrownBy(() -> context.getBean(Redlock.class)
                                .lock("order:9")
                                .acquire(Duration.ZERO, null))
                        .isInstanceOf(RedisUnavailableException.class)
                        .hasMessageContaining("not signed by a certificate authority the client trusts")
                        .hasMessageContaining("turnstile.redlock.ssl.bundle"));
    }

    @Test
    void aRedlockNodeThatIsNoRedisUrlFailsTheStartNamingTheProperty() {
        this.withoutBootRedis
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "turnstile.redlock.nodes=rediss://127.0.0.1:1,rediss://127.0.0.1:2,127.0.0.1:3")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("turnstile.redlock.nodes lists '127.0.0.1:3'; write each master as"
                                + " redis://host:port, or rediss://host:port for TLS"));
    }

    /**
     * The application the issue asks for: only the starter (no Spring Data Redis jar at all), a
     * TLS-only Redis, reached through a PEM SSL bundle; then {@code rediss://} and {@code
     * ssl.enabled} with the JVM trusting the authority. The same application with Spring Data Redis
     * goes through Boot's connection details.
     */
    @Test
    void anApplicationWithOnlyTheStarterReachesATlsOnlyRedisEveryWay() {
        String[] arguments = {
            Integer.toString(redis.server().port()),
            certificates.authority().toString(),
            certificates.trustStore().toString(),
            TlsCertificates.TRUST_STORE_PASSWORD
        };
        try (ChildJvm application = ChildJvm.startWithout(
                List.of("spring-data-", "spring-boot-data-", "spring-boot-starter-data-"),
                TlsApplication.class,
                arguments)) {
            application.awaitLineStartingWith("locked ssl.enabled ", Duration.ofSeconds(90));
            assertThat(application.lines()).contains("spring-data-redis absent");
            assertThat(locked(application))
                    .containsExactly("ssl.bundle settings", "rediss-url settings", "ssl.enabled settings");
        }
        try (ChildJvm application = ChildJvm.start(TlsApplication.class, arguments)) {
            application.awaitLineStartingWith("locked ssl.enabled ", Duration.ofSeconds(90));
            assertThat(application.lines()).contains("spring-data-redis present");
            assertThat(locked(application))
                    .containsExactly(
                            "ssl.bundle connection-details",
                            "rediss-url connection-details",
                            "ssl.enabled connection-details");
        }
    }

    /** The "locked" lines without their tokens, after checking that each token is positive. */
    private static List<String> locked(ChildJvm application) {
        List<String> lines = application.lines().stream()
                .filter(line -> line.startsWith("locked ") || line.startsWith("failed "))
                .toList();
        assertThat(lines).as(String.join("\n", application.lines())).allMatch(line -> line.startsWith("locked "));
        assertThat(lines).allSatisfy(line -> assertThat(Long.parseLong(line.substring(line.indexOf(" token ") + 7)))
                .isPositive());
        return lines.stream()
                .map(line -> line.substring("locked ".length(), line.indexOf(" token ")))
                .collect(Collectors.toList());
    }

    private static String nodes(List<RedisServer> masters, String scheme) {
        return masters.stream()
                .map(master -> scheme + "://localhost:" + master.port())
                .collect(Collectors.joining(","));
    }

    private static void assertLocks(Turnstile turnstile) {
        try (Lease lease = turnstile.lock("tls").acquire(Duration.ZERO, null)) {
            assertThat(lease.isHeld()).isTrue();
        }
    }
}

package dev.turnstile.test.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that gives a test class its own {@code redis-server} processes.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 *
 * @Test
 * void lockSurvivesAPause() {
 *     RedisServer server = redis.server();   // started before all tests, flushed before each
 *     server.pause();
 *     ...
 * }
 * }</pre>
 *
 * <p>Register it as a {@code static} field. Before each test the main server is running (restarted
 * if a previous test stopped or killed it) and empty. Every server and child JVM started through
 * the extension is killed after the test class, whether its tests passed or not.
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private final UnaryOperator<RedisServer.Builder> customizer;
    private final List<AutoCloseable> owned = new CopyOnWriteArrayList<>();
    private @Nullable RedisServer server;

    /** A plain, non-persistent main server. */
    public RedisServerExtension() {
        this(UnaryOperator.identity());
    }

    /** A main server built with the given options, e.g. {@code b -> b.persistent(true)}. */
    public RedisServerExtension(UnaryOperator<RedisServer.Builder> customizer) {
        this.customizer = customizer;
    }

    /** Returns the main server of this test class. */
    public RedisServer server() {
        if (this.server == null) {
            throw new IllegalStateException("RedisServerExtension must be registered on a static field");
        }
        return this.server;
    }

    /** Starts an additional server, reaped with the test class. */
    public RedisServer startServer(UnaryOperator<RedisServer.Builder> options) {
        RedisServer extra = options.apply(RedisServer.builder()).start();
        this.owned.add(extra);
        return extra;
    }

    /** Starts a child JVM running {@code mainClass}, reaped with the test class. */
    public ChildJvm startChild(Class<?> mainClass, String... arguments) {
        ChildJvm child = ChildJvm.start(mainClass, arguments);
        this.owned.add(child);
        return child;
    }

    /**
     * Starts a child JVM running {@code mainClass} with its wall clock {@code offset} away from this
     * machine's (see {@link ChildJvm#startWithClockOffset}), reaped with the test class.
     */
    public ChildJvm startChildWithClockOffset(Duration offset, Class<?> mainClass, String... arguments) {
        ChildJvm child = ChildJvm.startWithClockOffset(offset, mainClass, arguments);
        this.owned.add(child);
        return child;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        this.server = this.customizer.apply(RedisServer.builder()).start();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        RedisServer main = server();
        if (!main.isRunning()) {
            main.restart();
        }
        main.resume();
        main.flushAll();
        main.resetStats();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (AutoCloseable resource : this.owned) {
            try {
                resource.close();
            } catch (Exception ignored) {
                // keep reaping the rest
            }
        }
        this.owned.clear();
        if (this.server != null) {
            this.server.close();
            this.server = null;
        }
    }
}

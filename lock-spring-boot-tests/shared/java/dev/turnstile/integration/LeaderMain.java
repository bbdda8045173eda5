package dev.turnstile.integration;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import dev.turnstile.test.redis.RedisClients;
import dev.turnstile.redis.Turnstile;
import redis.clients.jedis.UnifiedJedis;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A second application instance for the leader-election test: runs {@code
 * LockRegistryLeaderInitiator} on a {@link TurnstileLockRegistry} and prints {@code LEADER} when
 * elected. Arguments: Redis port, default lease in ms.
 */
public final class LeaderMain {

    private LeaderMain() {}

    public static void main(String[] args) throws InterruptedException {
        UnifiedJedis redis = RedisClients.standalone(
                new HostAndPort("127.0.0.1", Integer.parseInt(args[0])), DefaultJedisClientConfig.builder().build());
        Turnstile turnstile = Turnstile.builder(redis)
                .defaultLease(Duration.ofMillis(Long.parseLong(args[1])))
                .build();
        LockRegistryLeaderInitiator initiator =
                new LockRegistryLeaderInitiator(new TurnstileLockRegistry(turnstile), new DefaultCandidate("child", "turnstile-leader") {
                    @Override
                    public void onGranted(Context context) {
                        System.out.println("LEADER");
                    }

                    @Override
                    public void onRevoked(Context context) {
                        System.out.println("REVOKED");
                    }
                });
        initiator.start();
        System.out.println("STARTED");
        new CountDownLatch(1).await(); // until killed
    }
}

package dev.turnstile.integration;

import dev.turnstile.redis.Turnstile;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import redis.clients.jedis.JedisPooled;

/**
 * A second application instance for the leader-election test: runs {@code
 * LockRegistryLeaderInitiator} on a {@link TurnstileLockRegistry} and prints {@code LEADER} when
 * elected. Arguments: Redis port, default lease in ms.
 */
public final class LeaderMain {

    private LeaderMain() {}

    public static void main(String[] args) throws InterruptedException {
        JedisPooled redis = new JedisPooled("127.0.0.1", Integer.parseInt(args[0]));
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

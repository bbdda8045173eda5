package dev.turnstile.sample;

import java.util.concurrent.CountDownLatch;

/** An application that starts the sample's own redis-server, says where, and runs until killed. */
public final class OwnRedisServerChild {

    private OwnRedisServerChild() {}

    public static void main(String[] args) throws InterruptedException {
        OwnRedisServer server = OwnRedisServer.start(true);
        System.out.println("STARTED " + server.pid() + " " + server.directory());
        new CountDownLatch(1).await();
    }
}

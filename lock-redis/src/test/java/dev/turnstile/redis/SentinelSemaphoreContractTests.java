package dev.turnstile.redis;

import redis.clients.jedis.UnifiedJedis;

/** The same semaphore contract, unchanged, on a master with one replica found through three Sentinels, through a Sentinel client. */
class SentinelSemaphoreContractTests extends SemaphoreContract {

    @Override
    protected UnifiedJedis connect() {
        return SharedSentinelGroup.newClientOnEmptyMaster();
    }
}

package dev.turnstile.redis;

import redis.clients.jedis.UnifiedJedis;

/** The same lock contract, unchanged, on a master with one replica found through three Sentinels, through a Sentinel client. */
class SentinelLockContractTests extends LockContract {

    @Override
    protected UnifiedJedis connect() {
        return SharedSentinelGroup.newClientOnEmptyMaster();
    }
}

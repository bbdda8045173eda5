package dev.turnstile.redis;

import redis.clients.jedis.UnifiedJedis;

/** The same lock contract, unchanged, on a Redis Cluster of 3 masters and 3 replicas, through a cluster client. */
class ClusterLockContractTests extends LockContract {

    @Override
    protected UnifiedJedis connect() {
        return SharedCluster.newClientOnEmptyCluster();
    }
}

package dev.turnstile.redis;

import redis.clients.jedis.UnifiedJedis;

/** The same semaphore contract, unchanged, on a Redis Cluster of 3 masters and 3 replicas, through a cluster client. */
class ClusterSemaphoreContractTests extends SemaphoreContract {

    @Override
    protected UnifiedJedis connect() {
        return SharedCluster.newClientOnEmptyCluster();
    }
}

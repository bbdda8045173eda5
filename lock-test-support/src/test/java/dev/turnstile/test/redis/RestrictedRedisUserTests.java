package dev.turnstile.test.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RestrictedRedisUserTests {

    @Test
    void versionsAreReadFromInfoServerValkeyByItsOwnField() {
        assertThat(RedisVersion.fromInfo("# Server\r\nredis_version:6.2.11\r\nredis_mode:standalone\r\n"))
                .isEqualTo(new RedisVersion(6, 2, false));
        assertThat(RedisVersion.fromInfo("redis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n"))
                .isEqualTo(new RedisVersion(7, 2, true));
        assertThat(RedisVersion.fromInfo("redis_version:8.0-m02\r\n")).isEqualTo(new RedisVersion(8, 0, false));
        assertThatThrownBy(() -> RedisVersion.fromInfo("# Server\r\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis_version");
    }

    @Test
    void eachVersionGetsTheBaseRuleAndOnlyTheAdditionsItKnows() {
        String sharded = RestrictedRedisUser.SHARDED_PUBSUB_RULES;
        String setInfo = RestrictedRedisUser.CLIENT_SETINFO_RULES;
        assertThat(RestrictedRedisUser.rulesFor(new RedisVersion(6, 2, false)))
                .startsWith(RestrictedRedisUser.RULES)
                .doesNotContain(sharded)
                .contains(setInfo);
        assertThat(RestrictedRedisUser.rulesFor(new RedisVersion(7, 0, false)))
                .startsWith(RestrictedRedisUser.RULES)
                .contains(sharded)
                .doesNotContain(setInfo);
        assertThat(RestrictedRedisUser.rulesFor(new RedisVersion(7, 2, true)))
                .startsWith(RestrictedRedisUser.RULES)
                .contains(sharded)
                .contains(setInfo);
        assertThat(RestrictedRedisUser.RULES).doesNotContain("spublish", "setinfo");
    }
}

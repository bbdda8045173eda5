package dev.turnstile.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.redis.TurnstileException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

class RedisErrorsTests {

    @Test
    void anAclRefusalIsExplainedTheSameWayInTheWordsOfEachServer() {
        for (String refusal : new String[] {
            "NOPERM this user has no permissions to run the 'del' command", // Redis 6.2 and 7, top level
            "ERR The user executing the script can't run this command or subcommand script: f2d, on"
                    + " @user_script:9.", // Redis 7.0, inside a script
            "ERR ACL failure in script: User no-time has no permissions to run the 'time' command script:"
                    + " f2d, on @user_script:9." // Valkey 8, inside a script
        }) {
            TurnstileException translated =
                    RedisErrors.translate(new JedisDataException(refusal), "acquire lock 'item:42'");
            assertThat(translated.getMessage())
                    .as(refusal)
                    .startsWith(
                            "Redis refused the command to acquire lock 'item:42' to the user Turnstile connects as: ")
                    .endsWith(RedisErrors.GRANT_ADVICE);
        }
    }

    @Test
    void aScriptErrorThatIsNoRefusalIsNotExplainedAsOne() {
        TurnstileException translated = RedisErrors.translate(
                new JedisDataException("ERR user_script:1: Script attempted to access nonexistent global variable"),
                "acquire lock 'item:42'");
        assertThat(translated.getMessage())
                .startsWith("Redis rejected the command")
                .doesNotContain("Grant");
    }
}

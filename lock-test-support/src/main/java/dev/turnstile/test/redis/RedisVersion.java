package dev.turnstile.test.redis;

/**
 * The Redis version a server speaks, from its {@code INFO server} reply: {@code redis_version}, and
 * {@code valkey_version} where the server is Valkey (which reports the Redis version it is
 * compatible with as {@code redis_version}, 7.2.4 on Valkey 8).
 *
 * @param major the major Redis version
 * @param minor the minor Redis version
 * @param valkey whether the server is Valkey
 */
public record RedisVersion(int major, int minor, boolean valkey) {

    /** Parses an {@code INFO server} reply; throws {@link IllegalArgumentException} if it has no {@code redis_version}. */
    public static RedisVersion fromInfo(String info) {
        String version = field(info, "redis_version");
        if (version == null) {
            throw new IllegalArgumentException("INFO server has no redis_version: " + info);
        }
        String[] parts = version.split("\\.");
        return new RedisVersion(
                leadingNumber(parts[0]),
                parts.length > 1 ? leadingNumber(parts[1]) : 0,
                field(info, "valkey_version") != null);
    }

    /** The digits a version part starts with ({@code 0} for none): {@code "0-m02"} is 0. */
    private static int leadingNumber(String part) {
        int end = 0;
        while (end < part.length() && Character.isDigit(part.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Integer.parseInt(part.substring(0, end));
    }

    /** Whether this version is {@code major.minor} or newer. */
    public boolean atLeast(int major, int minor) {
        return this.major > major || (this.major == major && this.minor >= minor);
    }

    @Override
    public String toString() {
        return (this.valkey ? "Valkey, Redis " : "Redis ") + this.major + "." + this.minor;
    }

    private static @org.jspecify.annotations.Nullable String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).strip();
            }
        }
        return null;
    }
}

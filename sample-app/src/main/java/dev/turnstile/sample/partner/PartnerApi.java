package dev.turnstile.sample.partner;

import dev.turnstile.annotation.Semaphore;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * The "out-of-game marketplace": a slow partner API that allows each account five concurrent
 * calls. The semaphore enforces that across every instance of this application; the sixth
 * concurrent call of an account is refused at once (HTTP 429), other accounts are unaffected.
 */
@Service
public class PartnerApi {

    private final Duration latency;

    public PartnerApi(@Value("${sample.partner.latency}") Duration latency) {
        this.latency = latency;
    }

    /** A quote for {@code itemId}, as the partner would price it. */
    public record Quote(String accountId, String itemId, long price) {}

    @Semaphore(key = "account:#accountId", limit = 5)
    public Quote quote(String accountId, String itemId) {
        simulateLatency();
        return new Quote(accountId, itemId, 10 + ThreadLocalRandom.current().nextLong(90));
    }

    private void simulateLatency() {
        try {
            Thread.sleep(this.latency.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

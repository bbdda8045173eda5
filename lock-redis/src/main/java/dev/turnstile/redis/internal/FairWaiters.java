package dev.turnstile.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The waiters of a {@link FairPermitQueue} and where each stands: arrived (no ticket yet), sent
 * (in the call in flight), ticketed (in ticket order), or leaving Redis's queue with the next call;
 * and the permits parked for the call in flight. Not thread-safe: every method runs under the
 * queue's lock.
 */
final class FairWaiters {

    /** The most arrivals one call takes tickets for. */
    private static final int MAX_ARRIVALS = 256;

    /** One waiting thread. {@link #outcome} is read without the lock; the rest is under it. */
    static final class Waiter {

        final Thread thread = Thread.currentThread();
        final String id;
        final String member;
        final LeaseTerms terms;
        long ticket;
        long token;
        volatile @Nullable Object outcome;
        boolean gone;
        /** Whether a call was sent for it: it may be in Redis's queue, or hold there, ever since. */
        boolean sent;

        Waiter(String id, LeaseTerms terms) {
            this.id = id;
            this.member = id + "/" + terms.millis();
            this.terms = terms;
        }
    }

    /**
     * A permit a holder released while no waiter here had a ticket yet but some were getting one:
     * kept for them until the call in flight answers (then passed on, or released in Redis).
     */
    record Parked(PermitCohort cohort, long deadlineNanos, long leaseNanos) {}

    /** The waiters one call is about: those it queues and those that wait on. */
    record Batch(List<Waiter> arriving, List<Waiter> waiting) {}

    private final List<Waiter> arrivals = new ArrayList<>();
    private final TreeMap<Long, Waiter> ticketed = new TreeMap<>();
    private final Map<String, Waiter> sent = new HashMap<>();
    private final List<String> leaving = new ArrayList<>();
    private final List<Parked> parked = new ArrayList<>();
    private long bound;

    void arrive(Waiter waiter) {
        this.arrivals.add(waiter);
    }

    /** Whether a call has members to queue or to take out of Redis's queue, or a parked permit. */
    boolean callDue() {
        return !this.arrivals.isEmpty() || !this.leaving.isEmpty() || !this.parked.isEmpty();
    }

    /** Whether a ticketing call is due or in flight ({@code syncing}) for waiters without a ticket. */
    boolean ticketing(boolean syncing) {
        return syncing || !this.arrivals.isEmpty();
    }

    /** The members that leave with the next call, taken. */
    List<String> takeLeaving() {
        List<String> left = new ArrayList<>(this.leaving);
        this.leaving.clear();
        return left;
    }

    /** The waiters the next call is about; its arrivals are now sent. */
    Batch takeBatch() {
        List<Waiter> arriving = new ArrayList<>(this.arrivals.subList(0, Math.min(MAX_ARRIVALS, this.arrivals.size())));
        this.arrivals.subList(0, arriving.size()).clear();
        arriving.removeIf(waiter -> waiter.outcome != null || waiter.gone); // never expected: served, or left
        for (Waiter waiter : arriving) {
            waiter.sent = true;
            this.sent.put(waiter.member, waiter);
        }
        return new Batch(arriving, new ArrayList<>(this.ticketed.values()));
    }

    /** The longest lease of a batch's waiters. */
    static Duration longestLease(Batch batch) {
        Duration longest = Duration.ZERO;
        for (List<Waiter> waiters : List.of(batch.arriving(), batch.waiting())) {
            for (Waiter waiter : waiters) {
                if (waiter.terms.leaseTime().compareTo(longest) > 0) {
                    longest = waiter.terms.leaseTime();
                }
            }
        }
        return longest;
    }

    /**
     * A call failed, but may have run: the next one sends the same members again (and takes a
     * permit granted to one of them then).
     */
    void callFailed(List<String> left, Batch batch) {
        this.leaving.addAll(left);
        for (int i = batch.arriving().size() - 1; i >= 0; i--) {
            Waiter waiter = batch.arriving().get(i);
            this.sent.remove(waiter.member);
            if (waiter.gone) {
                this.leaving.add(waiter.member);
            } else {
                this.arrivals.add(0, waiter);
            }
        }
    }

    /**
     * Takes a call's answer: the tickets, the bound, and each grant, whose outcome {@code granted}
     * makes; returns the waiters granted (to wake). A member nobody waits for any more leaves with
     * the next call, which frees a permit granted to it.
     */
    List<Waiter> answered(FairQueueCall.Answer answer, Function<Waiter, Object> granted) {
        this.bound = answer.bound();
        List<Waiter> displaced = new ArrayList<>();
        for (FairQueueCall.Ticket ticket : answer.tickets()) {
            Waiter waiter = this.sent.get(ticket.member());
            if (waiter == null || waiter.gone) {
                this.sent.remove(ticket.member());
                this.leaving.add(ticket.member());
                continue;
            }
            waiter.token = ticket.token();
            if (waiter.ticket > 0) {
                this.ticketed.remove(waiter.ticket, waiter); // its place had lapsed: it queued again
            }
            waiter.ticket = ticket.ticket();
            Waiter before = this.ticketed.put(ticket.ticket(), waiter);
            if (before != null && before != waiter) {
                before.ticket = 0; // the ticket counter went back (a failover lost it)
                displaced.add(before);
            }
        }
        List<Waiter> served = new ArrayList<>();
        for (String member : answer.granted()) {
            Waiter waiter = this.sent.remove(member);
            if (waiter == null || waiter.gone || waiter.outcome != null) {
                this.leaving.add(member);
                continue;
            }
            this.ticketed.remove(waiter.ticket, waiter);
            if (waiter.token == 0) {
                // No token reserved for it (never expected): it gives the permit back and queues again.
                this.leaving.add(member);
                this.arrivals.add(waiter);
                continue;
            }
            waiter.outcome = granted.apply(waiter);
            served.add(waiter);
        }
        for (Waiter waiter : displaced) {
            if (waiter.ticket == 0 && waiter.outcome == null && !waiter.gone) {
                this.arrivals.add(waiter); // queues again, with a ticket of its own
            }
        }
        return served;
    }

    /** {@code me} gives up; returns what it was given meanwhile, if anything. */
    @Nullable
    Object leave(Waiter me) {
        Object outcome = me.outcome;
        if (outcome == null && !me.gone) {
            me.gone = true;
            // A waiter back among the arrivals after a failed call may hold in Redis all the same.
            if (!this.arrivals.remove(me) || me.sent) {
                this.ticketed.remove(me.ticket, me);
                this.sent.remove(me.member);
                this.leaving.add(me.member);
            }
        }
        return outcome;
    }

    /** A waiter other than {@code me}, ticketed ones first, or null. */
    @Nullable
    Waiter other(@Nullable Waiter me) {
        Predicate<Waiter> notMe = waiter -> waiter != me;
        return this.ticketed.values().stream()
                .filter(notMe)
                .findFirst()
                .orElseGet(
                        () -> this.arrivals.stream().filter(notMe).findFirst().orElse(null));
    }

    /** Whether a waiter with a ticket waits here. */
    boolean anyTicketed() {
        return !this.ticketed.isEmpty();
    }

    /** The waiter here with the lowest ticket, if it is below the bound. */
    @Nullable
    Waiter nextInTurn() {
        Map.Entry<Long, Waiter> first = this.ticketed.firstEntry();
        return first == null || first.getKey() >= this.bound ? null : first.getValue();
    }

    /** Passes {@code cohort}'s permit to {@code next} (the caller unparks it). */
    void handTo(Waiter next, PermitCohort cohort, long deadlineNanos, long now) {
        this.ticketed.remove(next.ticket, next);
        this.sent.remove(next.member);
        this.leaving.add(next.member);
        cohort.serveOneMore();
        next.outcome = new PermitQueue.PermitHandOff(cohort, next.token, deadlineNanos, now);
    }

    void park(Parked permit) {
        this.parked.add(permit);
    }

    /**
     * Passes each parked permit to the next waiter in turn, when it may still serve one (adding it
     * to {@code wake}); returns those to release in Redis. After an answer.
     */
    List<Parked> passParked(List<Waiter> wake) {
        List<Parked> release = new ArrayList<>();
        long now = System.nanoTime();
        for (Parked permit : this.parked) {
            Waiter next = nextInTurn();
            if (next != null
                    && permit.deadlineNanos() - now > LocalGates.minLeftToPass(permit.leaseNanos())
                    && permit.cohort().mayServe(now)) {
                handTo(next, permit.cohort(), permit.deadlineNanos(), now);
                wake.add(next);
            } else {
                release.add(permit);
            }
        }
        this.parked.clear();
        return release;
    }

    /** Takes every parked permit, to release in Redis (the call failed). */
    List<Parked> takeParked() {
        List<Parked> release = new ArrayList<>(this.parked);
        this.parked.clear();
        return release;
    }
}

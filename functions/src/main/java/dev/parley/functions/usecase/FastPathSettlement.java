package dev.parley.functions.usecase;

import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry.Reach;
import dev.parley.ports.MessageLog;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The fan-out's first step for a batch: the messages their sends delivered themselves (docs/functions.md, the fast path). */
final class FastPathSettlement {
    private static final Logger LOG = LoggerFactory.getLogger(FastPathSettlement.class);
    private final MessageLog messages;
    private final Delivery delivery;
    private final Clock clock;
    private final Consumer<Duration> pause;

    FastPathSettlement(MessageLog messages, Delivery delivery, Clock clock, Consumer<Duration> pause) {
        this.messages = messages;
        this.delivery = delivery;
        this.clock = clock;
        this.pause = pause;
    }

    /**
     * Takes out of the batch the messages their sends delivered themselves (the fast path), adding the devices of their
     * recorded members to the batch's pushes; returns the rest, to be delivered here. The records of stamped messages are
     * read once their windows (and the margin) have passed, all in one batched read; those not recorded yet are read again
     * every {@link FanOut#RECORD_RECHECK} until {@link FanOut#RECORD_DEADLINE} after the windows, since their sends may still
     * be waiting for answers or writing under load (delivering them now would post every message twice). Messages recorded
     * as left to the stream, or never recorded, or whose read failed, are delivered here (clients drop what they already
     * have by seq).
     */
    List<FanOut.Envelope> settle(List<FanOut.Envelope> batch, List<FanOut.Delivered> delivered, BatchPushes pushes) {
        List<FanOut.Envelope> stamped = batch.stream().filter(envelope -> envelope.fastPathUntil().isPresent()).toList();
        if (stamped.isEmpty()) {
            return batch;
        }
        long settling = clock.millis();
        long windowsEnd = stamped.stream().mapToLong(envelope -> envelope.fastPathUntil().getAsLong()).max().orElseThrow();
        // A stamp far ahead would be a clock's fault: the waits are bounded from now as well.
        long firstRead = Math.min(windowsEnd + FanOut.FAST_PATH_RECORD_MARGIN.toMillis(), settling + FanOut.MAX_FAST_PATH_WAIT.toMillis());
        long giveUp = Math.min(windowsEnd + FanOut.RECORD_DEADLINE.toMillis(),
                settling + FanOut.MAX_FAST_PATH_WAIT.toMillis() + FanOut.RECORD_DEADLINE.toMillis());
        pauseUntil(firstRead);
        Map<Message, MessageLog.FastPathRecord> recorded = new HashMap<>();
        List<Message> unrecorded = stamped.stream().map(FanOut.Envelope::message).toList();
        while (true) {
            try {
                recorded.putAll(messages.fastPathRecords(unrecorded));
            } catch (RuntimeException e) {
                LOG.warn("reading fast-path records failed; delivering the {} messages not recorded yet", unrecorded.size(), e);
                break;
            }
            unrecorded = unrecorded.stream().filter(message -> !recorded.containsKey(message)).toList();
            if (unrecorded.isEmpty() || clock.millis() >= giveUp) {
                break;
            }
            pauseUntil(Math.min(giveUp, clock.millis() + FanOut.RECORD_RECHECK.toMillis()));
        }
        if (!unrecorded.isEmpty()) {
            LOG.warn("{} stamped messages have no fast-path record {} ms after their window; their sends died or lag: delivering them",
                    unrecorded.size(), clock.millis() - windowsEnd);
        }
        Map<Message, List<UserId>> deliveredBySend = new HashMap<>();
        recorded.forEach((message, record) -> {
            if (record instanceof MessageLog.FastPathRecord.Delivered done) {
                deliveredBySend.put(message, done.offline());
            }
        });
        Map<UserId, Reach> toPush = reachOfRecorded(deliveredBySend);
        List<FanOut.Envelope> left = new ArrayList<>(batch.size());
        for (FanOut.Envelope envelope : batch) {
            List<UserId> offline = deliveredBySend.get(envelope.message());
            if (offline == null) {
                left.add(envelope);
                continue;
            }
            // The send found these members with a device to wake; what to wake is read now, as for any message.
            Audience audience = Audience.of(envelope.message(), offline, toPush, envelope.senderConnection(), clock.millis());
            pushes.add(envelope.message(), audience.pushTargets());
            delivered.add(new FanOut.Delivered(envelope.message(), 0, 0, audience.pushTargets().size(), 0, true));
        }
        return left;
    }

    private void pauseUntil(long epochMillis) {
        long wait = epochMillis - clock.millis();
        if (wait > 0) {
            pause.accept(Duration.ofMillis(wait));
        }
    }

    /** The reach of every member the batch's fast paths recorded for push, in one read; none when that read fails (nobody is pushed). */
    private Map<UserId, Reach> reachOfRecorded(Map<Message, List<UserId>> recorded) {
        Set<UserId> users = new LinkedHashSet<>();
        recorded.values().forEach(users::addAll);
        if (users.isEmpty()) {
            return Map.of();
        }
        try {
            return delivery.reach(users);
        } catch (RuntimeException e) {
            // The messages reached every live connection; only their push is lost, which the next message's may make up for.
            LOG.warn("reading the reach of {} members to push failed; they get no push for these messages", users.size(), e);
            return Map.of();
        }
    }
}

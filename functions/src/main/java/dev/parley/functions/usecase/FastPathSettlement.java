package dev.parley.functions.usecase;

import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry.Reach;
import dev.parley.ports.MessageLog;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
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
     * Takes out of the batch the messages their sends delivered themselves (the fast path), adding the
     * devices of their recorded members to the batch's pushes; returns the rest, to be delivered here. Stamped messages are looked up once
     * their windows (and the margin) have passed, all in one batched read; if that read fails, every
     * message is delivered here (clients drop what they already have by seq).
     */
    List<FanOut.Envelope> settle(List<FanOut.Envelope> batch, List<FanOut.Delivered> delivered, BatchPushes pushes) {
        List<FanOut.Envelope> stamped = batch.stream().filter(envelope -> envelope.fastPathUntil().isPresent()).toList();
        if (stamped.isEmpty()) {
            return batch;
        }
        long until = stamped.stream().mapToLong(envelope -> envelope.fastPathUntil().getAsLong()).max().orElseThrow()
                + FanOut.FAST_PATH_RECORD_MARGIN.toMillis();
        long wait = Math.min(until - clock.millis(), FanOut.MAX_FAST_PATH_WAIT.toMillis());
        if (wait > 0) {
            pause.accept(Duration.ofMillis(wait));
        }
        Map<Message, List<UserId>> recorded;
        try {
            recorded = messages.fastDeliveries(stamped.stream().map(FanOut.Envelope::message).toList());
        } catch (RuntimeException e) {
            LOG.warn("reading fast deliveries failed; delivering every message of the batch", e);
            return batch;
        }
        Map<UserId, Reach> toPush = reachOfRecorded(recorded);
        List<FanOut.Envelope> left = new ArrayList<>(batch.size());
        for (FanOut.Envelope envelope : batch) {
            List<UserId> offline = recorded.get(envelope.message());
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

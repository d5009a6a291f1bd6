package dev.parley.functions.usecase;

import dev.parley.ports.Inbox;
import dev.parley.ports.RedeliveryTimers;

/**
 * A redelivery check's timer fired: a device that acknowledged the notification is done; one that did not is sent it again
 * (when it is connected) with its next check timed, until the notification was sent the most times, when its delivery is
 * given up (recorded, and counted by the handler): the device still finds it in its inbox.
 */
public final class Redelivery {
    /** What a check did. */
    public enum Outcome { ACKNOWLEDGED, SENT_AGAIN, WAITING_FOR_THE_DEVICE, DEAD, GONE }

    private final Inbox inbox;
    private final NotificationDispatch dispatch;
    private final int attempts;

    public Redelivery(Inbox inbox, NotificationDispatch dispatch, int attempts) {
        this.inbox = inbox;
        this.dispatch = dispatch;
        this.attempts = attempts;
    }

    public Outcome check(RedeliveryTimers.Check check) {
        if (inbox.acknowledged(check.user(), check.device(), check.notification())) {
            return Outcome.ACKNOWLEDGED;
        }
        if (check.attempt() >= attempts) {
            inbox.deliveryDead(check.user(), check.device(), check.notification());
            return Outcome.DEAD;
        }
        return inbox.find(check.user(), check.notification())
                .map(notification -> dispatch.sendAgain(check.user(), check.device(), notification, check.attempt() + 1)
                        ? Outcome.SENT_AGAIN : Outcome.WAITING_FOR_THE_DEVICE)
                .orElse(Outcome.GONE);
    }
}

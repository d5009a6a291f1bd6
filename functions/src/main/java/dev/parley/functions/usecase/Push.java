package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.PushDevices;
import dev.parley.ports.PushNotifier;
import dev.parley.ports.PushService;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offline push from the stream's fan-out, never on the send's path: one content-free wake-up per device
 * and conversation per coalescing window. The first message of a burst is pushed at once; the rest of
 * the window's messages are absorbed, at no write: the device's push mark (read with its connections)
 * says it is quiet, and marks this environment wrote itself are remembered for the batches that read
 * the item before them. Only a push that happens costs a write, the conditional one that sets the mark,
 * so two fan-outs racing for the same device push once. A throttled or failing publish is retried with
 * backoff by the SNS client; one that still fails is logged and its mark taken back, so the next message
 * pushes; it never holds back the delivery, since online members were posted to first.
 */
public final class Push implements PushNotifier {
    private static final Logger LOG = LoggerFactory.getLogger(Push.class);
    /** How many of a user's conversations the badge counts: enough for any badge a person reads (it shows 99+). */
    static final int BADGE_CONVERSATIONS = 500;
    private static final int BADGE_PAGE = 100;
    /** Marks this environment wrote, remembered until they run out: a few thousand devices' worth at most. */
    private static final int REMEMBERED_MARKS = 10_000;

    private final PushDevices devices;
    private final PushService service;
    private final PushEndpoints endpoints;
    private final ConversationRepository conversations;
    private final Clock clock;
    private final Duration window;
    private final Map<String, Long> recentMarks = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED_MARKS;
        }
    });

    /** @param window how long after a push a device gets no other for the same conversation */
    public Push(PushDevices devices, PushService service, ConversationRepository conversations, Clock clock, Duration window) {
        this.devices = devices;
        this.service = service;
        this.endpoints = new PushEndpoints(devices, service);
        this.conversations = conversations;
        this.clock = clock;
        this.window = window;
    }

    @Override
    public void push(Message message, List<Target> targets) {
        Map<UserId, Long> badges = new HashMap<>();
        for (Target target : targets) {
            PushDevices.PushDevice device = target.device();
            long now = clock.millis();
            String remembered = device.user().value() + "/" + dev.parley.ports.ConnectionRegistry.pushMark(device.device(), message.conversationId());
            if (target.quietUntil().isPresent() && target.quietUntil().getAsLong() > now || recentMarks.getOrDefault(remembered, 0L) > now) {
                continue;
            }
            long quietUntil = now + window.toMillis();
            boolean marked = false;
            try {
                marked = devices.markPushed(device.user(), device.device(), message.conversationId(), now, quietUntil, target.expiredMarks());
                recentMarks.put(remembered, quietUntil);
                if (!marked) {
                    continue;
                }
                long badge = badges.computeIfAbsent(device.user(), this::unread);
                if (service.publish(device, message.conversationId(), badge) == PushService.Published.ENDPOINT_GONE) {
                    endpoints.retire(device, "");
                    LOG.info("push endpoint gone; device {} of {} retired", device.device().value(), device.user().value());
                }
            } catch (RuntimeException e) {
                LOG.warn("push to a device of {} failed", device.user().value(), e);
                if (marked) {
                    release(device, message, quietUntil, remembered);
                }
            }
        }
    }

    /** Takes back the mark of a push that was not published, so that the next message pushes instead of being absorbed. */
    private void release(PushDevices.PushDevice device, Message message, long quietUntil, String remembered) {
        recentMarks.remove(remembered, quietUntil);
        try {
            devices.releaseMark(device.user(), device.device(), message.conversationId(), quietUntil);
        } catch (RuntimeException e) {
            LOG.warn("taking back the push mark of a device of {} failed; its next push waits for the window", device.user().value(), e);
        }
    }

    /** The user's unread messages over their conversations (as conversation.list counts them), for the badge. */
    private long unread(UserId user) {
        long total = 0;
        Optional<String> cursor = Optional.empty();
        for (int read = 0; read < BADGE_CONVERSATIONS; read += BADGE_PAGE) {
            ConversationRepository.MembershipPage page = conversations.memberships(user, cursor, BADGE_PAGE);
            Map<ConversationId, ConversationRepository.Summary> summaries = conversations.summaries(
                    page.memberships().stream().map(Membership::conversationId).toList());
            for (Membership membership : page.memberships()) {
                ConversationRepository.Summary summary = summaries.get(membership.conversationId());
                total += summary == null ? 0 : Conversations.unread(membership, summary);
            }
            cursor = page.nextCursor();
            if (cursor.isEmpty()) {
                break;
            }
        }
        return total;
    }
}

package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.Inbox;
import java.util.Map;
import java.util.Optional;

/**
 * The number on the app's icon that a push sets: the user's unread messages over their conversations (as
 * {@code conversation.list} counts them) and their unseen notifications. One number for both, so that a message's push and a
 * notification's never set the badge to two different things.
 */
public final class Badges {
    /** How many of a user's conversations the badge counts: enough for any badge a person reads (it shows 99+). */
    static final int BADGE_CONVERSATIONS = 500;
    private static final int BADGE_PAGE = 100;

    private final ConversationRepository conversations;
    private final Inbox inbox;

    public Badges(ConversationRepository conversations, Inbox inbox) {
        this.conversations = conversations;
        this.inbox = inbox;
    }

    /** The user's badge, reading their inbox's counts. */
    public long of(UserId user) {
        return withUnseen(user, inbox.counts(user).unseen());
    }

    /** The user's badge when their unseen notifications are known already (just written with a notification). */
    public long withUnseen(UserId user, long unseenNotifications) {
        return unreadMessages(user) + unseenNotifications;
    }

    private long unreadMessages(UserId user) {
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

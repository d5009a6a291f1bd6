package dev.parley.functions.usecase;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.ConversationRepository.Stored;
import dev.parley.ports.ConversationRepository.Summary;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ConversationSummary;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Conversations: creating them, changing a group's members, pinning their messages, listing a user's conversations. */
public final class Conversations {
    private static final int LIST_PAGE = 50;

    private final ConversationRepository conversations;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final MessageLog messages;

    private final GroupChanges groups;
    private final GroupInvites invites;

    /**
     * @param backoff how long to wait before trying again a membership change that lost a race
     * @param media checks a group's avatar
     */
    public Conversations(ConversationRepository conversations, MessageLog messages, Delivery delivery, FrameCodec codec, Backoff backoff,
                         Media media, java.time.Clock clock) {
        this.conversations = conversations;
        this.messages = messages;
        this.delivery = delivery;
        this.codec = codec;
        this.groups = new GroupChanges(conversations, delivery, codec, backoff, media);
        this.invites = new GroupInvites(conversations, groups, clock);
    }

    /** Changes to a group's members, roles, settings and bans. */
    public GroupChanges groups() {
        return groups;
    }

    /** A group's invite links. */
    public GroupInvites invites() {
        return invites;
    }

    /**
     * {@code conversation.create}: a direct conversation with one other user (the same one whoever
     * creates it), or a group named by the request's id, so a retried create finds what the first made.
     */
    public ServerFrame.ConversationCreated create(Caller caller, ClientFrame.ConversationCreate create) {
        Conversation wanted;
        if (create.kind() == ConversationKind.DIRECT) {
            List<UserId> others = create.members().stream().filter(u -> !u.equals(caller.user())).toList();
            if (others.size() != 1 || create.members().size() - others.size() > 1) {
                throw new DomainException(ErrorCode.BAD_REQUEST, "a direct conversation is between you and exactly one other user");
            }
            wanted = Conversation.direct(caller.user(), others.getFirst());
        } else {
            wanted = Conversation.group(ConversationId.group(create.id()), caller.user(), create.members(), create.name());
        }
        Stored stored = conversations.createIfAbsent(wanted, caller.user());
        if (wanted.kind() == ConversationKind.GROUP && !stored.createdBy().equals(caller.user())) {
            throw new DomainException(ErrorCode.CONFLICT, "request id " + create.id() + " was used by another user");
        }
        // A direct conversation created before may have pins; a new one has none and its head says so.
        return new ServerFrame.ConversationCreated(create.id(), withPins(stored.conversation()));
    }

    private Conversation withPins(Conversation conversation) {
        return groups.withPins(conversation);
    }

    /**
     * {@code message.pin}: a group's admins, or either member of a direct conversation, pin a message that counts (not a void, a
     * change or a deleted one) or unpin any seq; every member hears the conversation, with its pinned seqs, as
     * {@code conversation.updated}.
     */
    public ServerFrame.ConversationUpdated pin(Caller caller, ClientFrame.MessagePin pin) {
        ConversationId id = pin.conversationId();
        Stored stored = conversations.require(id);
        stored.conversation().requirePinner(caller.user());
        if (pin.pinned()) {
            MessagePolicy.requireMessage(messages.at(id, pin.seq()), pin.seq(), "seq");
        }
        Conversation updated = stored.conversation().withPinned(conversations.pin(id, pin.seq(), pin.pinned()));
        ServerFrame.ConversationUpdated frame = new ServerFrame.ConversationUpdated(updated);
        delivery.postToUsers(updated.members(), codec.encode(frame), Optional.of(caller.connection()));
        return frame;
    }

    /** A member's unread count: the messages (voids left out) after what they read, or after they joined. */
    static long unread(Membership membership, Summary summary) {
        return summary.messagesAfter(Math.max(membership.watermarks().readSeq(), membership.joinedAfterSeq()));
    }

    /** {@code conversation.list}: a page of the caller's conversations, each with its last seq and the caller's unread count. */
    public ServerFrame.ConversationPage list(Caller caller, ClientFrame.ConversationList list) {
        ConversationRepository.MembershipPage page = conversations.memberships(caller.user(), list.cursor(), LIST_PAGE);
        Map<ConversationId, Summary> summaries = conversations.summaries(page.memberships().stream().map(Membership::conversationId).toList());
        List<ConversationSummary> listed = new ArrayList<>();
        for (Membership membership : page.memberships()) {
            Summary summary = summaries.get(membership.conversationId());
            if (summary == null) {
                continue;
            }
            long unread = unread(membership, summary);
            // Both from the same row and head; the bound only keeps a line valid whatever a future change to either count does.
            listed.add(new ConversationSummary(summary.id(), summary.kind(), summary.name(), summary.memberCount(), summary.lastSeq(),
                    unread, Math.min(summary.mentionsOf(membership), unread)));
        }
        return new ServerFrame.ConversationPage(listed, page.nextCursor());
    }
}

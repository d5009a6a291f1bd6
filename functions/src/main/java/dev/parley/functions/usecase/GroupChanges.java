package dev.parley.functions.usecase;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.ConversationRepository.Stored;
import dev.parley.ports.ConversationRepository.Summary;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Changes to a conversation's members, roles, settings and bans: each one the domain's rule ({@link Conversation}) applied to
 * the stored conversation and written if nothing changed it meanwhile, tried again when another change won the race. Everyone
 * in the conversation before or after the change hears of it as {@code conversation.updated} (the caller's other connections
 * too: the caller's own gets the answer).
 */
public final class GroupChanges {
    private final ConversationRepository conversations;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Backoff backoff;
    private final Media media;

    GroupChanges(ConversationRepository conversations, Delivery delivery, FrameCodec codec, Backoff backoff, Media media) {
        this.conversations = conversations;
        this.delivery = delivery;
        this.codec = codec;
        this.backoff = backoff;
        this.media = media;
    }

    public ServerFrame.ConversationUpdated addMembers(Caller caller, ClientFrame.ConversationMembersAdd add) {
        return change(caller, add.conversationId(), add.members(), current -> current.conversation().withMembersAdded(caller.user(), add.members()));
    }

    public ServerFrame.ConversationUpdated removeMembers(Caller caller, ClientFrame.ConversationMembersRemove remove) {
        return change(caller, remove.conversationId(), remove.members(), current -> current.conversation()
                .withMembersRemoved(caller.user(), remove.members(), seniorityIfOwner(current, caller.user(), remove.members())));
    }

    public ServerFrame.ConversationUpdated leave(Caller caller, ClientFrame.ConversationLeave leave) {
        return change(caller, leave.conversationId(), List.of(caller.user()), current -> current.conversation()
                .withLeft(caller.user(), seniorityIfOwner(current, caller.user(), List.of(caller.user()))));
    }

    public ServerFrame.ConversationUpdated role(Caller caller, ClientFrame.ConversationMembersRole role) {
        return change(caller, role.conversationId(), List.of(), current -> current.conversation().withRole(caller.user(), role.userIds(), role.role()));
    }

    public ServerFrame.ConversationUpdated ban(Caller caller, ClientFrame.ConversationMembersBan ban) {
        return change(caller, ban.conversationId(), ban.userIds(), current -> current.conversation().withBanned(caller.user(), ban.userIds()));
    }

    public ServerFrame.ConversationUpdated unban(Caller caller, ClientFrame.ConversationMembersUnban unban) {
        return change(caller, unban.conversationId(), List.of(), current -> current.conversation().withUnbanned(caller.user(), unban.userIds()));
    }

    /** {@code conversation.update}: the avatar must be an image uploaded for this conversation. */
    public ServerFrame.ConversationUpdated update(Caller caller, ClientFrame.ConversationUpdate update) {
        update.changes().avatarMediaId().flatMap(avatar -> avatar)
                .ifPresent(avatar -> media.requireAvatar(update.conversationId(), avatar));
        return change(caller, update.conversationId(), List.of(), current -> current.conversation().withChanges(caller.user(), update.changes()));
    }

    /** These users join by an invite; a banned one is refused. */
    ServerFrame.ConversationUpdated join(Caller caller, ConversationId id) {
        return change(caller, id, List.of(caller.user()), current -> current.conversation().withJoined(List.of(caller.user())));
    }

    /**
     * Applies the change to the conversation as stored, until it is written or makes no difference; {@code touched} are the
     * users whose membership rows a change that found nothing to do repairs (a retry of one whose row writes failed after the
     * conversation itself was written).
     */
    private ServerFrame.ConversationUpdated change(Caller caller, ConversationId id, Collection<UserId> touched,
                                                   Function<Stored, Conversation> change) {
        Backoff.Retries retries = backoff.retries();
        do {
            Stored current = conversations.require(id);
            Conversation updated = change.apply(current);
            boolean unchanged = updated.equals(current.conversation());
            if (unchanged) {
                conversations.repairMemberships(current, touched);
            }
            if (unchanged || conversations.replace(current, updated)) {
                ServerFrame.ConversationUpdated frame = new ServerFrame.ConversationUpdated(withPins(updated));
                Set<UserId> everyone = new LinkedHashSet<>(current.conversation().members());
                everyone.addAll(updated.members());
                delivery.postToUsers(everyone, codec.encode(frame), Optional.of(caller.connection()));
                return frame;
            }
        } while (retries.await());
        throw new DomainException(ErrorCode.CONFLICT, "conversation " + id + " kept changing; retry");
    }

    /** The conversation object as members see it: with the pinned seqs its head keeps. */
    Conversation withPins(Conversation conversation) {
        return conversation.withPinned(conversations.summary(conversation.id()).map(Summary::pinned).orElse(new TreeSet<>()));
    }

    /**
     * The members longest-serving first (who joined earliest; at one seq, in id order), read only when the owner is among those
     * leaving: they hand ownership on to the first admin of it, else its first member.
     */
    private List<UserId> seniorityIfOwner(Stored current, UserId actor, Collection<UserId> leaving) {
        boolean ownerLeaves = current.conversation().owner().filter(owner -> owner.equals(actor) && leaving.contains(owner)).isPresent();
        if (!ownerLeaves) {
            return List.of();
        }
        return conversations.members(current.conversation().id()).stream()
                .sorted(Comparator.comparingLong(Membership::joinedAfterSeq).thenComparing(Membership::user))
                .map(Membership::user).toList();
    }
}

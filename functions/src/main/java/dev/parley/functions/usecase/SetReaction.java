package dev.parley.functions.usecase;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.Message;
import dev.parley.model.MessageDetails;
import dev.parley.model.Relation;
import dev.parley.model.RelationKind;
import dev.parley.model.ReactionCount;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.ports.ReactionStore;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code reaction.set}: a member's one reaction to a message that counts (not a void, a change or a deleted message), stored per
 * user in one write whatever the group's size. The members are told by the reactions function, which lists the message's
 * reactions onto it at most once a second ({@link ReactionListings}): a reaction costs one write here, not one post per
 * member. The target is read beside the membership check.
 */
public final class SetReaction {
    private final ConversationRepository conversations;
    private final MessageLog messages;
    private final ReactionStore reactions;
    private final Clock clock;
    private final SendMessage sending;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    public SetReaction(ConversationRepository conversations, MessageLog messages, ReactionStore reactions, Clock clock, SendMessage sending) {
        this.conversations = conversations;
        this.messages = messages;
        this.reactions = reactions;
        this.clock = clock;
        this.sending = sending;
    }

    public ServerFrame.ReactionAck set(Caller caller, ClientFrame.ReactionSet set) {
        return set(caller, set, Optional.empty());
    }

    /** {@code id}: the request's, which a sealed reaction, an entry of the log, takes as its client id. */
    public ServerFrame.ReactionAck set(Caller caller, ClientFrame.ReactionSet set, Optional<String> id) {
        if (set.ciphertext().isPresent()) {
            return sealed(caller, set, id);
        }
        ConversationId conversation = set.conversationId();
        Future<Optional<Message>> reading = threads.submit(() -> messages.at(conversation, set.targetSeq()));
        conversations.requireMembership(conversation, caller.user());
        Message target = MessagePolicy.requireMessage(References.awaited(reading), set.targetSeq());
        if (target.content().type() == ContentType.CIPHERTEXT) {
            throw new InvalidFieldException("emoji", "the message at seq " + set.targetSeq()
                    + " is end-to-end encrypted: the server cannot show a reaction to it in plaintext; seal it (emoji null, ciphertext)");
        }
        set.emoji().ifPresent(emoji -> requireRoomFor(emoji, target));
        reactions.set(conversation, set.targetSeq(), caller.user(), set.emoji(), clock.millis());
        return new ServerFrame.ReactionAck(conversation, set.targetSeq(), set.emoji());
    }

    /**
     * A sealed reaction to an end-to-end message, as Signal sends one: an entry of the log with a {@code reaction} relation and
     * the ciphertext, delivered to every member's devices as a message is (each device its envelope), caught up on by seq in a
     * sync, never counted, erased with its target. The server counts nothing it cannot read: the apps open the reactions and
     * keep each member's latest. The request's id keys the entry, as a send's does.
     */
    private ServerFrame.ReactionAck sealed(Caller caller, ClientFrame.ReactionSet set, Optional<String> id) {
        ClientMessageId entryId;
        try {
            entryId = ClientMessageId.parse(id.orElseThrow(() -> new IllegalArgumentException("it has none")));
        } catch (IllegalArgumentException notAUuid) {
            throw new InvalidFieldException("id", "must be a UUID: a sealed reaction is an entry of the log, and its id is the entry's key ("
                    + notAUuid.getMessage() + ")");
        }
        ConversationId conversation = set.conversationId();
        Content sealed = set.ciphertext().orElseThrow();
        Future<Optional<Message>> reading = threads.submit(() -> messages.at(conversation, set.targetSeq()));
        sending.append(caller, new SendMessage.Entry(entryId, conversation, sealed,
                // As a resend: a repeat of this id whose first answer was lost finds its entry instead of taking a seq.
                MessageDetails.change(new Relation(RelationKind.REACTION, set.targetSeq())), true), () -> {
        }, () -> {
            Message target = MessagePolicy.requireMessage(References.awaited(reading), set.targetSeq());
            if (target.content().type() != ContentType.CIPHERTEXT) {
                throw new InvalidFieldException("ciphertext", "the message at seq " + set.targetSeq() + " is not end-to-end encrypted: react with an emoji");
            }
            if (target.content().addressed() != sealed.addressed()) {
                throw new InvalidFieldException(target.content().addressed() ? "ciphertext.envelopes" : "ciphertext.body", target.content().addressed()
                        ? "are required: the message was sent in envelopes, one per device, and its reactions are too"
                        : "is required: the message was sent as one sender-key body, and its reactions are too");
            }
        }, messages::applyReaction);
        return new ServerFrame.ReactionAck(conversation, set.targetSeq(), Optional.empty());
    }

    /**
     * A message carries at most {@link ReactionCount#MAX_DISTINCT} emoji: a new one past them is refused, as the message is
     * listed now (a listing lags a second at most, so reactions racing may pass by a few, and the listing keeps the most used).
     */
    private static void requireRoomFor(Emoji emoji, Message target) {
        var listed = target.details().reactions();
        if (listed.size() >= ReactionCount.MAX_DISTINCT && listed.stream().noneMatch(reaction -> reaction.emoji().equals(emoji))) {
            throw new InvalidFieldException("emoji", "the message at seq " + target.seq() + " has " + listed.size()
                    + " different reactions, the most it may: react with one of them");
        }
    }
}

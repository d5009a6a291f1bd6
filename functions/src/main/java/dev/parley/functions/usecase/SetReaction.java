package dev.parley.functions.usecase;

import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.Message;
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
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    public SetReaction(ConversationRepository conversations, MessageLog messages, ReactionStore reactions, Clock clock) {
        this.conversations = conversations;
        this.messages = messages;
        this.reactions = reactions;
        this.clock = clock;
    }

    public ServerFrame.ReactionAck set(Caller caller, ClientFrame.ReactionSet set) {
        ConversationId id = set.conversationId();
        Future<Optional<Message>> reading = threads.submit(() -> messages.at(id, set.targetSeq()));
        conversations.requireMembership(id, caller.user());
        Message target = MessagePolicy.requireMessage(References.awaited(reading), set.targetSeq());
        if (target.content().type() == ContentType.CIPHERTEXT) {
            throw new InvalidFieldException("emoji", "the message at seq " + set.targetSeq()
                    + " is end-to-end encrypted: the server cannot show a reaction to it in plaintext (encrypted reactions are not built yet)");
        }
        set.emoji().ifPresent(emoji -> requireRoomFor(emoji, target));
        reactions.set(id, set.targetSeq(), caller.user(), set.emoji(), clock.millis());
        return new ServerFrame.ReactionAck(id, set.targetSeq(), set.emoji());
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

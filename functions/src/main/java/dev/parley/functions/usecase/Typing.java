package dev.parley.functions.usecase;

import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code typing}: relayed to the other members' live connections as {@code typing.update}, never stored
 * as a message, never pushed. A client may send {@code start} on every keystroke; at most one is relayed
 * per user and conversation per {@code interval} (the mark is on the user's item: half a read unit per
 * keystroke, and one conditional write when the mark has run out, which of two racing starts only one
 * wins), and the receivers show it for {@link #SHOWN_FOR}, so the relays of a
 * burst keep it showing. {@code stop} is always relayed, and lets the next start through at once. In a
 * conversation of more than {@link #MAX_MEMBERS} members typing is not relayed: "someone is typing" in
 * a crowd is noise, and relaying every burst to up to a thousand connections is the largest cost a
 * group could run up for it.
 */
public final class Typing {
    /** How long a receiver shows "typing" unless a stop or another start comes: {@code expires_in_ms}. */
    public static final Duration SHOWN_FOR = Duration.ofSeconds(10);
    /** The largest conversation typing is relayed in: the send's fast path's bound, for the same reason. */
    public static final int MAX_MEMBERS = 64;

    private final ConversationRepository conversations;
    private final ConnectionRegistry registry;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;
    private final Duration interval;

    /** @param interval at most one {@code start} per user and conversation is relayed in it */
    public Typing(ConversationRepository conversations, ConnectionRegistry registry, Delivery delivery, FrameCodec codec, Clock clock,
                  Duration interval) {
        this.conversations = conversations;
        this.registry = registry;
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
        this.interval = interval;
    }

    /** What became of a typing frame. */
    public enum Relayed { RELAYED, COALESCED, TOO_MANY_MEMBERS }

    public Relayed typing(Caller caller, ClientFrame.Typing typing) {
        conversations.requireMembership(typing.conversationId(), caller.user());
        long now = clock.millis();
        boolean start = typing.state() == TypingState.START;
        if (start) {
            OptionalLong until = registry.typingUntil(caller.user(), typing.conversationId());
            if (until.isPresent() && until.getAsLong() > now) {
                return Relayed.COALESCED;
            }
        }
        List<UserId> members = Audience.members(conversations, typing.conversationId());
        if (members.size() > MAX_MEMBERS) {
            return Relayed.TOO_MANY_MEMBERS;
        }
        if (start && !registry.claimTyping(caller.user(), typing.conversationId(), now, now + interval.toMillis())) {
            // Another start of the same burst, handled at the same moment elsewhere, claimed the relay.
            return Relayed.COALESCED;
        }
        if (!start) {
            registry.clearTyping(caller.user(), typing.conversationId());
        }
        String frame = codec.encode(new ServerFrame.TypingUpdate(typing.conversationId(), caller.user(), typing.state(), SHOWN_FOR.toMillis()));
        delivery.postToUsers(members.stream().filter(member -> !member.equals(caller.user())).toList(), frame, Optional.empty());
        return Relayed.RELAYED;
    }
}

package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Typing: who it reaches, how often a burst is relayed, and where it is not relayed at all. */
class TypingTest {
    private final Fixture world = new Fixture();
    private final Typing typing = new Typing(world.conversations, world.registry, world.delivery, world.codec, world.clock, Duration.ofSeconds(3));
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
    private final Caller alice = world.online(ALICE, "alice-phone");

    @Test
    void aBurstOfStartsIsRelayedOncePerIntervalAndAStopAlwaysAndAtOnce() {
        world.online(BOB, "bob-phone");
        Caller aliceLaptop = world.online(ALICE, "alice-laptop");
        List<Typing.Relayed> outcomes = new ArrayList<>();
        for (int keystroke = 0; keystroke < 20; keystroke++) {
            outcomes.add(typing.typing(alice, new ClientFrame.Typing(chat, TypingState.START)));
            world.clock.advance(Duration.ofMillis(100));
        }
        assertThat(outcomes).as("2 s of keystrokes, a 3 s interval").containsOnlyOnce(Typing.Relayed.RELAYED).first().isEqualTo(Typing.Relayed.RELAYED);
        world.clock.advance(Duration.ofSeconds(1));
        assertThat(typing.typing(alice, new ClientFrame.Typing(chat, TypingState.START))).as("the interval ran out").isEqualTo(Typing.Relayed.RELAYED);
        assertThat(typing.typing(alice, new ClientFrame.Typing(chat, TypingState.STOP))).isEqualTo(Typing.Relayed.RELAYED);
        assertThat(typing.typing(alice, new ClientFrame.Typing(chat, TypingState.START))).as("a stop lets the next start through").isEqualTo(Typing.Relayed.RELAYED);

        List<ServerFrame.TypingUpdate> bobs = world.framesOf("bob-phone", ServerFrame.TypingUpdate.class);
        assertThat(bobs).extracting(ServerFrame.TypingUpdate::state).containsExactly(TypingState.START, TypingState.START, TypingState.STOP, TypingState.START);
        assertThat(bobs).allSatisfy(update -> {
            assertThat(update.userId()).isEqualTo(ALICE);
            assertThat(update.expiresInMs()).isEqualTo(Typing.SHOWN_FOR.toMillis());
        });
        assertThat(world.framesOf("alice-laptop")).as("not to the typist's own devices").isEmpty();
        assertThat(world.messages.after(chat, 0, 100)).as("nothing stored").isEmpty();
    }

    @Test
    void aNonMemberIsForbiddenAndAnUnknownConversationNotFoundAndNeitherIsRelayed() {
        world.online(BOB, "bob-phone");
        Caller carol = world.online(CAROL, "carol-phone");
        assertThatThrownBy(() -> typing.typing(carol, new ClientFrame.Typing(chat, TypingState.START)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> typing.typing(alice, new ClientFrame.Typing(ConversationId.of("g:nowhere"), TypingState.START)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(world.framesOf("bob-phone")).isEmpty();
        assertThat(world.registry.typingUntil(CAROL, chat)).as("a refused start claims nothing").isEmpty();
    }

    @Test
    void inAGroupOverTheBoundTypingIsNotRelayed() {
        List<UserId> crowd = new ArrayList<>();
        for (int i = 0; i < Typing.MAX_MEMBERS; i++) {
            crowd.add(UserId.of("member-" + i));
        }
        world.online(crowd.getFirst(), "member-0-phone");
        ConversationId big = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crowd"), ALICE, crowd, Optional.empty()),
                ALICE).conversation().id();
        assertThat(typing.typing(alice, new ClientFrame.Typing(big, TypingState.START))).as("65 members").isEqualTo(Typing.Relayed.TOO_MANY_MEMBERS);
        assertThat(world.framesOf("member-0-phone")).isEmpty();

        ConversationId small = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:small"), ALICE,
                crowd.subList(0, Typing.MAX_MEMBERS - 1), Optional.empty()), ALICE).conversation().id();
        assertThat(typing.typing(alice, new ClientFrame.Typing(small, TypingState.START))).as("64 members").isEqualTo(Typing.Relayed.RELAYED);
        assertThat(world.framesOf("member-0-phone", ServerFrame.TypingUpdate.class)).hasSize(1);
    }
}

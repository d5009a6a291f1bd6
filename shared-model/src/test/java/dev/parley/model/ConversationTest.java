package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ConversationTest {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId CAROL = UserId.of("carol");
    private static final ConversationId GROUP = ConversationId.of("g-1");

    private static List<UserId> users(int count) {
        return IntStream.range(0, count).mapToObj(i -> UserId.of("u" + i)).toList();
    }

    private static ErrorCode codeOf(Runnable action) {
        try {
            action.run();
        } catch (DomainException e) {
            return e.code();
        }
        throw new AssertionError("no DomainException");
    }

    @Test
    void aDirectConversationHasExactlyTwoDistinctMembers() {
        Conversation direct = Conversation.direct(BOB, ALICE);
        assertThat(direct.members()).containsExactly(ALICE, BOB);
        assertThat(direct.admins()).isEmpty();
        assertThat(direct).isEqualTo(Conversation.direct(ALICE, BOB));
        assertThatThrownBy(() -> Conversation.direct(ALICE, ALICE)).isInstanceOf(DomainException.class);
        assertThatThrownBy(() -> new Conversation(ConversationId.direct(ALICE, BOB), ConversationKind.DIRECT, Optional.empty(),
                List.of(ALICE, BOB, CAROL), List.of())).hasMessage("field 'members' a direct conversation has exactly 2 distinct members, not 3");
        assertThatThrownBy(() -> new Conversation(ConversationId.of("x"), ConversationKind.DIRECT, Optional.empty(),
                List.of(ALICE, BOB), List.of())).hasMessageStartingWith("field 'conversation_id' a direct conversation's id is derived");
    }

    @Test
    void theMembersOfADirectConversationNeverChange() {
        Conversation direct = Conversation.direct(ALICE, BOB);
        assertThat(codeOf(() -> direct.withMembersAdded(ALICE, List.of(CAROL)))).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(codeOf(() -> direct.withMembersRemoved(ALICE, List.of(ALICE)))).isEqualTo(ErrorCode.BAD_REQUEST);
    }

    @Test
    void aGroupHasItsCreatorAsMemberAndAdmin() {
        Conversation group = Conversation.group(GROUP, CAROL, List.of(ALICE, BOB), Optional.of("Team"));
        assertThat(group.members()).containsExactly(ALICE, BOB, CAROL);
        assertThat(group.admins()).containsExactly(CAROL);
        assertThat(Conversation.group(GROUP, CAROL, List.of(), Optional.empty()).members()).containsExactly(CAROL);
    }

    @Test
    void aGroupHasAtMost1024Members() {
        List<UserId> others = users(1023);
        assertThat(Conversation.group(GROUP, ALICE, others, Optional.empty()).members()).hasSize(1024);
        assertThatThrownBy(() -> Conversation.group(GROUP, ALICE, users(1024), Optional.empty()))
                .hasMessage("field 'members' a group has 1 to 1024 members; this one would have 1025");
        Conversation full = Conversation.group(GROUP, ALICE, others, Optional.empty());
        assertThatThrownBy(() -> full.withMembersAdded(ALICE, List.of(BOB)))
                .hasMessage("field 'members' a group has 1 to 1024 members; this one would have 1025");
        assertThat(full.withMembersAdded(ALICE, List.of(UserId.of("u5")))).isEqualTo(full);
    }

    @Test
    void onlyAdminsChangeMembersButAnyoneMayLeave() {
        Conversation group = Conversation.group(GROUP, ALICE, List.of(BOB), Optional.empty());
        assertThat(codeOf(() -> group.withMembersAdded(BOB, List.of(CAROL)))).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(codeOf(() -> group.withMembersAdded(CAROL, List.of(CAROL)))).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(codeOf(() -> group.withMembersRemoved(BOB, List.of(ALICE)))).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(group.withMembersRemoved(BOB, List.of(BOB)).members()).containsExactly(ALICE);
        assertThat(group.withMembersAdded(ALICE, List.of(CAROL)).members()).containsExactly(ALICE, BOB, CAROL);
    }

    @Test
    void whenTheLastAdminLeavesTheFirstRemainingMemberTakesOver() {
        Conversation group = Conversation.group(GROUP, BOB, List.of(ALICE, CAROL), Optional.empty());
        Conversation after = group.withMembersRemoved(BOB, List.of(BOB));
        assertThat(after.members()).containsExactly(ALICE, CAROL);
        assertThat(after.admins()).containsExactly(ALICE);
    }

    @Test
    void aGroupKeepsAtLeastOneMember() {
        Conversation alone = Conversation.group(GROUP, ALICE, List.of(), Optional.empty());
        assertThat(codeOf(() -> alone.withMembersRemoved(ALICE, List.of(ALICE)))).isEqualTo(ErrorCode.BAD_REQUEST);
    }

    @Test
    void removingSomeoneWhoIsNotAMemberChangesNothing() {
        Conversation group = Conversation.group(GROUP, ALICE, List.of(BOB), Optional.empty());
        assertThat(group.withMembersRemoved(ALICE, List.of(CAROL))).isEqualTo(group);
    }

    @Test
    void groupNamesAreCheckedAndGroupIdsCannotLookDirect() {
        assertThatThrownBy(() -> Conversation.group(GROUP, ALICE, List.of(), Optional.of("  ")))
                .hasMessage("field 'name' must not be blank");
        assertThatThrownBy(() -> Conversation.group(GROUP, ALICE, List.of(), Optional.of("n".repeat(129))))
                .hasMessage("field 'name' must be at most 128 characters");
        assertThatThrownBy(() -> Conversation.group(ConversationId.of("d:x"), ALICE, List.of(), Optional.empty()))
                .hasMessage("field 'conversation_id' is reserved for direct conversations");
    }
}

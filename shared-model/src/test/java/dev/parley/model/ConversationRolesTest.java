package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** A group's owner, admins and members, its settings and bans: the rules docs/protocol.md's "Who may do what" table states. */
class ConversationRolesTest {
    private static final UserId OWNER = UserId.of("olga");
    private static final UserId ADMIN = UserId.of("adam");
    private static final UserId MEMBER = UserId.of("mia");
    private static final UserId OTHER = UserId.of("otto");
    private static final UserId OUTSIDER = UserId.of("nina");
    private static final ConversationId GROUP = ConversationId.of("g:roles");

    private static Conversation group() {
        return Conversation.group(GROUP, OWNER, List.of(ADMIN, MEMBER, OTHER), Optional.of("Crew")).withRole(OWNER, List.of(ADMIN), ConversationRole.ADMIN);
    }

    private static DomainException refusal(Runnable action) {
        try {
            action.run();
        } catch (DomainException e) {
            return e;
        }
        throw new AssertionError("not refused");
    }

    @Test
    void theCreatorOwnsTheGroupAndEveryoneHasOneRole() {
        Conversation group = group();
        assertThat(group.owner()).contains(OWNER);
        assertThat(group.roleOf(OWNER)).contains(ConversationRole.OWNER);
        assertThat(group.roleOf(ADMIN)).contains(ConversationRole.ADMIN);
        assertThat(group.roleOf(MEMBER)).contains(ConversationRole.MEMBER);
        assertThat(group.roleOf(OUTSIDER)).isEmpty();
        assertThat(group.settings()).isEqualTo(ConversationSettings.DEFAULT);
    }

    @Test
    void onlyTheOwnerHandsOwnershipOnAndStaysAnAdmin() {
        assertThat(refusal(() -> group().withRole(ADMIN, List.of(ADMIN), ConversationRole.OWNER)).code()).isEqualTo(ErrorCode.FORBIDDEN);
        Conversation handed = group().withRole(OWNER, List.of(MEMBER), ConversationRole.OWNER);
        assertThat(handed.owner()).contains(MEMBER);
        assertThat(handed.admins()).containsExactlyInAnyOrder(OWNER, ADMIN, MEMBER);
        assertThatThrownBy(() -> group().withRole(OWNER, List.of(MEMBER, OTHER), ConversationRole.OWNER))
                .isInstanceOf(InvalidFieldException.class).hasMessageContaining("user_ids");
    }

    @Test
    void adminsPromoteAndDemoteButNobodyDemotesTheOwner() {
        Conversation promoted = group().withRole(ADMIN, List.of(MEMBER), ConversationRole.ADMIN);
        assertThat(promoted.roleOf(MEMBER)).contains(ConversationRole.ADMIN);
        assertThat(promoted.withRole(ADMIN, List.of(MEMBER), ConversationRole.MEMBER).roleOf(MEMBER)).contains(ConversationRole.MEMBER);
        assertThat(refusal(() -> group().withRole(ADMIN, List.of(OWNER), ConversationRole.MEMBER)).code()).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(refusal(() -> group().withRole(MEMBER, List.of(OTHER), ConversationRole.ADMIN)).code()).isEqualTo(ErrorCode.FORBIDDEN);
        assertThatThrownBy(() -> group().withRole(OWNER, List.of(OUTSIDER), ConversationRole.ADMIN)).hasMessageContaining("user_ids");
    }

    @Test
    void anOwnerWhoLeavesHandsOnToTheLongestServingAdminElseMember() {
        // Seniority is join order, not id order: otto joined first, then adam.
        Conversation afterOwner = group().withLeft(OWNER, List.of(OWNER, OTHER, ADMIN, MEMBER));
        assertThat(afterOwner.owner()).as("the longest-serving admin, though a member joined before").contains(ADMIN);
        Conversation noAdmins = Conversation.group(GROUP, OWNER, List.of(MEMBER, OTHER), Optional.empty());
        Conversation afterLastAdmin = noAdmins.withLeft(OWNER, List.of(OWNER, OTHER, MEMBER));
        assertThat(afterLastAdmin.owner()).as("no admin left: the longest-serving member").contains(OTHER);
        assertThat(afterLastAdmin.admins()).containsExactly(OTHER);
        assertThat(afterLastAdmin.members()).doesNotContain(OWNER);
    }

    @Test
    void theOwnerCannotBeRemovedOrBannedAndAMemberRemovesOnlyThemself() {
        assertThat(refusal(() -> group().withMembersRemoved(ADMIN, List.of(OWNER))).code()).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(refusal(() -> group().withBanned(ADMIN, List.of(OWNER))).code()).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(refusal(() -> group().withMembersRemoved(MEMBER, List.of(OTHER))).code()).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(group().withMembersRemoved(ADMIN, List.of(OTHER)).members()).doesNotContain(OTHER);
        assertThat(group().withMembersRemoved(MEMBER, List.of(MEMBER)).members()).doesNotContain(MEMBER);
    }

    @Test
    void aBannedUserIsRemovedAndCannotBeAddedOrJoinUntilUnbanned() {
        Conversation banned = group().withBanned(ADMIN, List.of(MEMBER, OUTSIDER));
        assertThat(banned.members()).doesNotContain(MEMBER);
        assertThat(banned.banned()).containsExactlyInAnyOrder(MEMBER, OUTSIDER);
        assertThat(refusal(() -> banned.withMembersAdded(OWNER, List.of(MEMBER))).code()).isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(refusal(() -> banned.withJoined(List.of(OUTSIDER))).code()).isEqualTo(ErrorCode.FORBIDDEN);
        Conversation unbanned = banned.withUnbanned(ADMIN, List.of(MEMBER));
        assertThat(unbanned.members()).as("unbanning adds nobody back").doesNotContain(MEMBER);
        assertThat(unbanned.withMembersAdded(OWNER, List.of(MEMBER)).members()).contains(MEMBER);
        assertThatThrownBy(() -> group().withBanned(ADMIN, List.of(ADMIN))).hasMessageContaining("user_ids");
        assertThat(refusal(() -> group().withBanned(MEMBER, List.of(OTHER))).code()).isEqualTo(ErrorCode.FORBIDDEN);
    }

    @Test
    void settingsDecideWhoSendsAndWhoAdds() {
        Conversation announcements = group().withChanges(ADMIN, new ConversationChanges(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(ConversationSettings.Audience.ADMINS), Optional.of(ConversationSettings.Audience.ALL), Optional.empty()));
        assertThat(announcements.maySend(OWNER)).isTrue();
        assertThat(announcements.maySend(ADMIN)).isTrue();
        assertThat(announcements.maySend(MEMBER)).isFalse();
        assertThat(announcements.maySend(OUTSIDER)).isFalse();
        assertThat(group().maySend(MEMBER)).isTrue();
        assertThat(refusal(() -> group().withMembersAdded(MEMBER, List.of(OUTSIDER))).code()).as("admins add, by default").isEqualTo(ErrorCode.FORBIDDEN);
        assertThat(announcements.withMembersAdded(MEMBER, List.of(OUTSIDER)).members()).as("add_members: all").contains(OUTSIDER);
    }

    @Test
    void adminsChangeTheGroupAndNullsClearWhatTheyName() {
        Conversation described = group().withChanges(OWNER, new ConversationChanges(Optional.of("Renamed"), Optional.of(Optional.of("what we do")),
                Optional.of(Optional.of(MediaId.random())), Optional.empty(), Optional.empty(), Optional.of(OptionalLong.of(86_400))));
        assertThat(described.name()).contains("Renamed");
        assertThat(described.description()).contains("what we do");
        assertThat(described.avatarMediaId()).isPresent();
        assertThat(described.settings().disappearingSeconds()).hasValue(86_400);
        Conversation cleared = described.withChanges(ADMIN, new ConversationChanges(Optional.empty(), Optional.of(Optional.empty()),
                Optional.of(Optional.empty()), Optional.empty(), Optional.empty(), Optional.of(OptionalLong.empty())));
        assertThat(cleared.description()).isEmpty();
        assertThat(cleared.avatarMediaId()).isEmpty();
        assertThat(cleared.settings().disappearingSeconds()).isEmpty();
        assertThat(cleared.name()).as("left as it was").contains("Renamed");
        assertThat(refusal(() -> group().withChanges(MEMBER, new ConversationChanges(Optional.of("mine"), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty()))).code()).isEqualTo(ErrorCode.FORBIDDEN);
    }

    @Test
    void badChangesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> new ConversationChanges(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty())).hasMessageContaining("settings");
        assertThatThrownBy(() -> new ConversationChanges(Optional.empty(), Optional.of(Optional.of("x".repeat(513))), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty())).hasMessageContaining("description");
        assertThatThrownBy(() -> new ConversationChanges(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(OptionalLong.of(299)))).hasMessageContaining("disappearing_seconds");
        assertThatThrownBy(() -> new ConversationChanges(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(OptionalLong.of(7_776_001)))).hasMessageContaining("disappearing_seconds");
        assertThatThrownBy(() -> new ConversationChanges(Optional.of(" "), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty())).hasMessageContaining("name");
    }

    @Test
    void aDirectConversationChangesOnlyItsDisappearingTime() {
        Conversation direct = Conversation.direct(OWNER, MEMBER);
        Conversation disappearing = direct.withChanges(MEMBER, new ConversationChanges(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.of(OptionalLong.of(3_600))));
        assertThat(disappearing.settings().disappearingSeconds()).hasValue(3_600);
        assertThatThrownBy(() -> direct.withChanges(MEMBER, new ConversationChanges(Optional.of("us"), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty()))).isInstanceOf(InvalidFieldException.class).hasMessageContaining("settings");
        assertThat(refusal(() -> direct.withChanges(OUTSIDER, new ConversationChanges(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.of(OptionalLong.of(3_600))))).code()).isEqualTo(ErrorCode.FORBIDDEN);
    }
}

package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationChanges;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationRole;
import dev.parley.model.ConversationSettings;
import dev.parley.model.ErrorCode;
import dev.parley.model.InviteCode;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A group run as a user would, over real sockets on the whole stack: the owner makes an admin and turns on admins-only sending,
 * invites by link, a stranger joins, a member leaves, the admin bans the newcomer, and a revoked or wrong code admits nobody.
 * Every change reaches the members live as {@code conversation.updated}.
 */
class GroupsIT extends EndToEndTest {

    @Test
    void rolesSettingsInvitesLeavingAndBansWorkEndToEnd() throws Exception {
        String owner = user("olga");
        String admin = user("adam");
        String member = user("mia");
        String stranger = user("sam");
        try (ParleyClient olga = connect(owner, "phone"); ParleyClient adam = connect(admin, "phone"); ParleyClient mia = connect(member, "phone");
             ParleyClient sam = connect(stranger, "phone")) {
            ConversationId group = olga.group(List.of(admin, member), "Crew");

            olga.send(new ClientFrame.ConversationMembersRole(group, List.of(UserId.of(admin)), ConversationRole.ADMIN));
            assertThat(olga.await(ServerFrame.ConversationUpdated.class).conversation().admins()).contains(UserId.of(admin));
            assertThat(mia.await(ServerFrame.ConversationUpdated.class, u -> u.conversation().isAdmin(UserId.of(admin)))).as("told live").isNotNull();

            adam.send(new ClientFrame.ConversationUpdate(group, new ConversationChanges(Optional.empty(), Optional.of(Optional.of("Announcements only")),
                    Optional.empty(), Optional.of(ConversationSettings.Audience.ADMINS), Optional.empty(), Optional.empty())));
            ServerFrame.ConversationUpdated announcements = adam.await(ServerFrame.ConversationUpdated.class,
                    u -> u.conversation().settings().send() == ConversationSettings.Audience.ADMINS);
            assertThat(announcements.conversation().description()).contains("Announcements only");
            assertThat(announcements.conversation().owner()).contains(UserId.of(owner));

            ClientMessageId refused = ClientMessageId.random();
            mia.send(new ClientFrame.MessageSend(refused, group, Content.text("can I?"), OptionalLong.empty()));
            ServerFrame.Error error = mia.await(ServerFrame.Error.class);
            assertThat(error.code()).isEqualTo(ErrorCode.FORBIDDEN);
            assertThat(error.message()).contains("admins");
            assertThat(adam.sendText(group, ClientMessageId.random(), "admins speak").seq()).isPositive();

            olga.send(new ClientFrame.ConversationInviteCreate(group, Duration.ofHours(1), 5));
            ServerFrame.ConversationInvite invite = olga.await(ServerFrame.ConversationInvite.class);
            assertThat(invite.maxUses()).isEqualTo(5);

            sam.send(new ClientFrame.ConversationJoin(InviteCode.random()));
            ServerFrame.Error wrong = sam.await(ServerFrame.Error.class);
            assertThat(wrong.code()).isEqualTo(ErrorCode.NOT_FOUND);
            sam.send(new ClientFrame.ConversationJoin(invite.code()));
            assertThat(sam.await(ServerFrame.ConversationUpdated.class).conversation().members()).contains(UserId.of(stranger));
            assertThat(mia.await(ServerFrame.ConversationUpdated.class, u -> u.conversation().isMember(UserId.of(stranger)))).isNotNull();

            mia.send(new ClientFrame.ConversationLeave(group));
            assertThat(mia.await(ServerFrame.ConversationUpdated.class, u -> !u.conversation().isMember(UserId.of(member)))).isNotNull();
            mia.send(new ClientFrame.HistoryRequest(group, OptionalLong.empty(), 10));
            assertThat(mia.await(ServerFrame.Error.class).code()).as("gone, mia reads nothing of the group").isEqualTo(ErrorCode.FORBIDDEN);

            adam.send(new ClientFrame.ConversationMembersBan(group, List.of(UserId.of(stranger))));
            ServerFrame.ConversationUpdated banned = sam.await(ServerFrame.ConversationUpdated.class, u -> u.conversation().isBanned(UserId.of(stranger)));
            assertThat(banned.conversation().members()).as("the banned user hears they are out").doesNotContain(UserId.of(stranger));
            sam.send(new ClientFrame.ConversationJoin(invite.code()));
            assertThat(sam.await(ServerFrame.Error.class).code()).as("banned: the code admits them no more").isEqualTo(ErrorCode.FORBIDDEN);

            olga.send(new ClientFrame.ConversationInviteRevoke(invite.code()));
            olga.await(ServerFrame.ConversationInviteRevoked.class);
            mia.send(new ClientFrame.ConversationJoin(invite.code()));
            ServerFrame.Error revoked = mia.await(ServerFrame.Error.class);
            assertThat(revoked.code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(revoked.message()).as("the same words as a wrong code").isEqualTo(wrong.message());

            olga.send(new ClientFrame.ConversationLeave(group));
            ServerFrame.ConversationUpdated handedOn = adam.await(ServerFrame.ConversationUpdated.class, u -> !u.conversation().isMember(UserId.of(owner)));
            assertThat(handedOn.conversation().owner()).as("the only admin left takes over").contains(UserId.of(admin));
        }
    }
}

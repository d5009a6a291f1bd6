package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.local.sns.SnsEmulator;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.PushPlatform;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Push registration over real sockets, checked on the local cloud's SNS. */
class PushIT extends EndToEndTest {

    private SnsEmulator sns() {
        assumeTrue(stack.local().isPresent(), "reads the local cloud's SNS");
        return stack.local().get().sns();
    }

    /** The attributes of each endpoint SNS holds for this token. */
    private static List<Map<String, String>> endpointsOf(SnsEmulator sns, String token) {
        return sns.endpoints().values().stream().filter(attributes -> token.equals(attributes.get("Token"))).toList();
    }

    @Test
    void aDeviceRegistersAndUnregistersItsTokenAndAMovedTokenLeavesItsFirstUser() throws Exception {
        SnsEmulator sns = sns();
        String token = "fcm-" + UUID.randomUUID();
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone")) {
            alice.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, token));
            assertThat(alice.await(ServerFrame.DeviceRegistered.class).platform()).isEqualTo(PushPlatform.FCM);
            assertThat(endpointsOf(sns, token)).singleElement().satisfies(endpoint ->
                    assertThat(endpoint).containsEntry("Enabled", "true").containsEntry("CustomUserData", user("alice") + "/phone"));

            bob.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, token));
            bob.await(ServerFrame.DeviceRegistered.class);
            assertThat(endpointsOf(sns, token)).as("one endpoint per token, now bob's").singleElement()
                    .satisfies(endpoint -> assertThat(endpoint).containsEntry("CustomUserData", user("bob") + "/phone"));
            alice.send(new ClientFrame.DeviceUnregister());
            alice.await(ServerFrame.DeviceUnregistered.class);
            assertThat(endpointsOf(sns, token)).as("alice's logout does not take bob's token").hasSize(1);

            bob.send(new ClientFrame.DeviceUnregister());
            bob.await(ServerFrame.DeviceUnregistered.class);
            assertThat(endpointsOf(sns, token)).as("bob's logout retires it").isEmpty();
        }
    }

    @Test
    void badRegistrationsAndMutesAreRefusedByName() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone")) {
            alice.sendRaw("{\"type\":\"device.register\",\"platform\":\"windows\",\"token\":\"t\"}");
            assertThat(alice.await(ServerFrame.Error.class)).satisfies(error -> {
                assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                assertThat(error.message()).contains("platform");
            });
            alice.sendRaw("{\"type\":\"device.register\",\"platform\":\"apns\",\"token\":\"\"}");
            assertThat(alice.await(ServerFrame.Error.class).message()).contains("token");
            alice.sendRaw("{\"type\":\"conversation.mute\",\"conversation_id\":\"d:a:b\",\"until\":-5}");
            assertThat(alice.await(ServerFrame.Error.class).message()).contains("until");

            ConversationId others = ConversationId.of("d:" + user("bob") + ":" + user("carol"));
            alice.send(new ClientFrame.ConversationMute(others, OptionalLong.of(System.currentTimeMillis() + 60_000)));
            assertThat(alice.await(ServerFrame.Error.class).code()).as("not a member").isIn(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND);

            ConversationId chat = alice.direct(user("bob"));
            long until = System.currentTimeMillis() + 60_000;
            alice.send(new ClientFrame.ConversationMute(chat, OptionalLong.of(until)));
            assertThat(alice.await(ServerFrame.ConversationMuted.class)).isEqualTo(new ServerFrame.ConversationMuted(chat, OptionalLong.of(until)));
        }
    }
}

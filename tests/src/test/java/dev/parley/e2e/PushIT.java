package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.local.sns.Delivery;
import dev.parley.local.sns.SnsEmulator;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.PushPlatform;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Push registration over real sockets, checked on the local cloud's SNS. */
class PushIT extends EndToEndTest {
    /** The coalescing window the test stack runs with (StackUnderTest starts the local cloud with it). */
    private static final Duration PUSH_WINDOW = Duration.ofSeconds(5);

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

    @Test
    void anOfflinePhoneGetsOneContentFreePushForABurstAndTheOnlineAndTheSenderNone() throws Exception {
        SnsEmulator sns = sns();
        String bobPhone = "fcm-bob-" + UUID.randomUUID();
        String aliceTablet = "apns-alice-" + UUID.randomUUID();
        String carolPhone = "fcm-carol-" + UUID.randomUUID();
        try (ParleyClient alice = connect(user("alice"), "laptop")) {
            // Each device registers from its own connection, then bob and alice's tablet go offline; carol stays online.
            try (ParleyClient bob = connect(user("bob"), "phone"); ParleyClient tablet = connect(user("alice"), "tablet")) {
                bob.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, bobPhone));
                bob.await(ServerFrame.DeviceRegistered.class);
                tablet.send(new ClientFrame.DeviceRegister(PushPlatform.APNS, aliceTablet));
                tablet.await(ServerFrame.DeviceRegistered.class);
            }
            try (ParleyClient carol = connect(user("carol"), "phone")) {
                carol.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, carolPhone));
                carol.await(ServerFrame.DeviceRegistered.class);
                ConversationId group = alice.group(List.of(user("bob"), user("carol")), "Push");
                long started = System.nanoTime();
                for (int i = 0; i < 50; i++) {
                    alice.sendText(group, ClientMessageId.random(), "secret words " + i);
                }
                long windows = 1 + Duration.ofNanos(System.nanoTime() - started).toMillis() / PUSH_WINDOW.toMillis();
                List<Delivery> bobs = awaitPushes(sns, bobPhone, 1);
                assertThat(bobs).as("50 messages while bob's phone sleeps: one push per window (the burst spanned " + windows + ")")
                        .hasSizeBetween(1, (int) windows);
                assertThat(bobs.getFirst().delivered()).isTrue();
                assertThat(bobs.getFirst().payload()).contains(group.value()).doesNotContain("secret").doesNotContain(user("alice"));
                assertThat(pushesTo(sns, carolPhone)).as("carol is online").isEmpty();
                assertThat(pushesTo(sns, aliceTablet)).as("the sender's own devices").isEmpty();
            }
        }
    }

    @Test
    void aMutedConversationIsNotPushedAndADeadTokenIsRetiredByTheCleanupAfterOneFailedPush() throws Exception {
        SnsEmulator sns = sns();
        String bobPhone = "fcm-bob-" + UUID.randomUUID();
        String carolPhone = "fcm-carol-" + UUID.randomUUID();
        try (ParleyClient alice = connect(user("alice"), "phone")) {
            ConversationId withBob = alice.direct(user("bob"));
            ConversationId withCarol = alice.direct(user("carol"));
            try (ParleyClient bob = connect(user("bob"), "phone"); ParleyClient carol = connect(user("carol"), "phone")) {
                bob.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, bobPhone));
                bob.await(ServerFrame.DeviceRegistered.class);
                bob.send(new ClientFrame.ConversationMute(withBob, OptionalLong.of(System.currentTimeMillis() + 600_000)));
                bob.await(ServerFrame.ConversationMuted.class);
                carol.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, carolPhone));
                carol.await(ServerFrame.DeviceRegistered.class);
            }
            sns.faults().expireToken(carolPhone);
            alice.sendText(withBob, ClientMessageId.random(), "muted");
            alice.sendText(withCarol, ClientMessageId.random(), "to a dead token");
            List<Delivery> carols = awaitPushes(sns, carolPhone, 1);
            assertThat(carols).singleElement().satisfies(push -> assertThat(push.delivered()).as("FCM refused the token").isFalse());
            assertThat(pushesTo(sns, bobPhone)).as("bob muted the conversation").isEmpty();
            // SNS reports the failure on the application's event topic; the cleanup function retires the device and deletes its
            // endpoint, with no second push needed to find it dead.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!endpointsOf(sns, carolPhone).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(endpointsOf(sns, carolPhone)).as("deleted by the cleanup").isEmpty();
            assertThat(stack.local().get().runtime().metrics("push-events").invocations()).as("the cleanup heard the events").isPositive();

            // Past the window: the device is no longer registered, so it is never published to again.
            Thread.sleep(PUSH_WINDOW.toMillis() + 200);
            alice.sendText(withCarol, ClientMessageId.random(), "again");
            Thread.sleep(1_500);
            assertThat(pushesTo(sns, carolPhone)).as("never published to again").hasSize(1);
        }
    }

    @Test
    void aThrottledPushIsRetriedAndOneSnsFailedLeavesNoMarkSoTheNextMessageWakesThePhone() throws Exception {
        SnsEmulator sns = sns();
        String bobPhone = "fcm-bob-" + UUID.randomUUID();
        try (ParleyClient alice = connect(user("alice"), "phone")) {
            ConversationId withBob = alice.direct(user("bob"));
            try (ParleyClient bob = connect(user("bob"), "phone")) {
                bob.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, bobPhone));
                bob.await(ServerFrame.DeviceRegistered.class);
            }
            try {
                sns.faults().throttlePublishes(2);
                alice.sendText(withBob, ClientMessageId.random(), "throttled twice");
                assertThat(awaitPushes(sns, bobPhone, 1)).as("the client's retries got it through").singleElement()
                        .satisfies(push -> assertThat(push.delivered()).isTrue());

                Thread.sleep(PUSH_WINDOW.toMillis() + 200);
                sns.faults().failPublishes(100);
                alice.sendText(withBob, ClientMessageId.random(), "SNS is failing");
                Thread.sleep(2_500);
                assertThat(pushesTo(sns, bobPhone)).as("nothing got through").hasSize(1);
                sns.faults().failPublishes(0);
                alice.sendText(withBob, ClientMessageId.random(), "SNS is back, within the window");
                assertThat(awaitPushes(sns, bobPhone, 2)).as("the failed push took its mark back: this one is not absorbed").hasSize(2);
            } finally {
                sns.faults().clear();
            }
        }
    }

    @Test
    void aTokenThatMovedToAnotherUserWakesOnlyItsNewUser() throws Exception {
        SnsEmulator sns = sns();
        String token = "fcm-shared-" + UUID.randomUUID();
        try (ParleyClient carol = connect(user("carol"), "phone")) {
            ConversationId withAlice = carol.direct(user("alice"));
            ConversationId withBob = carol.direct(user("bob"));
            try (ParleyClient alice = connect(user("alice"), "phone")) {
                alice.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, token));
                alice.await(ServerFrame.DeviceRegistered.class);
            }
            // The phone is now signed in as bob.
            try (ParleyClient bob = connect(user("bob"), "phone")) {
                bob.send(new ClientFrame.DeviceRegister(PushPlatform.FCM, token));
                bob.await(ServerFrame.DeviceRegistered.class);
            }
            carol.sendText(withAlice, ClientMessageId.random(), "for alice");
            carol.sendText(withBob, ClientMessageId.random(), "for bob");
            List<Delivery> pushes = awaitPushes(sns, token, 1);
            assertThat(pushes).as("the phone is bob's now: only his conversation wakes it").singleElement()
                    .satisfies(push -> assertThat(push.payload()).contains(withBob.value()).doesNotContain(withAlice.value()));
        }
    }
}

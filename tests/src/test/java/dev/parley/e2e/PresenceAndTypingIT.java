package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.LastSeenVisibility;
import dev.parley.protocol.PresenceStatus;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Typing and presence over real sockets: who is told what, and what is never stored. */
class PresenceAndTypingIT extends EndToEndTest {

    private static Map<UserId, ServerFrame.Presence> byUser(ServerFrame.PresenceBatch batch) {
        return batch.users().stream().collect(java.util.stream.Collectors.toMap(ServerFrame.Presence::userId, p -> p));
    }

    @Test
    void typingReachesTheOtherMembersOnceABurstAndIsNeverStored() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone");
             ParleyClient aliceLaptop = connect(user("alice"), "laptop"); ParleyClient carol = connect(user("carol"), "phone")) {
            ConversationId chat = alice.direct(user("bob"));
            for (int keystroke = 0; keystroke < 20; keystroke++) {
                alice.send(new ClientFrame.Typing(chat, TypingState.START));
            }
            List<ServerFrame.TypingUpdate> seen = bob.drain(ServerFrame.TypingUpdate.class, Duration.ofMillis(1_500));
            assertThat(seen).as("20 keystrokes within the interval: one start relayed").singleElement().satisfies(update -> {
                assertThat(update.userId()).isEqualTo(UserId.of(user("alice")));
                assertThat(update.state()).isEqualTo(TypingState.START);
                assertThat(update.expiresInMs()).isEqualTo(10_000);
            });
            assertThat(aliceLaptop.drain(ServerFrame.TypingUpdate.class, Duration.ZERO)).as("not to the typist's own devices").isEmpty();

            alice.send(new ClientFrame.Typing(chat, TypingState.STOP));
            assertThat(bob.await(ServerFrame.TypingUpdate.class).state()).isEqualTo(TypingState.STOP);

            carol.send(new ClientFrame.Typing(chat, TypingState.START));
            assertThat(carol.await(ServerFrame.Error.class).code()).as("not a member").isEqualTo(ErrorCode.FORBIDDEN);
            assertThat(bob.drain(ServerFrame.TypingUpdate.class, Duration.ofMillis(500))).isEmpty();

            bob.send(new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 50));
            assertThat(bob.await(ServerFrame.HistoryBatch.class).messages()).as("typing is not a message").isEmpty();
            bob.send(new ClientFrame.SyncRequest(Map.of(chat, 0L), 100));
            bob.await(ServerFrame.SyncDone.class);
            assertThat(bob.drain(ServerFrame.SyncBatch.class, Duration.ZERO)).allSatisfy(batch -> assertThat(batch.messages()).isEmpty());
        }
    }

    @Test
    void typingIsNeverPushedToAnOfflineDevice() throws Exception {
        assumeTrue(stack.local().isPresent(), "reads the local SNS's outbox");
        var sns = stack.local().orElseThrow().sns();
        String bobPhone = "fcm-bob-" + java.util.UUID.randomUUID();
        try (ParleyClient alice = connect(user("alice"), "phone")) {
            ConversationId chat = alice.direct(user("bob"));
            try (ParleyClient bob = connect(user("bob"), "phone")) {
                bob.send(new ClientFrame.DeviceRegister(dev.parley.protocol.PushPlatform.FCM, bobPhone));
                bob.await(ServerFrame.DeviceRegistered.class);
            }
            Thread.sleep(300); // bob's $disconnect
            alice.send(new ClientFrame.Typing(chat, TypingState.START));
            alice.send(new ClientFrame.Typing(chat, TypingState.STOP));
            Thread.sleep(1_500);
            assertThat(sns.outbox()).as("typing wakes no phone").noneMatch(push -> push.token().equals(bobPhone));
            // The phone is registered and offline: a message does wake it.
            alice.sendText(chat, ClientMessageId.random(), "now a message");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (sns.outbox().stream().noneMatch(push -> push.token().equals(bobPhone)) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(sns.outbox()).anyMatch(push -> push.token().equals(bobPhone));
        }
    }

    @Test
    void aSubscriberIsToldWhenTheLastDeviceClosesNotTheFirst() throws Exception {
        try (ParleyClient watcher = connect(user("alice"), "phone")) {
            UserId bob = UserId.of(user("bob"));
            watcher.send(new ClientFrame.PresenceSubscribe(List.of(bob), 60));
            ServerFrame.Presence before = watcher.await(ServerFrame.PresenceBatch.class).users().getFirst();
            assertThat(before.status()).as("never seen").isEqualTo(PresenceStatus.OFFLINE);
            assertThat(before.lastSeen()).isEmpty();

            ParleyClient phone = connect(user("bob"), "phone");
            assertThat(watcher.await(ServerFrame.PresenceUpdate.class).presence().status()).isEqualTo(PresenceStatus.ONLINE);
            try (ParleyClient laptop = connect(user("bob"), "laptop")) {
                assertThat(watcher.drain(ServerFrame.PresenceUpdate.class, Duration.ofMillis(500))).as("online already").isEmpty();
                phone.close();
                assertThat(watcher.drain(ServerFrame.PresenceUpdate.class, Duration.ofMillis(800))).as("the laptop is still on").isEmpty();
                watcher.send(new ClientFrame.PresenceQuery(List.of(bob)));
                assertThat(watcher.await(ServerFrame.PresenceBatch.class).users().getFirst().status()).isEqualTo(PresenceStatus.ONLINE);
                long closed = System.currentTimeMillis();
                laptop.close();
                ServerFrame.Presence gone = watcher.await(ServerFrame.PresenceUpdate.class).presence();
                assertThat(gone.status()).isEqualTo(PresenceStatus.OFFLINE);
                assertThat(gone.lastSeen()).isPresent();
                assertThat(gone.lastSeen().getAsLong()).as("the moment the laptop closed").isBetween(closed - 1_000, System.currentTimeMillis());
            }
        }
    }

    @Test
    void whoHidesTheirLastSeenSeesNobodysAndContactsMeansSharingAConversation() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone");
             ParleyClient carol = connect(user("carol"), "phone")) {
            UserId aliceId = UserId.of(user("alice"));
            UserId bobId = UserId.of(user("bob"));
            UserId carolId = UserId.of(user("carol"));
            alice.direct(user("bob"));

            carol.send(new ClientFrame.SettingsUpdate(LastSeenVisibility.CONTACTS));
            assertThat(carol.await(ServerFrame.SettingsUpdated.class).lastSeenVisibility()).contains(LastSeenVisibility.CONTACTS);
            alice.send(new ClientFrame.PresenceQuery(List.of(bobId, carolId)));
            Map<UserId, ServerFrame.Presence> seenByAlice = byUser(alice.await(ServerFrame.PresenceBatch.class));
            assertThat(seenByAlice.get(bobId).status()).isEqualTo(PresenceStatus.ONLINE);
            assertThat(seenByAlice.get(carolId).status()).as("carol shows contacts only; alice shares no conversation with her")
                    .isEqualTo(PresenceStatus.HIDDEN);
            assertThat(seenByAlice.get(carolId).lastSeen()).isEmpty();

            bob.send(new ClientFrame.PresenceSubscribe(List.of(aliceId), 60));
            assertThat(bob.await(ServerFrame.PresenceBatch.class).users().getFirst().status()).isEqualTo(PresenceStatus.ONLINE);
            alice.send(new ClientFrame.SettingsUpdate(LastSeenVisibility.NOBODY));
            alice.await(ServerFrame.SettingsUpdated.class);
            assertThat(bob.await(ServerFrame.PresenceUpdate.class).presence().status()).as("bob watches alice: told at once")
                    .isEqualTo(PresenceStatus.HIDDEN);
            alice.send(new ClientFrame.PresenceQuery(List.of(bobId, aliceId)));
            Map<UserId, ServerFrame.Presence> reciprocal = byUser(alice.await(ServerFrame.PresenceBatch.class));
            assertThat(reciprocal.get(bobId).status()).as("who hides sees nobody").isEqualTo(PresenceStatus.HIDDEN);
            assertThat(reciprocal.get(aliceId).status()).as("but herself").isEqualTo(PresenceStatus.ONLINE);

        }
    }

    @Test
    void aConnectionWhoseDisconnectIsLostGoesOfflineWhenItsLeaseEnds() throws Exception {
        assumeTrue(stack.local().isPresent(), "needs the local cloud's fault switches");
        // A cloud of its own: a 3-second lease would end the shared cloud's other connections.
        StackUnderTest shortLeases = StackUnderTest.ownLocalCloud("--connection-lease-ms", "3000");
        try (ParleyClient watcher = ParleyClient.connect(shortLeases, user("alice"), "phone")) {
            UserId bobId = UserId.of(user("bob"));
            ParleyClient bob = ParleyClient.connect(shortLeases, user("bob"), "phone");
            watcher.send(new ClientFrame.PresenceSubscribe(List.of(bobId), 60));
            assertThat(watcher.await(ServerFrame.PresenceBatch.class).users().getFirst().status()).isEqualTo(PresenceStatus.ONLINE);

            bob.send(new ClientFrame.Ping());
            bob.await(ServerFrame.Pong.class);
            long leaseEnd = System.currentTimeMillis() + 3_000;
            List<String> bobsConnections = shortLeases.local().orElseThrow().gateway().connectionsOf(bobId.value());
            assertThat(bobsConnections).hasSize(1);
            shortLeases.local().orElseThrow().gateway().faults().dropDisconnect(bobsConnections.getFirst());
            bob.close();
            assertThat(watcher.drain(ServerFrame.PresenceUpdate.class, Duration.ofMillis(500))).as("$disconnect was lost: nobody is told").isEmpty();
            watcher.send(new ClientFrame.PresenceQuery(List.of(bobId)));
            assertThat(watcher.await(ServerFrame.PresenceBatch.class).users().getFirst().status()).as("within the lease")
                    .isEqualTo(PresenceStatus.ONLINE);

            Thread.sleep(Math.max(0, leaseEnd + 200 - System.currentTimeMillis()));
            watcher.send(new ClientFrame.Ping());
            watcher.await(ServerFrame.Pong.class);
            watcher.send(new ClientFrame.PresenceQuery(List.of(bobId)));
            ServerFrame.Presence queried = watcher.await(ServerFrame.PresenceBatch.class).users().getFirst();
            assertThat(queried.status()).as("the lease ran out").isEqualTo(PresenceStatus.OFFLINE);
            // Leases are kept to the second (the table's TTL attribute is epoch seconds).
            assertThat(queried.lastSeen().orElseThrow()).as("last seen: the lease's end").isBetween(leaseEnd - 1_100, leaseEnd + 100);
            watcher.send(new ClientFrame.PresenceSubscribe(List.of(bobId), 60));
            assertThat(watcher.await(ServerFrame.PresenceBatch.class).users().getFirst()).as("a renewal says so too").isEqualTo(queried);

            try (ParleyClient back = ParleyClient.connect(shortLeases, user("bob"), "laptop")) {
                assertThat(watcher.await(ServerFrame.PresenceUpdate.class).presence().status()).as("back: the lapsed lease counts as offline")
                        .isEqualTo(PresenceStatus.ONLINE);
            }
        } finally {
            shortLeases.stop();
        }
    }

    @Test
    void badPresenceFramesAreRefusedNamingTheField() throws Exception {
        try (ParleyClient carol = connect(user("carol"), "phone")) {
            carol.sendRaw("{\"type\":\"presence.subscribe\",\"user_ids\":[\"bob\"],\"ttl_seconds\":301}");
            assertThat(carol.await(ServerFrame.Error.class).message()).contains("ttl_seconds");
            carol.sendRaw("{\"type\":\"presence.query\",\"user_ids\":[]}");
            assertThat(carol.await(ServerFrame.Error.class).message()).contains("user_ids");
            carol.sendRaw("{\"type\":\"settings.update\",\"last_seen_visibility\":\"friends\"}");
            assertThat(carol.await(ServerFrame.Error.class).message()).contains("last_seen_visibility");
            carol.sendRaw("{\"type\":\"typing\",\"conversation_id\":\"d:x:y\",\"state\":\"maybe\"}");
            assertThat(carol.await(ServerFrame.Error.class).message()).contains("state");
        }
    }
}

package dev.parley.e2e;

import static dev.parley.e2e.LibsignalCipher.address;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceId;
import dev.parley.model.KeyBundle;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.signal.libsignal.protocol.IdentityKeyPair;

/**
 * End-to-end encryption proven with Signal's own library (org.signal:libsignal-client, test scope): real identity, signed,
 * one-time and Kyber keys go through {@code keys.upload}, real clients ({@link SignalDevice}) build PQXDH sessions from
 * {@code keys.bundle} and send one envelope per device, each device decrypts its own, and no table holds a plaintext
 * afterwards; a group of ten speaks under sender keys, handed out over the members' direct conversations.
 */
class LibsignalIT extends EndToEndTest {

    @Test
    void realSignalClientsTalkThroughParleyEachDeviceReadingItsOwnEnvelopeWithNoPlaintextStored() throws Exception {
        String alice = user("alice");
        String bob = user("bob");
        String carol = user("carol");
        IdentityKeyPair aliceIdentity = IdentityKeyPair.generate();
        List<String> sent = new ArrayList<>();
        try (ParleyClient bobOnPhone = connect(bob, "phone"); ParleyClient aliceOnPhone = connect(alice, "phone");
             ParleyClient aliceOnLaptop = connect(alice, "laptop"); ParleyClient carolOnPhone = connect(carol, "phone")) {
            SignalDevice bobPhone = SignalDevice.create(bob, "phone", IdentityKeyPair.generate(), 1234, 2, bobOnPhone);
            SignalDevice alicePhone = SignalDevice.create(alice, "phone", aliceIdentity, 77, 5, aliceOnPhone);
            SignalDevice aliceLaptop = SignalDevice.create(alice, "laptop", aliceIdentity, 78, 5, aliceOnLaptop);
            ConversationId chat = aliceOnPhone.direct(bob);
            List<String> members = List.of(alice, bob);

            // 20 messages each way: alice's phone seals for bob's phone and her own laptop, bob's phone for both of hers.
            for (int i = 0; i < 20; i++) {
                String question = "secret question " + i + " from alice";
                sent.add(question);
                alicePhone.send(chat, members, question);
                assertThat(bobPhone.receive(alice)).isEqualTo(question);
                assertThat(aliceLaptop.receive(alice)).as("her laptop reads its own copy").isEqualTo(question);
                String answer = "secret answer " + i + " from bob";
                sent.add(answer);
                bobPhone.send(chat, members, answer);
                assertThat(alicePhone.receive(bob)).isEqualTo(answer);
                assertThat(aliceLaptop.receive(bob)).isEqualTo(answer);
            }
            assertThat(alicePhone.refusals).as("alice knew every device from the start").isEmpty();

            // The laptop's first send builds its own session with bob's phone: the phone's second and last one-time keys go.
            String fromLaptop = "secret from alice's laptop";
            sent.add(fromLaptop);
            aliceLaptop.send(chat, members, fromLaptop);
            assertThat(bobPhone.receive(alice)).isEqualTo(fromLaptop);
            assertThat(alicePhone.receive(alice)).isEqualTo(fromLaptop);

            // Bob's one-time keys are used up: carol gets his last-resort bundle, and libsignal establishes a session from it.
            SignalDevice carolPhone = SignalDevice.create(carol, "phone", IdentityKeyPair.generate(), 99, 1, carolOnPhone);
            KeyBundle lastResort = carolPhone.fetchAndBuild(UserId.of(bob), Optional.empty());
            assertThat(lastResort.devices().getFirst().preKey()).as("used up").isEmpty();
            assertThat(lastResort.devices().getFirst().pqLastResort()).isTrue();
            String fromCarol = "secret from carol, on the last-resort key";
            sent.add(fromCarol);
            carolPhone.send(carolOnPhone.direct(bob), List.of(carol, bob), fromCarol);
            assertThat(bobPhone.receive(carol)).isEqualTo(fromCarol);
        }
        assertNoTableHoldsAnyOf(sent);
    }

    @Test
    void aDeviceAddedMidConversationIsNamedMissingAndTheResendWithTheSameIdReachesAllThreeOfBobsDevices() throws Exception {
        String alice = user("alice");
        String bob = user("bob");
        IdentityKeyPair bobIdentity = IdentityKeyPair.generate();
        List<String> sent = new ArrayList<>();
        try (ParleyClient aliceOnPhone = connect(alice, "phone"); ParleyClient bobOnPhone = connect(bob, "phone");
             ParleyClient bobOnLaptop = connect(bob, "laptop"); ParleyClient bobOnTablet = connect(bob, "tablet")) {
            SignalDevice alicePhone = SignalDevice.create(alice, "phone", IdentityKeyPair.generate(), 10, 3, aliceOnPhone);
            SignalDevice bobPhone = SignalDevice.create(bob, "phone", bobIdentity, 20, 3, bobOnPhone);
            SignalDevice bobLaptop = SignalDevice.create(bob, "laptop", bobIdentity, 21, 3, bobOnLaptop);
            ConversationId chat = aliceOnPhone.direct(bob);
            List<String> members = List.of(alice, bob);
            String before = "before the tablet";
            sent.add(before);
            alicePhone.send(chat, members, before);
            assertThat(bobPhone.receive(alice)).isEqualTo(before);
            assertThat(bobLaptop.receive(alice)).isEqualTo(before);

            // The tablet was online, with no keys yet: it got that message with no envelope for it.
            Message early = bobOnTablet.await(ServerFrame.MessageReceive.class).message();
            assertThat(early.content().envelopes()).contains(List.of());
            SignalDevice bobTablet = SignalDevice.create(bob, "tablet", bobIdentity, 22, 3, bobOnTablet);
            String after = "after the tablet";
            sent.add(after);
            ClientMessageId id = ClientMessageId.random();
            ServerFrame.MessageAck ack = alicePhone.send(chat, members, after, id);

            assertThat(alicePhone.refusals).as("refused once, naming the tablet").singleElement().satisfies(refused ->
                    assertThat(refused.devices().orElseThrow().missing()).containsExactly(new DeviceAddress(UserId.of(bob), DeviceId.of("tablet"))));
            assertThat(ack.id()).isEqualTo(id);
            assertThat(ack.status()).isEqualTo(AckStatus.SENT);
            assertThat(ack.seq()).as("the refused attempt took no seq").isEqualTo(2);
            assertThat(bobPhone.receive(alice)).isEqualTo(after);
            assertThat(bobLaptop.receive(alice)).isEqualTo(after);
            assertThat(bobTablet.receive(alice)).isEqualTo(after);

            // The tablet reads history: the message sent before it had keys is there, with no envelope for it (the app shows
            // it as a message sent before this device was linked), never another device's.
            bobOnTablet.send(new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 10));
            List<Message> history = bobOnTablet.await(ServerFrame.HistoryBatch.class).messages();
            assertThat(history).extracting(Message::seq).containsExactly(2L, 1L);
            assertThat(bobTablet.open(history.get(1))).as("sent before the tablet existed").isEmpty();
        }
        assertNoTableHoldsAnyOf(sent);
    }

    @Test
    void afterAReinstallTheContactIsToldTheOldEnvelopeIsStaleAndLibsignalRefusesTheNewIdentityUntilTheAppAcceptsIt() throws Exception {
        String alice = user("alice");
        String bob = user("bob");
        try (ParleyClient aliceOnPhone = connect(alice, "phone"); ParleyClient bobOnPhone = connect(bob, "phone")) {
            SignalDevice alicePhone = SignalDevice.create(alice, "phone", IdentityKeyPair.generate(), 77, 2, aliceOnPhone);
            SignalDevice bobPhone = SignalDevice.create(bob, "phone", IdentityKeyPair.generate(), 1234, 2, bobOnPhone);
            ConversationId chat = aliceOnPhone.direct(bob);
            alicePhone.send(chat, List.of(alice, bob), "before");
            assertThat(bobPhone.receive(alice)).isEqualTo("before");

            // Bob reinstalls: a new identity, a new registration id, new keys.
            SignalDevice reinstalled = SignalDevice.create(bob, "phone", IdentityKeyPair.generate(), 4321, 2, bobOnPhone);
            assertThat(aliceOnPhone.await(ServerFrame.IdentityChanged.class).userId()).isEqualTo(UserId.of(bob));

            // Alice's next send, still sealed for the old install, is refused naming bob's phone stale; fetching its keys
            // again, libsignal will not build a session on an identity it does not trust.
            assertThatThrownBy(() -> alicePhone.send(chat, List.of(alice, bob), "after"))
                    .isInstanceOf(org.signal.libsignal.protocol.UntrustedIdentityException.class);
            assertThat(alicePhone.refusals).singleElement().satisfies(refused ->
                    assertThat(refused.devices().orElseThrow().stale()).containsExactly(new DeviceAddress(UserId.of(bob), DeviceId.of("phone"))));

            // Alice's app shows the change and she accepts the new identity: the session is built on it, and bob reads her.
            aliceOnPhone.send(new ClientFrame.KeysFetch(UserId.of(bob), Optional.empty()));
            KeyBundle shown = aliceOnPhone.await(ServerFrame.KeysBundle.class).bundle();
            alicePhone.store.saveIdentity(address(bob, "phone"), LibsignalCipher.bundle(shown, shown.devices().getFirst()).getIdentityKey());
            alicePhone.fetchAndBuild(UserId.of(bob), Optional.empty());
            alicePhone.send(chat, List.of(alice, bob), "welcome back");
            assertThat(reinstalled.receive(alice)).isEqualTo("welcome back");
        }
    }

    /** An app on the client library with libsignal as its cipher: what it read, as "seq plaintext" ("(none)" without an envelope). */
    private record SealedApp(dev.parley.client.ParleyClient client, LibsignalCipher cipher, List<String> read) {
    }

    private SealedApp sealedApp(String user, String device, IdentityKeyPair identity, int registrationId) throws Exception {
        LibsignalCipher cipher = LibsignalCipher.create(user, device, identity, registrationId, 3);
        List<String> read = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.parley.client.ParleyClient client = dev.parley.client.ParleyClient.builder(stack.webSocketUrl(), UserId.of(user), DeviceId.of(device),
                () -> stack.token(user, device)).cipher(cipher).listener(new dev.parley.client.ParleyListener() {
                    @Override
                    public void onSealedMessage(Message message, Optional<byte[]> plaintext) {
                        read.add(message.seq() + " " + plaintext.map(bytes -> new String(bytes, StandardCharsets.UTF_8)).orElse("(none)"));
                    }
                }).build().start();
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (client.state() != dev.parley.client.ConnectionState.ONLINE && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        client.uploadKeys(cipher.upload).get(20, java.util.concurrent.TimeUnit.SECONDS);
        return new SealedApp(client, cipher, read);
    }

    private static void awaitRead(SealedApp app, String line) throws InterruptedException {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (!app.read().contains(line)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(app.cipher().user + "/" + app.cipher().device + " did not read \"" + line + "\"; it read " + app.read());
            }
            Thread.sleep(20);
        }
    }

    @Test
    void theClientLibrarySealsWithLibsignalThroughItsCipherAndItsOutboxFollowsDevicesChanged() throws Exception {
        String alice = user("alice");
        String bob = user("bob");
        IdentityKeyPair bobIdentity = IdentityKeyPair.generate();
        List<SealedApp> apps = new ArrayList<>();
        try {
            SealedApp alicePhone = sealedApp(alice, "phone", IdentityKeyPair.generate(), 31);
            apps.add(alicePhone);
            SealedApp bobPhone = sealedApp(bob, "phone", bobIdentity, 41);
            apps.add(bobPhone);
            SealedApp bobLaptop = sealedApp(bob, "laptop", bobIdentity, 42);
            apps.add(bobLaptop);
            ConversationId chat = alicePhone.client().createDirect(UserId.of(bob)).get(20, java.util.concurrent.TimeUnit.SECONDS).id();
            List<UserId> members = List.of(UserId.of(alice), UserId.of(bob));

            long first = alicePhone.client().sendSealed(chat, members, "library secret one".getBytes(StandardCharsets.UTF_8))
                    .get(20, java.util.concurrent.TimeUnit.SECONDS).seq();
            awaitRead(bobPhone, first + " library secret one");
            awaitRead(bobLaptop, first + " library secret one");
            awaitRead(alicePhone, first + " library secret one");

            // Bob links a tablet: alice's outbox is refused devices_changed, her cipher fetches the tablet's keys, and the
            // same send goes again, read by all three of bob's devices.
            SealedApp bobTablet = sealedApp(bob, "tablet", bobIdentity, 43);
            apps.add(bobTablet);
            ServerFrame.MessageAck second = alicePhone.client().sendSealed(chat, members, "library secret two".getBytes(StandardCharsets.UTF_8))
                    .get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(second.status()).isEqualTo(AckStatus.SENT);
            assertThat(second.seq()).isEqualTo(first + 1);
            for (SealedApp device : List.of(bobPhone, bobLaptop, bobTablet)) {
                awaitRead(device, second.seq() + " library secret two");
            }
            awaitRead(bobTablet, first + " (none)");

            long reply = bobTablet.client().sendSealed(chat, members, "library reply".getBytes(StandardCharsets.UTF_8))
                    .get(20, java.util.concurrent.TimeUnit.SECONDS).seq();
            for (SealedApp device : List.of(alicePhone, bobPhone, bobLaptop, bobTablet)) {
                awaitRead(device, reply + " library reply");
            }

            // Alice's sealed reaction to bob's reply, through the library's outbox: the next entry of the log, which every
            // device opens, hers with the plaintext she sealed (she has no envelope of her own).
            ServerFrame.ReactionAck reacted = alicePhone.client().reactSealed(chat, members, reply, "library reaction \uD83D\uDC4D".getBytes(StandardCharsets.UTF_8))
                    .get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(reacted.emoji()).as("the server saw no emoji").isEmpty();
            for (SealedApp device : List.of(alicePhone, bobPhone, bobLaptop, bobTablet)) {
                awaitRead(device, (reply + 1) + " library reaction \uD83D\uDC4D");
            }
        } finally {
            apps.forEach(app -> app.client().close());
        }
        assertNoTableHoldsAnyOf(List.of("library secret one", "library secret two", "library reply", "library reaction"));
    }

    @Test
    void sealedMessagesAreEditedReactedToAndDeletedDirectlyAndUnderSenderKeysEveryDeviceReadsThemAndNoEnvelopeOutlivesTheDelete() throws Exception {
        String alice = user("alice");
        String bob = user("bob");
        String carol = user("carol");
        IdentityKeyPair aliceIdentity = IdentityKeyPair.generate();
        List<String> plaintexts = List.of("meet at the old mill", "meet at the new mill", "group plan: tuesday", "group plan: wednesday");
        List<String> ciphertexts = new ArrayList<>();
        try (ParleyClient bobOnPhone = connect(bob, "phone"); ParleyClient aliceOnPhone = connect(alice, "phone");
             ParleyClient aliceOnLaptop = connect(alice, "laptop"); ParleyClient carolOnPhone = connect(carol, "phone")) {
            SignalDevice bobPhone = SignalDevice.create(bob, "phone", IdentityKeyPair.generate(), 2001, 3, bobOnPhone);
            SignalDevice alicePhone = SignalDevice.create(alice, "phone", aliceIdentity, 2002, 3, aliceOnPhone);
            SignalDevice aliceLaptop = SignalDevice.create(alice, "laptop", aliceIdentity, 2003, 3, aliceOnLaptop);
            SignalDevice carolPhone = SignalDevice.create(carol, "phone", IdentityKeyPair.generate(), 2004, 3, carolOnPhone);

            // Direct: alice's sealed message, its sealed edit (every device of both reads the new text), then its delete.
            ConversationId chat = aliceOnPhone.direct(bob);
            List<String> members = List.of(alice, bob);
            long seq = alicePhone.send(chat, members, plaintexts.get(0)).seq();
            assertThat(bobPhone.receive(alice)).isEqualTo(plaintexts.get(0));
            assertThat(aliceLaptop.receive(alice)).isEqualTo(plaintexts.get(0));
            long editSeq = alicePhone.edit(chat, members, seq, plaintexts.get(1)).seq();
            Content bobsEdit = null;
            for (SignalDevice device : List.of(bobPhone, aliceLaptop)) {
                Message edit = device.client.await(ServerFrame.MessageReceive.class, r -> r.message().seq() == editSeq).message();
                if (device == bobPhone) {
                    bobsEdit = edit.content();
                }
                assertThat(edit.details().relatesTo()).contains(new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, seq));
                assertThat(device.open(edit)).as(device.user + "/" + device.device + " reads the edit").contains(plaintexts.get(1));
            }
            // Bob's sealed reaction: an entry of the log each of alice's devices opens; the server counted nothing.
            bobPhone.react(chat, members, seq, "\uD83D\uDC4D");
            for (SignalDevice device : List.of(alicePhone, aliceLaptop)) {
                Message reaction = device.client.await(ServerFrame.MessageReceive.class, r -> r.message().details().relatesTo()
                        .map(relation -> relation.kind() == dev.parley.model.RelationKind.REACTION).orElse(false)).message();
                assertThat(reaction.details().relatesTo().orElseThrow().seq()).isEqualTo(seq);
                assertThat(device.open(reaction)).as(device.device + " opens bob's reaction").contains("\uD83D\uDC4D");
            }
            bobOnPhone.send(new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 10));
            Message listed = bobOnPhone.await(ServerFrame.HistoryBatch.class).messages().stream().filter(m -> m.seq() == seq).findFirst().orElseThrow();
            assertThat(listed.details().reactions()).as("nothing aggregated in plaintext").isEmpty();
            assertThat(listed.details().editedAt()).isPresent();
            // Each ciphertext opens once (the ratchet moved on): history's copy is the edit's envelope bob opened live.
            assertThat(listed.content()).as("history lists the message with the edit's envelopes").isEqualTo(bobsEdit);
            alicePhone.sealed.forEach(content -> content.envelopes().orElseThrow().forEach(envelope -> ciphertexts.add(envelope.body())));
            bobPhone.sealed.forEach(content -> content.envelopes().orElseThrow().forEach(envelope -> ciphertexts.add(envelope.body())));
            aliceOnPhone.send(new ClientFrame.MessageDelete(ClientMessageId.random(), chat, seq, 1));
            long deleteSeq = bobOnPhone.await(ServerFrame.MessageReceive.class, r -> r.message().details().relatesTo()
                    .map(relation -> relation.kind() == dev.parley.model.RelationKind.DELETE).orElse(false)).message().seq();
            bobOnPhone.send(new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 10));
            List<Message> after = bobOnPhone.await(ServerFrame.HistoryBatch.class).messages();
            assertThat(after).filteredOn(m -> m.seq() == seq || m.seq() == editSeq).as("the message and its edit: tombstones")
                    .extracting(Message::content).containsOnly(Content.DELETED);
            assertThat(after).extracting(Message::seq).contains(deleteSeq);

            // A sender-key group of three: the same, one body for every member.
            aliceOnPhone.direct(carol); // where alice's sender key reaches carol
            ConversationId group = aliceOnPhone.group(List.of(bob, carol), "sealed changes");
            java.util.UUID distribution = java.util.UUID.randomUUID();
            distribute(alicePhone, senderKey(alicePhone, distribution), List.of(bobPhone, carolPhone));
            long groupSeq = sendToGroup(alicePhone, group, distribution, plaintexts.get(2)).seq();
            for (SignalDevice other : List.of(bobPhone, carolPhone)) {
                assertThat(openGroupMessage(other, alice, nextGroupMessage(other, group, alice))).isEqualTo(plaintexts.get(2));
            }
            var edited = new org.signal.libsignal.protocol.groups.GroupCipher(alicePhone.store, address(alice, "phone"))
                    .encrypt(distribution, plaintexts.get(3).getBytes(StandardCharsets.UTF_8));
            Content editBody = new Content(dev.parley.model.ContentType.CIPHERTEXT, Optional.of(LibsignalCipher.base64(edited.serialize())), Optional.empty());
            ClientMessageId groupEdit = ClientMessageId.random();
            aliceOnPhone.send(new ClientFrame.MessageEdit(groupEdit, group, groupSeq, editBody, 1));
            aliceOnPhone.await(ServerFrame.MessageAck.class, ack -> ack.id().equals(groupEdit));
            for (SignalDevice other : List.of(bobPhone, carolPhone)) {
                Message edit = other.client.await(ServerFrame.MessageReceive.class, r -> r.message().conversationId().equals(group)
                        && r.message().isChange()).message();
                assertThat(openGroupMessage(other, alice, java.util.Base64.getDecoder().decode(edit.content().body().orElseThrow())))
                        .as(other.user + " reads the sender-key edit").isEqualTo(plaintexts.get(3));
            }
            var heart = new org.signal.libsignal.protocol.groups.GroupCipher(alicePhone.store, address(alice, "phone"))
                    .encrypt(distribution, "\u2764\uFE0F".getBytes(StandardCharsets.UTF_8));
            Content heartBody = new Content(dev.parley.model.ContentType.CIPHERTEXT, Optional.of(LibsignalCipher.base64(heart.serialize())), Optional.empty());
            aliceOnPhone.sendRaw(new dev.parley.protocol.FrameCodec().encodeRequest(new ClientFrame.ReactionSet(group, groupSeq, Optional.empty(),
                    Optional.of(heartBody)), java.util.UUID.randomUUID().toString()));
            aliceOnPhone.await(ServerFrame.ReactionAck.class, ack -> ack.targetSeq() == groupSeq);
            for (SignalDevice other : List.of(bobPhone, carolPhone)) {
                Message reaction = other.client.await(ServerFrame.MessageReceive.class, r -> r.message().conversationId().equals(group)
                        && r.message().details().relatesTo().map(relation -> relation.kind() == dev.parley.model.RelationKind.REACTION).orElse(false)).message();
                assertThat(openGroupMessage(other, alice, java.util.Base64.getDecoder().decode(reaction.content().body().orElseThrow())))
                        .as(other.user + " opens the sender-key reaction").isEqualTo("\u2764\uFE0F");
            }
            ciphertexts.add(heartBody.body().orElseThrow());
            bobOnPhone.send(new ClientFrame.HistoryRequest(group, OptionalLong.empty(), 10));
            ciphertexts.add(bobOnPhone.await(ServerFrame.HistoryBatch.class).messages().stream().filter(m -> m.seq() == groupSeq).findFirst()
                    .orElseThrow().content().body().orElseThrow());
            ciphertexts.add(editBody.body().orElseThrow());
            aliceOnPhone.send(new ClientFrame.MessageDelete(ClientMessageId.random(), group, groupSeq, 1));
            carolOnPhone.await(ServerFrame.MessageReceive.class, r -> r.message().conversationId().equals(group) && r.message().details().relatesTo()
                    .map(relation -> relation.kind() == dev.parley.model.RelationKind.DELETE).orElse(false));
        }
        assertNoTableHoldsAnyOf(plaintexts);
        // Not a plaintext only: after the deletes, no table holds an envelope (or a sender-key body) of the deleted messages.
        // Whole: the envelopes of one unanswered session (PreKeySignalMessages) share their first bytes, the session's header.
        assertNoTableHolds(ciphertexts, 41);
    }

    /** A member's sender key for a group: created under a distribution id, and the message that hands it to the others. */
    private static org.signal.libsignal.protocol.message.SenderKeyDistributionMessage senderKey(SignalDevice member, java.util.UUID distribution)
            throws Exception {
        return new org.signal.libsignal.protocol.groups.GroupSessionBuilder(member.store).create(address(member.user, member.device), distribution);
    }

    /**
     * Hands {@code from}'s sender key to each of {@code to} as an envelope message in their direct conversation (the app's own
     * inner format: {@code sender-key:} and the distribution message in base64), and has each receive and process it.
     */
    private static void distribute(SignalDevice from, org.signal.libsignal.protocol.message.SenderKeyDistributionMessage key, List<SignalDevice> to)
            throws Exception {
        for (SignalDevice other : to) {
            ConversationId direct = ConversationId.direct(UserId.of(from.user), UserId.of(other.user));
            from.send(direct, List.of(from.user, other.user), "sender-key:" + LibsignalCipher.base64(key.serialize()));
            String received = other.receive(from.user);
            assertThat(received).startsWith("sender-key:");
            new org.signal.libsignal.protocol.groups.GroupSessionBuilder(other.store).process(address(from.user, from.device),
                    new org.signal.libsignal.protocol.message.SenderKeyDistributionMessage(java.util.Base64.getDecoder().decode(received.substring(11))));
        }
    }

    /** One group message under the sender's current sender key: one body for every member, whatever the group's size. */
    private static ServerFrame.MessageAck sendToGroup(SignalDevice from, ConversationId group, java.util.UUID distribution, String plaintext)
            throws Exception {
        var sealed = new org.signal.libsignal.protocol.groups.GroupCipher(from.store, address(from.user, from.device))
                .encrypt(distribution, plaintext.getBytes(StandardCharsets.UTF_8));
        return from.client.sendContent(group, ClientMessageId.random(), new dev.parley.model.Content(dev.parley.model.ContentType.CIPHERTEXT,
                Optional.of(LibsignalCipher.base64(sealed.serialize())), Optional.empty()));
    }

    /** The next group message from {@code sender}, as its ciphertext. */
    private static byte[] nextGroupMessage(SignalDevice to, ConversationId group, String sender) throws Exception {
        Message message = to.client.await(ServerFrame.MessageReceive.class, frame -> frame.message().conversationId().equals(group)
                && frame.message().senderId().value().equals(sender)).message();
        return java.util.Base64.getDecoder().decode(message.content().body().orElseThrow());
    }

    private static String openGroupMessage(SignalDevice to, String sender, byte[] ciphertext) throws Exception {
        return new String(new org.signal.libsignal.protocol.groups.GroupCipher(to.store, address(sender, "phone")).decrypt(ciphertext),
                StandardCharsets.UTF_8);
    }

    @Test
    void aTenMemberGroupUnderSenderKeysEveryoneReadsEveryoneAndARemovedMemberCannotReadWhatFollows() throws Exception {
        List<ParleyClient> clients = new ArrayList<>();
        List<SignalDevice> members = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                String name = user("member" + i);
                ParleyClient client = connect(name, "phone");
                clients.add(client);
                members.add(SignalDevice.create(name, "phone", IdentityKeyPair.generate(), 300 + i, 3, client));
            }
            for (int i = 0; i < members.size(); i++) {
                for (int j = i + 1; j < members.size(); j++) {
                    members.get(i).client.direct(members.get(j).user);
                }
            }
            SignalDevice admin = members.getFirst();
            ConversationId group = admin.client.group(members.subList(1, members.size()).stream().map(member -> member.user).toList(), "ten");

            // Each member makes a sender key and hands it to the other nine over their direct conversations.
            List<java.util.UUID> distributions = new ArrayList<>();
            for (SignalDevice member : members) {
                java.util.UUID distribution = java.util.UUID.randomUUID();
                distributions.add(distribution);
                distribute(member, senderKey(member, distribution), members.stream().filter(other -> other != member).toList());
            }

            // Every member sends one group message, one body for all; each of the other nine decrypts it.
            for (int i = 0; i < members.size(); i++) {
                String text = "group secret from member " + i;
                sent.add(text);
                sendToGroup(members.get(i), group, distributions.get(i), text);
                for (SignalDevice other : members) {
                    if (other != members.get(i)) {
                        assertThat(openGroupMessage(other, members.get(i).user, nextGroupMessage(other, group, members.get(i).user))).isEqualTo(text);
                    }
                }
            }

            // The admin removes the last member. Each member left makes a new sender key before its next group message (docs/e2e.md):
            // here the admin, the next to speak, hands its new key to the eight others.
            SignalDevice removed = members.getLast();
            admin.client.send(new ClientFrame.ConversationMembersRemove(group, List.of(UserId.of(removed.user))));
            admin.client.await(ServerFrame.ConversationUpdated.class);
            List<SignalDevice> staying = members.subList(0, members.size() - 1);
            java.util.UUID rotated = java.util.UUID.randomUUID();
            distribute(admin, senderKey(admin, rotated), staying.subList(1, staying.size()));
            String afterRemoval = "group secret after the removal";
            sent.add(afterRemoval);
            sendToGroup(admin, group, rotated, afterRemoval);
            byte[] next = null;
            for (SignalDevice other : staying.subList(1, staying.size())) {
                next = nextGroupMessage(other, group, admin.user);
                assertThat(openGroupMessage(other, admin.user, next)).isEqualTo(afterRemoval);
            }
            byte[] intercepted = next;
            assertThat(removed.client.drain(ServerFrame.MessageReceive.class, java.time.Duration.ofMillis(500)))
                    .as("no longer a member: not delivered").noneMatch(frame -> frame.message().conversationId().equals(group));
            assertThatThrownBy(() -> openGroupMessage(removed, admin.user, intercepted))
                    .as("even holding the ciphertext, the removed member has no sender key for it")
                    .isInstanceOf(org.signal.libsignal.protocol.NoSessionException.class);
        } finally {
            clients.forEach(ParleyClient::close);
        }
        assertNoTableHoldsAnyOf(sent);
    }

    /** A report line: what one message cost, per table, from two readings of the meter, and its item's size. */
    private static String costLine(String what, java.util.Map<String, double[]> before, java.util.Map<String, double[]> after, long itemBytes) {
        StringBuilder line = new StringBuilder("| " + what + " | " + itemBytes + " | ");
        double writes = 0;
        double reads = 0;
        List<String> tables = new ArrayList<>();
        for (var table : after.entrySet()) {
            double[] was = before.getOrDefault(table.getKey(), new double[2]);
            double w = table.getValue()[0] - was[0];
            double r = table.getValue()[1] - was[1];
            if (w > 0 || r > 0) {
                tables.add("%s %.1f W / %.1f R".formatted(table.getKey().replace("parley-", ""), w, r));
            }
            writes += w;
            reads += r;
        }
        return line.append("%.1f | %.1f | %s |".formatted(writes, reads, String.join(", ", tables))).toString();
    }

    /** The size DynamoDB counts for the message item at {@code seq}. */
    private static long itemBytes(dev.parley.local.LocalCloud cloud, ConversationId conversation, long seq) {
        var partition = cloud.dynamoDb().database().table(ParleyManifest.MESSAGES).partition(new dev.parley.local.dynamodb.model.AttrValue.S(conversation.value()));
        return partition.values().stream().filter(item -> item.get("seq").equals(dev.parley.local.dynamodb.model.AttrValue.N.of(seq)))
                .mapToLong(dev.parley.local.dynamodb.model.Item::sizeOf).findFirst().orElseThrow();
    }

    /**
     * What one end-to-end message costs for 2 users with 6 devices each (docs/benchmarks.md): the same short text sent as plain
     * text, as a session's first envelopes (PreKeySignalMessages, each carrying its Kyber ciphertext) and once the sessions are
     * answered (SignalMessages). Printed, and written to target/envelope-cost.md.
     */
    @Test
    void theCostOfOneMessageToTwoUsersWithSixDevicesEachIsMeasured() throws Exception {
        assumeTrue(stack.local().isPresent(), "reads the local cloud's capacity meter and items");
        dev.parley.local.LocalCloud cloud = stack.local().get();
        String alice = user("alice");
        String bob = user("bob");
        IdentityKeyPair aliceIdentity = IdentityKeyPair.generate();
        IdentityKeyPair bobIdentity = IdentityKeyPair.generate();
        List<ParleyClient> clients = new ArrayList<>();
        List<SignalDevice> devices = new ArrayList<>();
        String text = "see you at the station at eight";
        try {
            for (String user : List.of(alice, bob)) {
                for (int d = 1; d <= 6; d++) {
                    ParleyClient client = connect(user, "device-" + d);
                    clients.add(client);
                    devices.add(SignalDevice.create(user, "device-" + d, user.equals(alice) ? aliceIdentity : bobIdentity, 100 * (user.equals(alice) ? 1 : 2) + d, 2, client));
                }
            }
            SignalDevice sender = devices.getFirst();
            List<SignalDevice> recipients = devices.subList(1, devices.size());
            ConversationId chat = sender.client.direct(bob);
            List<String> report = new ArrayList<>(List.of("| message | item bytes | write units | read units | by table |", "|---|---|---|---|---|"));

            var before = tableUnits(cloud);
            ServerFrame.MessageAck plain = sender.client.sendText(chat, ClientMessageId.random(), text);
            for (SignalDevice recipient : recipients) {
                recipient.client.await(ServerFrame.MessageReceive.class, frame -> frame.message().seq() == plain.seq());
            }
            Thread.sleep(500);
            report.add(costLine("plain text, for comparison", before, tableUnits(cloud), itemBytes(cloud, chat, plain.seq())));

            sender.fetchAndBuild(UserId.of(alice), Optional.empty());
            sender.fetchAndBuild(UserId.of(bob), Optional.empty());
            before = tableUnits(cloud);
            ServerFrame.MessageAck first = sender.send(chat, List.of(alice, bob), text);
            for (SignalDevice recipient : recipients) {
                assertThat(recipient.receive(alice)).isEqualTo(text);
            }
            Thread.sleep(500);
            report.add(costLine("envelopes, sessions' first (11 prekey)", before, tableUnits(cloud), itemBytes(cloud, chat, first.seq())));

            // Each device answers the sender once (directly: the cost measured is the sender's), which moves its sessions to SignalMessages.
            for (SignalDevice recipient : recipients) {
                var reply = new org.signal.libsignal.protocol.SessionCipher(recipient.store, address(alice, "device-1"))
                        .encrypt("ok".getBytes(StandardCharsets.UTF_8));
                new org.signal.libsignal.protocol.SessionCipher(sender.store, address(recipient.user, recipient.device))
                        .decrypt(new org.signal.libsignal.protocol.message.SignalMessage(reply.serialize()));
            }
            before = tableUnits(cloud);
            ServerFrame.MessageAck steady = sender.send(chat, List.of(alice, bob), text);
            for (SignalDevice recipient : recipients) {
                assertThat(recipient.receive(alice)).isEqualTo(text);
            }
            Thread.sleep(500);
            report.add(costLine("envelopes, sessions answered (11 message)", before, tableUnits(cloud), itemBytes(cloud, chat, steady.seq())));

            String written = String.join("\n", report) + "\n";
            System.out.println("Cost of one message to 2 users x 6 devices (" + text.length() + " characters), local cloud's meter:\n" + written);
            java.nio.file.Files.writeString(java.nio.file.Path.of("target", "envelope-cost.md"), written);
            assertThat(itemBytes(cloud, chat, first.seq())).as("11 PQXDH envelopes, each with its Kyber ciphertext").isGreaterThan(11 * 1568);
            assertThat(itemBytes(cloud, chat, steady.seq())).as("a ratcheted message is far smaller").isLessThan(itemBytes(cloud, chat, first.seq()) / 4);
        } finally {
            clients.forEach(ParleyClient::close);
        }
    }

    /** No table holds any of the plaintexts, as sent or in base64 (the envelopes' encoding): the server never held one. */
    private void assertNoTableHoldsAnyOf(List<String> plaintexts) {
        List<String> forms = new ArrayList<>(plaintexts);
        plaintexts.forEach(plaintext -> forms.add(LibsignalCipher.base64(plaintext.getBytes(StandardCharsets.UTF_8))));
        assertNoTableHolds(forms, 41);
    }
}

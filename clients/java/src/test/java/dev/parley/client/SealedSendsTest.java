package dev.parley.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.ErrorCode;
import dev.parley.model.KeyBundle;
import dev.parley.model.Message;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's end-to-end sends over a stand-in cipher (its "sealing" is a label, not cryptography: LibsignalIT proves the real
 * thing): sealed on the cipher's thread, sealed again after {@code devices_changed} with the keys it fetched and sent under the
 * same id, opened for the app, failed when the devices keep changing or the cipher fails.
 */
class SealedSendsTest {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final ConversationId CHAT = ConversationId.of("d:alice:bob");
    private final FakeServer server = new FakeServer();
    private final LabelCipher cipher = new LabelCipher();
    private final List<String> opened = new CopyOnWriteArrayList<>();
    private final List<ServerFrame.Error> failures = new CopyOnWriteArrayList<>();
    private final List<ParleyClient> clients = new CopyOnWriteArrayList<>();

    /** Seals by labelling the plaintext with the device; knows bob's phone at first, and learns devices from fetched bundles. */
    private static final class LabelCipher implements EndToEndCipher {
        final Set<DeviceAddress> devices = new LinkedHashSet<>(List.of(new DeviceAddress(BOB, DeviceId.of("phone"))));
        final List<DeviceMismatch> changes = new CopyOnWriteArrayList<>();
        volatile boolean failing;

        @Override
        public List<DeviceEnvelope> seal(ConversationId conversation, List<UserId> members, byte[] plaintext, Keys keys) {
            List<DeviceEnvelope> envelopes = new ArrayList<>();
            for (DeviceAddress device : devices) {
                if (members.contains(device.user())) {
                    envelopes.add(new DeviceEnvelope(device, 7, EnvelopeKind.MESSAGE, Base64.getEncoder().encodeToString(
                            (device + ":" + new String(plaintext, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8))));
                }
            }
            return envelopes;
        }

        @Override
        public void devicesChanged(DeviceMismatch mismatch, Keys keys) throws Exception {
            changes.add(mismatch);
            if (failing) {
                throw new IllegalStateException("the cipher's store is locked");
            }
            mismatch.extra().forEach(devices::remove);
            for (DeviceAddress missing : mismatch.missing()) {
                KeyBundle bundle = keys.fetch(missing.user(), Optional.of(missing.device()));
                bundle.devices().forEach(device -> devices.add(new DeviceAddress(bundle.user(), device.device())));
            }
        }

        @Override
        public Optional<byte[]> open(Message message) {
            return message.content().envelopes().orElseThrow().stream().findFirst()
                    .map(envelope -> Base64.getDecoder().decode(envelope.body()));
        }
    }

    private ParleyClient client(ClientStore store) throws Exception {
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("laptop"), () -> "token")
                .transport(server).store(store).cipher(cipher).ackTimeout(Duration.ofSeconds(2)).listener(new ParleyListener() {
                    @Override
                    public void onSealedMessage(Message message, Optional<byte[]> plaintext) {
                        opened.add(message.seq() + " " + plaintext.map(bytes -> new String(bytes, StandardCharsets.UTF_8)).orElse("(none)"));
                    }

                    @Override
                    public void onSendFailed(ClientStore.PendingSend send, ServerFrame.Error error) {
                        failures.add(error);
                    }
                }).build().start();
        clients.add(client);
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncBatch(CHAT, 0, List.of(), false, ReceiptWatermarks.NONE, 0));
        server.answer(new ServerFrame.SyncDone(0));
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (client.state() != ConnectionState.ONLINE && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(ParleyClient::close);
    }

    private static ServerFrame.Error devicesChanged(ClientMessageId id, DeviceMismatch mismatch) {
        return ServerFrame.Error.devicesChanged(new dev.parley.model.DevicesChangedException(mismatch), Optional.of(id.toString()));
    }

    private static List<DeviceAddress> addressed(ClientFrame.MessageSend send) {
        return send.content().envelopes().orElseThrow().stream().map(DeviceEnvelope::address).toList();
    }

    @Test
    void aSendRefusedDevicesChangedIsSealedAgainWithTheFetchedKeysAndSentUnderTheSameId() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        CompletableFuture<ServerFrame.MessageAck> sending = client.sendSealed(CHAT, List.of(ALICE, BOB), "hi bob".getBytes(StandardCharsets.UTF_8));

        ClientFrame.MessageSend first = server.next(ClientFrame.MessageSend.class);
        assertThat(addressed(first)).containsExactly(new DeviceAddress(BOB, DeviceId.of("phone")));
        DeviceAddress tablet = new DeviceAddress(BOB, DeviceId.of("tablet"));
        server.answer(devicesChanged(first.id(), new DeviceMismatch(List.of(tablet), List.of(), List.of())));

        ClientFrame.KeysFetch fetch = server.next(ClientFrame.KeysFetch.class);
        assertThat(fetch).isEqualTo(new ClientFrame.KeysFetch(BOB, Optional.of(DeviceId.of("tablet"))));
        server.answer(new ServerFrame.KeysBundle(new KeyBundle(BOB, "identity", List.of(new KeyBundle.Device(DeviceId.of("tablet"), 8,
                new SignedPublicKey(1, "k", "s"), Optional.empty(), new SignedPublicKey(2, "k", "s"), true)))));
        ClientFrame.MessageSend again = server.next(ClientFrame.MessageSend.class);
        assertThat(again.id()).as("the same id: stored once").isEqualTo(first.id());
        assertThat(again.attempt()).as("marked a resend").isEqualTo(2);
        assertThat(addressed(again)).containsExactly(new DeviceAddress(BOB, DeviceId.of("phone")), tablet);

        // The stored message comes back before its ack (a sync after the ack was lost): the app gets its own plaintext all the same.
        server.answer(new ServerFrame.MessageReceive(new Message(first.id(), CHAT, 1, ALICE, DeviceId.of("laptop"),
                Content.envelopes(List.of(new DeviceEnvelope(new DeviceAddress(BOB, DeviceId.of("phone")), 7, EnvelopeKind.MESSAGE, "AAAA")))
                        .forDevice(new DeviceAddress(ALICE, DeviceId.of("laptop"))), 5_000)));
        await(() -> opened.contains("1 hi bob"), "the app's own message, with the plaintext it was sealed from");
        ServerFrame.MessageAck ack = new ServerFrame.MessageAck(first.id(), CHAT, 1, 5_000, AckStatus.DUPLICATE);
        server.answer(ack);
        assertThat(sending.get(5, TimeUnit.SECONDS)).isEqualTo(ack);

        // A message from bob to this laptop: opened by the cipher for the app.
        server.answer(new ServerFrame.MessageReceive(new Message(ClientMessageId.random(), CHAT, 2, BOB, DeviceId.of("phone"),
                Content.envelopes(List.of(new DeviceEnvelope(new DeviceAddress(ALICE, DeviceId.of("laptop")), 9, EnvelopeKind.MESSAGE,
                        Base64.getEncoder().encodeToString("hi alice".getBytes(StandardCharsets.UTF_8))))), 6_000)));
        server.answer(new ServerFrame.MessageReceive(new Message(ClientMessageId.random(), CHAT, 3, BOB, DeviceId.of("phone"),
                new Content(dev.parley.model.ContentType.CIPHERTEXT, Optional.empty(), Optional.empty(), Optional.of(List.of())), 7_000)));
        await(() -> opened.size() == 3, "two more messages");
        assertThat(opened).containsExactly("1 hi bob", "2 hi alice", "3 (none)");
    }

    @Test
    void aSealedReactionIsSealedQueuedSealedAgainUnderItsIdAndComesBackAsThisDevicesEntryWithItsPlaintext() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        CompletableFuture<ServerFrame.ReactionAck> reacting = client.reactSealed(CHAT, List.of(ALICE, BOB), 1, "\uD83D\uDC4D".getBytes(StandardCharsets.UTF_8));
        ClientFrame.ReactionSet first = server.next(ClientFrame.ReactionSet.class);
        String id = server.unanswered(ClientFrame.ReactionSet.class).getFirst().id();
        assertThat(first.emoji()).as("the emoji is inside the ciphertext").isEmpty();
        assertThat(first.ciphertext().orElseThrow().envelopes().orElseThrow()).extracting(DeviceEnvelope::address)
                .containsExactly(new DeviceAddress(BOB, DeviceId.of("phone")));
        DeviceAddress tablet = new DeviceAddress(BOB, DeviceId.of("tablet"));
        server.answer(devicesChanged(ClientMessageId.parse(id), new DeviceMismatch(List.of(tablet), List.of(), List.of())));
        server.next(ClientFrame.KeysFetch.class);
        server.answer(new ServerFrame.KeysBundle(new KeyBundle(BOB, "identity", List.of(new KeyBundle.Device(DeviceId.of("tablet"), 8,
                new SignedPublicKey(1, "k", "s"), Optional.empty(), new SignedPublicKey(2, "k", "s"), true)))));
        ClientFrame.ReactionSet again = server.next(ClientFrame.ReactionSet.class);
        assertThat(server.unanswered(ClientFrame.ReactionSet.class)).extracting(FakeServer.Request::id).as("the same id: one entry").containsOnly(id);
        assertThat(again.ciphertext().orElseThrow().envelopes().orElseThrow()).extracting(DeviceEnvelope::address)
                .containsExactly(new DeviceAddress(BOB, DeviceId.of("phone")), tablet);

        // The fast path posts its entry's message.ack, then reaction.ack answers: the entry takes its place at seq 2.
        server.answer(new ServerFrame.MessageAck(ClientMessageId.parse(id), CHAT, 2, 5_000, AckStatus.SENT), Optional.of(id));
        server.answer(new ServerFrame.ReactionAck(CHAT, 1, Optional.empty()), Optional.of(id));
        assertThat(reacting.get(5, TimeUnit.SECONDS)).isEqualTo(new ServerFrame.ReactionAck(CHAT, 1, Optional.empty()));
        server.answer(new ServerFrame.MessageReceive(new Message(ClientMessageId.random(), CHAT, 1, BOB, DeviceId.of("phone"),
                Content.envelopes(List.of(new DeviceEnvelope(new DeviceAddress(ALICE, DeviceId.of("laptop")), 9, EnvelopeKind.MESSAGE,
                        Base64.getEncoder().encodeToString("lunch?".getBytes(StandardCharsets.UTF_8))))), 4_000)));
        await(() -> opened.size() == 2, "the message and this device's reaction to it");
        assertThat(opened).containsExactly("1 lunch?", "2 \uD83D\uDC4D");
        assertThatThrownBy(() -> client.reactSealed(CHAT, List.of(ALICE, BOB), 0, new byte[] {1}).get(5, TimeUnit.SECONDS))
                .as("refused before the wire, naming the field").hasMessageContaining("target_seq");
    }

    @Test
    void aSendWhoseDevicesKeepChangingOrWhoseCipherFailsFailsWithTheReason() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        CompletableFuture<ServerFrame.MessageAck> churning = client.sendSealed(CHAT, List.of(ALICE, BOB), "x".getBytes(StandardCharsets.UTF_8));
        DeviceMismatch extra = new DeviceMismatch(List.of(), List.of(new DeviceAddress(BOB, DeviceId.of("old"))), List.of());
        for (int refusal = 0; refusal <= Sender.MAX_RESEALS; refusal++) {
            ClientFrame.MessageSend send = server.next(ClientFrame.MessageSend.class);
            server.answer(devicesChanged(send.id(), extra));
        }
        assertThatThrownBy(() -> churning.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).hasMessageContaining("devices_changed");
        assertThat(cipher.changes).as("sealed again three times, then given up").hasSize(Sender.MAX_RESEALS);

        cipher.failing = true;
        CompletableFuture<ServerFrame.MessageAck> broken = client.sendSealed(CHAT, List.of(ALICE, BOB), "y".getBytes(StandardCharsets.UTF_8));
        ClientFrame.MessageSend send = server.next(ClientFrame.MessageSend.class);
        server.answer(devicesChanged(send.id(), extra));
        assertThatThrownBy(() -> broken.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("sealing the message again failed").hasMessageContaining("the cipher's store is locked");
        await(() -> failures.size() == 2, "both told to the listener");

        cipher.devices.clear();
        assertThatThrownBy(() -> client.sendSealed(CHAT, List.of(ALICE, BOB), "z".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS))
                .as("no device to seal for: refused before it is queued").hasMessageContaining("bad_request").hasMessageContaining("content.envelopes");
        assertThatThrownBy(() -> ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"), () -> "t").build()
                .sendSealed(CHAT, List.of(ALICE), new byte[] {1})).isInstanceOf(IllegalStateException.class).hasMessageContaining("EndToEndCipher");
    }

    @Test
    void aPendingSealedSendKeepsWhatItWasSealedFromAcrossARestart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("alice-laptop.json");
        FileClientStore store = new FileClientStore(file);
        ClientMessageId id = ClientMessageId.random();
        store.addPendingSend(new ClientStore.PendingSend(id, CHAT, "{}", Optional.of(new ClientStore.Sealed(List.of(ALICE, BOB),
                "kept on this device".getBytes(StandardCharsets.UTF_8)))));
        store.replacePendingSend(new ClientStore.PendingSend(id, CHAT, "{\"sealed\":\"again\"}", Optional.of(new ClientStore.Sealed(List.of(ALICE, BOB),
                "kept on this device".getBytes(StandardCharsets.UTF_8)))));

        ClientStore.PendingSend reloaded = new FileClientStore(file).pendingSends().getFirst();
        assertThat(reloaded.frame()).isEqualTo("{\"sealed\":\"again\"}");
        assertThat(reloaded.sealed()).hasValueSatisfying(sealed -> {
            assertThat(sealed.members()).containsExactly(ALICE, BOB);
            assertThat(new String(sealed.plaintext(), StandardCharsets.UTF_8)).isEqualTo("kept on this device");
        });
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }
}

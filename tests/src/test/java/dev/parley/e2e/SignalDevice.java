package dev.parley.e2e;

import dev.parley.client.EndToEndCipher;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.ErrorCode;
import dev.parley.model.KeyBundle;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.signal.libsignal.protocol.IdentityKeyPair;
import org.signal.libsignal.protocol.state.impl.InMemorySignalProtocolStore;

/**
 * One device of a Parley user running Signal's own library through {@link LibsignalCipher}, on a raw test connection: it
 * sends as a client must (docs/e2e.md), one envelope per device its cipher knows, and on {@code devices_changed} has the cipher
 * fetch the devices named and seals again under the same id. The client library's outbox does the same ({@code ClientLibraryIT});
 * this one shows the frames themselves.
 */
final class SignalDevice {
    /** How many times a send follows {@code devices_changed} before the test calls it a loop. */
    private static final int RESENDS = 3;
    final String user;
    final String device;
    final InMemorySignalProtocolStore store;
    final LibsignalCipher cipher;
    final ParleyClient client;
    /** What the last send did: the times it was refused {@code devices_changed}. */
    final List<ServerFrame.Error> refusals = new ArrayList<>();
    /** The key directory through this device's connection. */
    private final EndToEndCipher.Keys keys;

    private SignalDevice(LibsignalCipher cipher, ParleyClient client) {
        this.user = cipher.user;
        this.device = cipher.device;
        this.store = cipher.store;
        this.cipher = cipher;
        this.client = client;
        this.keys = this::fetch;
    }

    /** A new device (see {@link LibsignalCipher#create}) connected on {@code client}, its keys uploaded and answered. */
    static SignalDevice create(String user, String device, IdentityKeyPair identity, int registrationId, int oneTimeKeys, ParleyClient client)
            throws Exception {
        SignalDevice created = new SignalDevice(LibsignalCipher.create(user, device, identity, registrationId, oneTimeKeys), client);
        client.send(new ClientFrame.KeysUpload(created.cipher.upload));
        client.await(ServerFrame.KeysUploaded.class);
        return created;
    }

    private KeyBundle fetch(UserId user, Optional<DeviceId> only) throws Exception {
        client.send(new ClientFrame.KeysFetch(user, only));
        ServerFrame fetched = client.await(ServerFrame.class, frame -> frame instanceof ServerFrame.KeysBundle bundle && bundle.bundle().user().equals(user)
                || frame instanceof ServerFrame.Error error && error.ref().equals(Optional.of(ClientFrame.KeysFetch.TYPE)));
        if (fetched instanceof ServerFrame.Error error) {
            throw new dev.parley.client.ParleyException(error);
        }
        return ((ServerFrame.KeysBundle) fetched).bundle();
    }

    /** Fetches the keys of {@code user}'s devices (one, or all) and builds a session with each; the bundle fetched. */
    KeyBundle fetchAndBuild(UserId user, Optional<DeviceId> only) throws Exception {
        KeyBundle bundle = fetch(user, only);
        cipher.build(bundle);
        return bundle;
    }

    /**
     * Sends {@code plaintext} to the conversation whose members are {@code members}, as a client must: sealed for every device
     * known, and on {@code devices_changed} the devices named fetched or forgotten and the same id sent again, sealed anew.
     */
    ServerFrame.MessageAck send(ConversationId conversation, List<String> members, String plaintext) throws Exception {
        return send(conversation, members, plaintext, ClientMessageId.random());
    }

    ServerFrame.MessageAck send(ConversationId conversation, List<String> members, String plaintext, ClientMessageId id) throws Exception {
        return append(conversation, members, plaintext, id, (content, attempt) -> new ClientFrame.MessageSend(id, conversation, content,
                OptionalLong.empty(), attempt));
    }

    /** An edit of the message at {@code targetSeq}: its new plaintext sealed for every device, as a send is. */
    ServerFrame.MessageAck edit(ConversationId conversation, List<String> members, long targetSeq, String plaintext) throws Exception {
        ClientMessageId id = ClientMessageId.random();
        return append(conversation, members, plaintext, id, (content, attempt) -> new ClientFrame.MessageEdit(id, conversation, targetSeq, content, attempt));
    }

    /**
     * A sealed reaction to the message at {@code targetSeq}: {@code plaintext} (the emoji) sealed for every device, sent as
     * {@code reaction.set} with {@code ciphertext}; its answer, {@code reaction.ack}.
     */
    ServerFrame.ReactionAck react(ConversationId conversation, List<String> members, long targetSeq, String plaintext) throws Exception {
        Content content = Content.envelopes(cipher.seal(conversation, members.stream().map(UserId::of).toList(), plaintext.getBytes(StandardCharsets.UTF_8), keys));
        sealed.add(content);
        String id = java.util.UUID.randomUUID().toString();
        client.sendRaw(new dev.parley.protocol.FrameCodec().encodeRequest(new ClientFrame.ReactionSet(conversation, targetSeq, Optional.empty(),
                Optional.of(content)), id));
        ServerFrame answer = client.await(ServerFrame.class, f -> f instanceof ServerFrame.ReactionAck ack && ack.targetSeq() == targetSeq
                || f instanceof ServerFrame.Error error && error.ref().equals(Optional.of(id)));
        if (answer instanceof ServerFrame.ReactionAck ack) {
            return ack;
        }
        throw new AssertionError(user + "/" + device + "'s sealed reaction was answered " + answer);
    }

    /** Every envelope this device sealed, as sent (the last attempt's of each entry). */
    final List<Content> sealed = new java.util.ArrayList<>();

    private ServerFrame.MessageAck append(ConversationId conversation, List<String> members, String plaintext, ClientMessageId id,
                                          java.util.function.BiFunction<Content, Integer, ClientFrame.Appending> frame) throws Exception {
        List<UserId> to = members.stream().map(UserId::of).toList();
        byte[] bytes = plaintext.getBytes(StandardCharsets.UTF_8);
        refusals.clear();
        for (int attempt = 1; ; attempt++) {
            Content content = Content.envelopes(cipher.seal(conversation, to, bytes, keys));
            sealed.add(content);
            client.send(frame.apply(content, attempt));
            ServerFrame answer = client.await(ServerFrame.class, f -> f instanceof ServerFrame.MessageAck ack && ack.id().equals(id)
                    || f instanceof ServerFrame.Error error && error.ref().equals(Optional.of(id.toString())));
            if (answer instanceof ServerFrame.MessageAck ack) {
                return ack;
            }
            ServerFrame.Error error = (ServerFrame.Error) answer;
            if (error.code() != ErrorCode.DEVICES_CHANGED || attempt > RESENDS) {
                throw new AssertionError(user + "/" + device + "'s send " + id + " was answered " + error);
            }
            refusals.add(error);
            cipher.devicesChanged(error.devices().orElseThrow(), keys);
        }
    }

    /** The plaintext of a message's envelope for this device; empty when it carries none for it. */
    Optional<String> open(Message message) throws Exception {
        return cipher.open(message).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    /** Receives the next message from {@code sender} and decrypts this device's envelope. */
    String receive(String sender) throws Exception {
        ServerFrame.MessageReceive received = client.await(ServerFrame.MessageReceive.class,
                frame -> frame.message().senderId().value().equals(sender) && frame.message().content().addressed());
        return open(received.message()).orElseThrow(() -> new AssertionError(user + "/" + device + " got no envelope of " + received));
    }
}

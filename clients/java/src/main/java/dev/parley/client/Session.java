package dev.parley.client;

import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.List;

/**
 * Where the parts meet: each frame the server sends goes to the part it is for (a push to the app, an answer to its request,
 * messages to their timelines, an ack to the outbox), each connect starts a sync, and a tick every 200 ms drives the timers.
 * A new push is one case here and one {@link ParleyListener} method; a new request is one call in {@link ParleyClient}.
 */
final class Session implements ConnectionKeeper.Events {
    private final ConnectionKeeper connection;
    private final Requests requests;
    private final Sender sender;
    private final Receiving receiving;
    private final PresenceWatch presence;
    private final ParleyListener listener;
    private final UserId user;
    private final Duration ackTimeout;
    private final FrameCodec codec = new FrameCodec();

    Session(ConnectionKeeper connection, Requests requests, Sender sender, Receiving receiving, PresenceWatch presence,
            ParleyListener listener, UserId user, Duration ackTimeout) {
        this.connection = connection;
        this.requests = requests;
        this.sender = sender;
        this.receiving = receiving;
        this.presence = presence;
        this.listener = listener;
        this.user = user;
        this.ackTimeout = ackTimeout;
        sender.onRetryDue(this::tick);
    }

    @Override
    public void opened() {
        receiving.sync();
    }

    @Override
    public void lost(String why) {
        sender.connectionLost();
        requests.failAll("disconnected: " + why);
    }

    @Override
    public void text(String text) {
        if (!(codec.decodeServer(text) instanceof DecodeResult.Decoded<ServerFrame> decoded)) {
            if (GatewayRefusal.is(text)) {
                sender.gatewayRefused(receiving::resyncAfter);
            }
            return;
        }
        ServerFrame frame = decoded.frame();
        switch (frame) {
            case ServerFrame.MessageReceive receive -> receiving.live(receive);
            case ServerFrame.SyncBatch batch -> receiving.batch(batch);
            case ServerFrame.SyncDone done -> synced(done);
            case ServerFrame.HistoryBatch batch -> receiving.history(batch);
            case ServerFrame.MessageAck ack -> sender.acknowledged(ack).ifPresent(send ->
                    sender.ownEntry(send).ifPresent(entry -> receiving.acknowledged(ack, send, entry)));
            case ServerFrame.Error error -> refused(error);
            case ServerFrame.ReceiptUpdate receipt -> ClientLoop.tell(() -> listener.onReceipt(receipt));
            case ServerFrame.TypingUpdate typing -> ClientLoop.tell(() -> listener.onTyping(typing));
            case ServerFrame.ReactionsUpdate reactions -> receiving.reactions(reactions);
            case ServerFrame.PresenceUpdate update -> ClientLoop.tell(() -> listener.onPresence(update.presence()));
            case ServerFrame.PresenceBatch batch -> batch.users().forEach(one -> ClientLoop.tell(() -> listener.onPresence(one)));
            case ServerFrame.NotificationReceive notification -> {
                ClientLoop.tell(() -> listener.onNotification(notification.notification()));
                connection.send(codec.encode(new ClientFrame.NotificationAck(List.of(notification.notification().id()))));
            }
            case ServerFrame.ConversationCreated created -> {
                ClientLoop.tell(() -> listener.onConversation(created.conversation()));
                receiving.sync();
            }
            case ServerFrame.ConversationUpdated updated -> {
                ClientLoop.tell(() -> listener.onConversation(updated.conversation()));
                if (!updated.conversation().members().contains(user)) {
                    receiving.left(updated.conversation().id());
                } else if (!receiving.holds(updated.conversation().id())) {
                    // Added to it: a sync says where it starts. A change to one it holds (a pin, another member) needs none, so a
                    // pin in a big group does not have every member's client sync.
                    receiving.sync();
                }
            }
            case ServerFrame.KeysLow low -> ClientLoop.tell(() -> listener.onKeysLow(low.counts()));
            case ServerFrame.IdentityChanged changed -> ClientLoop.tell(() -> listener.onIdentityChanged(changed.userId()));
            default -> {
                // An answer only: its request settles below.
            }
        }
        // A sync's pages carry its ref too, but only sync.done answers it; an ack is the outbox's.
        if (!(frame instanceof ServerFrame.Error || frame instanceof ServerFrame.SyncBatch || frame instanceof ServerFrame.MessageAck) && !frame.isPush()) {
            sender.answered(decoded.ref(), frame).ifPresentOrElse(receiving::requestAnswered, () -> requests.answered(decoded.ref(), frame));
        }
    }

    /** An error names a send (its id), or a request (its id): the outbox's or the request's; else it is the app's to hear. */
    private void refused(ServerFrame.Error error) {
        if (!sender.refused(error) && !requests.answered(error.ref(), error)) {
            ClientLoop.tell(() -> listener.onError(error));
        }
    }

    /** Caught up: the queue goes out, and what the app read while offline is told. */
    private void synced(ServerFrame.SyncDone done) {
        receiving.synced(done);
        if (connection.state() != ConnectionState.SYNCING) {
            return;
        }
        connection.synced();
        receiving.online();
        sender.online();
        presence.renew();
    }

    /** Every 200 ms: gaps to fill, presence to renew, sends whose ack is overdue, and the connection's heartbeat. */
    void tick() {
        if (!connection.open()) {
            return;
        }
        if (connection.state() == ConnectionState.ONLINE) {
            receiving.fillGaps();
            presence.renewIfDue();
            sender.resendOverdue(ackTimeout);
        }
        connection.heartbeat();
    }
}

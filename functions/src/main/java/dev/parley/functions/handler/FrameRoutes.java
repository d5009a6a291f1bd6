package dev.parley.functions.handler;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.usecase.Caller;
import dev.parley.functions.usecase.Connections;
import dev.parley.functions.usecase.ChangeMessage;
import dev.parley.functions.usecase.Conversations;
import dev.parley.functions.usecase.TopicMutes;
import dev.parley.functions.usecase.Delivery;
import dev.parley.functions.usecase.Devices;
import dev.parley.functions.usecase.FrameLimits;
import dev.parley.functions.usecase.Inboxes;
import dev.parley.functions.usecase.Keys;
import dev.parley.functions.usecase.Media;
import dev.parley.ports.KeyDirectory;
import dev.parley.functions.usecase.NotificationPushSettings;
import dev.parley.functions.usecase.Presence;
import dev.parley.functions.usecase.Typing;
import dev.parley.ports.Inbox;
import dev.parley.ports.PresenceSubscriptions;
import java.time.Duration;
import dev.parley.functions.usecase.Receipts;
import dev.parley.functions.usecase.SendMessage;
import dev.parley.functions.usecase.SetReaction;
import dev.parley.ports.ReactionStore;
import dev.parley.functions.usecase.SyncAndHistory;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.Optional;

/** Which use case answers each client frame: the frame function's one table of routes. */
final class FrameRoutes {
    private final Connections connections;
    private final SendMessage sending;
    private final ChangeMessage changes;
    private final Conversations conversations;
    private final Receipts receipts;
    private final SyncAndHistory sync;
    private final Devices devices;
    private final Presence presence;
    private final Typing typing;
    private final Inboxes inboxes;
    private final NotificationPushSettings notificationPush;
    private final FrameLimits limits;
    private final Keys keys;
    private final Media media;
    private final TopicMutes topicMutes;
    private final SetReaction reactions;

    FrameRoutes(Connections connections, SendMessage sending, ChangeMessage changes, Conversations conversations, Receipts receipts, SyncAndHistory sync,
                Devices devices, Presence presence, Typing typing, Inboxes inboxes, NotificationPushSettings notificationPush, FrameLimits limits,
                Keys keys, Media media, TopicMutes topicMutes, SetReaction reactions) {
        this.connections = connections;
        this.reactions = reactions;
        this.topicMutes = topicMutes;
        this.media = media;
        this.keys = keys;
        this.limits = limits;
        this.notificationPush = notificationPush;
        this.inboxes = inboxes;
        this.presence = presence;
        this.typing = typing;
        this.devices = devices;
        this.sending = sending;
        this.changes = changes;
        this.conversations = conversations;
        this.receipts = receipts;
        this.sync = sync;
    }

    /** The use cases over these ports; sends take the fast path when it is given. */
    static FrameRoutes over(ConversationRepository conversations, MessageLog messages, ConnectionRegistry registry, Delivery delivery,
                            FrameCodec codec, Clock clock, Backoff backoff, Optional<MessageLog.FastPathOffer> fastPath,
                            Devices devices, PresenceSubscriptions subscriptions, Inbox inbox, Duration connectionLease, Duration typingInterval,
                            NotificationPushSettings notificationPush, FrameLimits limits, KeyDirectory keyDirectory, Media media,
                            dev.parley.ports.Topics topics, dev.parley.ports.TopicFeeds feeds, dev.parley.functions.usecase.TopicFeedPulls pulls,
                            ReactionStore reactions) {
        return over(conversations, messages, registry, delivery, codec, clock, backoff, fastPath, devices, subscriptions, inbox, connectionLease,
                typingInterval, notificationPush, limits, keyDirectory, media, topics, feeds, pulls, reactions, ChangeMessage.ChangeWindows.DEFAULT);
    }

    /** As above, with the windows within which senders change their messages. */
    static FrameRoutes over(ConversationRepository conversations, MessageLog messages, ConnectionRegistry registry, Delivery delivery,
                            FrameCodec codec, Clock clock, Backoff backoff, Optional<MessageLog.FastPathOffer> fastPath,
                            Devices devices, PresenceSubscriptions subscriptions, Inbox inbox, Duration connectionLease, Duration typingInterval,
                            NotificationPushSettings notificationPush, FrameLimits limits, KeyDirectory keyDirectory, Media media,
                            dev.parley.ports.Topics topics, dev.parley.ports.TopicFeeds feeds, dev.parley.functions.usecase.TopicFeedPulls pulls,
                            ReactionStore reactions, ChangeMessage.ChangeWindows windows) {
        Presence presence = new Presence(registry, subscriptions, conversations, delivery, codec, clock);
        SendMessage sending = new SendMessage(messages, conversations, keyDirectory, media, delivery, codec, clock, fastPath);
        return new FrameRoutes(new Connections(registry, clock, presence, connectionLease), sending,
                new ChangeMessage(sending, messages, conversations, media, reactions, windows, clock),
                new Conversations(conversations, messages, delivery, codec, backoff, media, clock), new Receipts(conversations),
                new SyncAndHistory(conversations, messages, delivery, codec, reactions, clock), devices, presence,
                new Typing(conversations, registry, delivery, codec, clock, typingInterval), new Inboxes(inbox, delivery, codec, pulls), notificationPush, limits,
                new Keys(keyDirectory, conversations, delivery, codec), media, new TopicMutes(topics, feeds, registry, clock),
                new SetReaction(conversations, messages, reactions, clock, sending));
    }

    /** Takes the frame from its rate limit, if it has one: over it, nothing of the frame is done ({@link FrameLimits}). */
    void admit(Caller caller, ClientFrame frame) {
        limits.admit(caller, frame);
    }

    /**
     * A send, an edit or a delete, its rate limit (a send's) taken beside the store's first round trip: what it did, which the
     * frame function logs and counts.
     */
    SendMessage.Sent append(Caller caller, ClientFrame.Appending frame) {
        MessageLog.Admission admission = limits.sendAdmission(caller);
        return switch (frame) {
            case ClientFrame.MessageSend send -> sending.send(caller, send, admission);
            case ClientFrame.MessageEdit edit -> changes.edit(caller, edit, admission);
            case ClientFrame.MessageDelete delete -> changes.delete(caller, delete, admission);
        };
    }

    /** The answer to a request without an id (protocol 1.0). */
    Optional<ServerFrame> answer(Caller caller, ClientFrame frame) {
        return answer(caller, frame, Optional.empty());
    }

    /**
     * The frame that answers the caller; empty when the route answers nothing (receipts, and a send whose ack was posted already).
     * {@code ref} is the request's id, which the frames a route posts before its answer carry too (a sync's pages).
     */
    Optional<ServerFrame> answer(Caller caller, ClientFrame frame, Optional<String> ref) {
        return switch (frame) {
            case ClientFrame.Ping ignored -> Optional.of(connections.ping(caller));
            case ClientFrame.Appending appending -> {
                SendMessage.Sent sent = append(caller, appending);
                yield sent.ackPosted() ? Optional.empty() : Optional.of(sent.ack());
            }
            case ClientFrame.ReactionSet set -> Optional.of(reactions.set(caller, set, ref));
            case ClientFrame.MessagePin pin -> Optional.of(conversations.pin(caller, pin));
            case ClientFrame.ConversationCreate create -> Optional.of(conversations.create(caller, create));
            case ClientFrame.ConversationMembersAdd add -> Optional.of(conversations.groups().addMembers(caller, add));
            case ClientFrame.ConversationMembersRemove remove -> Optional.of(conversations.groups().removeMembers(caller, remove));
            case ClientFrame.ConversationUpdate update -> Optional.of(conversations.groups().update(caller, update));
            case ClientFrame.ConversationMembersRole role -> Optional.of(conversations.groups().role(caller, role));
            case ClientFrame.ConversationLeave leave -> Optional.of(conversations.groups().leave(caller, leave));
            case ClientFrame.ConversationMembersBan ban -> Optional.of(conversations.groups().ban(caller, ban));
            case ClientFrame.ConversationMembersUnban unban -> Optional.of(conversations.groups().unban(caller, unban));
            case ClientFrame.ConversationInviteCreate create -> Optional.of(conversations.invites().create(caller, create));
            case ClientFrame.ConversationInviteRevoke revoke -> Optional.of(conversations.invites().revoke(caller, revoke));
            case ClientFrame.ConversationJoin join -> Optional.of(conversations.invites().join(caller, join));
            case ClientFrame.ConversationList list -> Optional.of(conversations.list(caller, list));
            case ClientFrame.MessageDelivered delivered -> {
                receipts.delivered(caller, delivered);
                yield Optional.empty();
            }
            case ClientFrame.MessageRead read -> {
                receipts.read(caller, read);
                yield Optional.empty();
            }
            case ClientFrame.SyncRequest request -> Optional.of(sync.sync(caller, request, ref));
            case ClientFrame.HistoryRequest request -> Optional.of(sync.history(caller, request));
            case ClientFrame.Typing typed -> {
                typing.typing(caller, typed);
                yield Optional.empty();
            }
            case ClientFrame.PresenceQuery query -> Optional.of(presence.query(caller, query));
            case ClientFrame.PresenceSubscribe subscribe -> Optional.of(presence.subscribe(caller, subscribe));
            case ClientFrame.SettingsUpdate update -> Optional.of(settings(caller, update));
            case ClientFrame.DeviceRegister register -> Optional.of(devices.register(caller, register));
            case ClientFrame.DeviceUnregister ignored -> Optional.of(devices.unregister(caller));
            case ClientFrame.ConversationMute mute -> Optional.of(devices.mute(caller, mute));
            case ClientFrame.TopicMute mute -> Optional.of(topicMutes.mute(caller, mute));
            case ClientFrame.InboxList list -> Optional.of(inboxes.list(caller, list));
            case ClientFrame.MarkInbox mark -> Optional.of(inboxes.mark(caller, mark));
            case ClientFrame.KeysUpload upload -> Optional.of(keys.upload(caller, upload));
            case ClientFrame.KeysCount ignored -> Optional.of(keys.count(caller));
            case ClientFrame.KeysFetch fetch -> Optional.of(keys.fetch(caller, fetch));
            case ClientFrame.MediaUpload upload -> Optional.of(media.upload(caller, upload));
            case ClientFrame.MediaDownload download -> Optional.of(media.download(caller, download));
            case ClientFrame.NotificationAck ack -> {
                inboxes.acknowledge(caller, ack);
                yield Optional.empty();
            }
        };
    }

    /** Nothing of the frame is set unless all of it can be: the push switches are checked before the visibility is written. */
    private ServerFrame.SettingsUpdated settings(Caller caller, ClientFrame.SettingsUpdate update) {
        update.notificationPush().ifPresent(notificationPush::check);
        update.lastSeenVisibility().ifPresent(visibility -> presence.visibility(caller, visibility));
        return new ServerFrame.SettingsUpdated(update.lastSeenVisibility(), update.notificationPush().map(switches -> notificationPush.set(caller.user(), switches)));
    }
}

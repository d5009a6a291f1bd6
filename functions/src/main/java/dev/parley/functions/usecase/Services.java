package dev.parley.functions.usecase;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionPoster;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ConversationSummary;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Parley's use cases for client frames, plain Java over the ports: conversations, sending,
 * receipts, sync and history, and ping. Each returns the frame that answers the caller (or none),
 * and posts to other connections through the {@link ConnectionPoster}.
 */
public final class Services {
    /** Who is asking, and on which connection. */
    public record Caller(UserId user, DeviceId device, String connectionId) {
    }

    /** A connection's lease: it outlives API Gateway's 10-minute idle timeout, and each ping renews it. */
    public static final Duration LEASE = Duration.ofMinutes(15);
    private static final int LIST_PAGE = 50;
    private static final int MEMBERSHIP_PAGE = 100;
    /** A little under API Gateway's 128 KB, so a batch always fits one frame. */
    private static final int MAX_BATCH_BYTES = 120 * 1024;

    private final ConversationRepository conversations;
    private final MessageLog messages;
    private final ConnectionRegistry connections;
    private final ConnectionPoster poster;
    private final FrameCodec codec;
    private final Clock clock;
    private final Backoff backoff;

    public Services(ConversationRepository conversations, MessageLog messages, ConnectionRegistry connections, ConnectionPoster poster,
                    FrameCodec codec, Clock clock) {
        this(conversations, messages, connections, poster, codec, clock, Backoff.DYNAMODB);
    }

    /** @param backoff how long to wait before trying again an optimistic update that lost a race */
    public Services(ConversationRepository conversations, MessageLog messages, ConnectionRegistry connections, ConnectionPoster poster,
                    FrameCodec codec, Clock clock, Backoff backoff) {
        this.backoff = backoff;
        this.conversations = conversations;
        this.messages = messages;
        this.connections = connections;
        this.poster = poster;
        this.codec = codec;
        this.clock = clock;
    }

    /** Answers one decoded client frame; an empty result means the route answers nothing. */
    public Optional<ServerFrame> handle(Caller caller, ClientFrame frame) {
        return switch (frame) {
            case ClientFrame.Ping ignored -> {
                connections.register(caller.connectionId(), caller.user(), caller.device(), clock.instant().plus(LEASE));
                yield Optional.of(new ServerFrame.Pong());
            }
            case ClientFrame.MessageSend send -> Optional.of(send(caller, send));
            case ClientFrame.ConversationCreate create -> Optional.of(create(caller, create));
            case ClientFrame.ConversationMembersAdd add -> Optional.of(changeMembers(caller, add.conversationId(), add.members(), true));
            case ClientFrame.ConversationMembersRemove remove -> Optional.of(changeMembers(caller, remove.conversationId(), remove.members(), false));
            case ClientFrame.ConversationList list -> Optional.of(list(caller, list));
            case ClientFrame.MessageDelivered delivered -> {
                receipt(caller, delivered.conversationId(), delivered.seq(), false);
                yield Optional.empty();
            }
            case ClientFrame.MessageRead read -> {
                receipt(caller, read.conversationId(), read.seq(), true);
                yield Optional.empty();
            }
            case ClientFrame.SyncRequest sync -> Optional.of(sync(caller, sync));
            case ClientFrame.HistoryRequest history -> Optional.of(history(caller, history));
            case ClientFrame.Typing ignored -> throw notYet("typing");
            case ClientFrame.PresenceQuery ignored -> throw notYet("presence.query");
            case ClientFrame.DeviceRegister ignored -> throw notYet("device.register");
        };
    }

    private static DomainException notYet(String type) {
        return new DomainException(ErrorCode.BAD_REQUEST, type + " is not served yet");
    }

    // ---- sending ---------------------------------------------------------------------------------------

    private ServerFrame send(Caller caller, ClientFrame.MessageSend send) {
        MessageLog.Appended appended = messages.append(send.conversationId(), send.id(), caller.user(), caller.device(),
                caller.connectionId(), send.content(), clock.millis());
        Message message = appended.message();
        return new ServerFrame.MessageAck(send.id(), message.conversationId(), message.seq(), message.serverTimestamp(),
                appended.duplicate() ? AckStatus.DUPLICATE : AckStatus.SENT);
    }

    // ---- conversations ---------------------------------------------------------------------------------

    private ServerFrame create(Caller caller, ClientFrame.ConversationCreate create) {
        Conversation wanted;
        if (create.kind() == ConversationKind.DIRECT) {
            List<UserId> others = create.members().stream().filter(u -> !u.equals(caller.user())).toList();
            if (others.size() != 1 || create.members().size() - others.size() > 1) {
                throw new DomainException(ErrorCode.BAD_REQUEST, "a direct conversation is between you and exactly one other user");
            }
            wanted = Conversation.direct(caller.user(), others.getFirst());
        } else {
            wanted = Conversation.group(ConversationId.of("g:" + create.id()), caller.user(), create.members(), create.name());
        }
        ConversationRepository.Stored stored = conversations.createIfAbsent(wanted, caller.user());
        if (wanted.kind() == ConversationKind.GROUP && !stored.createdBy().equals(caller.user())) {
            throw new DomainException(ErrorCode.CONFLICT, "request id " + create.id() + " was used by another user");
        }
        return new ServerFrame.ConversationCreated(create.id(), stored.conversation());
    }

    private ServerFrame changeMembers(Caller caller, ConversationId id, List<UserId> users, boolean add) {
        Backoff.Retries retries = backoff.retries();
        do {
            ConversationRepository.Stored current = find(id);
            Conversation updated = add ? current.conversation().withMembersAdded(caller.user(), users)
                    : current.conversation().withMembersRemoved(caller.user(), users);
            boolean unchanged = updated.equals(current.conversation());
            if (unchanged) {
                // Perhaps a retry of a change whose membership rows failed after the conversation was updated.
                conversations.repairMemberships(current, users);
            }
            if (unchanged || conversations.replaceMembers(current, updated)) {
                ServerFrame.ConversationUpdated frame = new ServerFrame.ConversationUpdated(updated);
                List<UserId> everyone = new ArrayList<>(current.conversation().members());
                updated.members().stream().filter(u -> !everyone.contains(u)).forEach(everyone::add);
                postToUsers(everyone, codec.encode(frame), Optional.of(caller.connectionId()));
                return frame;
            }
        } while (retries.await());
        throw new DomainException(ErrorCode.CONFLICT, "the members of " + id + " kept changing; retry");
    }

    private ServerFrame list(Caller caller, ClientFrame.ConversationList list) {
        ConversationRepository.MembershipPage page = conversations.memberships(caller.user(), list.cursor(), LIST_PAGE);
        Map<ConversationId, ConversationRepository.Stored> stored =
                conversations.findAll(page.memberships().stream().map(ConversationRepository.Membership::conversationId).toList());
        List<ConversationSummary> summaries = new ArrayList<>();
        for (ConversationRepository.Membership membership : page.memberships()) {
            ConversationRepository.Stored conversation = stored.get(membership.conversationId());
            if (conversation == null) {
                continue;
            }
            long unread = Math.max(0, conversation.lastSeq() - Math.max(membership.watermarks().readSeq(), membership.joinedAfterSeq()));
            summaries.add(new ConversationSummary(conversation.conversation().id(), conversation.conversation().kind(),
                    conversation.conversation().name(), conversation.conversation().members().size(), conversation.lastSeq(), unread));
        }
        return new ServerFrame.ConversationPage(summaries, page.nextCursor());
    }

    private ConversationRepository.Stored find(ConversationId id) {
        return conversations.find(id).orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND, "no conversation " + id));
    }

    private ConversationRepository.Stored findAsMember(Caller caller, ConversationId id) {
        ConversationRepository.Stored stored = find(id);
        stored.conversation().requireMember(caller.user());
        return stored;
    }

    // ---- receipts --------------------------------------------------------------------------------------

    private void receipt(Caller caller, ConversationId id, long seq, boolean read) {
        ConversationRepository.Stored stored = findAsMember(caller, id);
        if (seq > stored.lastSeq()) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "seq " + seq + " is beyond the last seq " + stored.lastSeq() + " of " + id);
        }
        ReceiptWatermarks current = conversations.membership(caller.user(), id).map(ConversationRepository.Membership::watermarks)
                .orElse(ReceiptWatermarks.NONE);
        ReceiptWatermarks wanted = read ? current.read(seq) : current.delivered(seq);
        if (wanted.equals(current)) {
            return;
        }
        ReceiptWatermarks now = conversations.advance(caller.user(), id, wanted);
        Optional<ReceiptWatermarks> all = stored.conversation().kind() == ConversationKind.GROUP
                ? Optional.of(ReceiptWatermarks.allOf(conversations.members(id).stream().map(ConversationRepository.Membership::watermarks).toList()))
                : Optional.empty();
        ServerFrame.ReceiptUpdate update = new ServerFrame.ReceiptUpdate(id, caller.user(), now, all);
        // The receipt is for the sender of the message it names.
        List<Message> receipted = messages.after(id, seq - 1, 1);
        if (!receipted.isEmpty() && !receipted.getFirst().senderId().equals(caller.user())) {
            postToUsers(List.of(receipted.getFirst().senderId()), codec.encode(update), Optional.empty());
        }
    }

    // ---- sync and history ------------------------------------------------------------------------------

    private ServerFrame sync(Caller caller, ClientFrame.SyncRequest request) {
        Map<ConversationId, ConversationRepository.Membership> memberships = new LinkedHashMap<>();
        Optional<String> cursor = Optional.empty();
        do {
            ConversationRepository.MembershipPage page = conversations.memberships(caller.user(), cursor, MEMBERSHIP_PAGE);
            page.memberships().forEach(m -> memberships.put(m.conversationId(), m));
            cursor = page.nextCursor();
        } while (cursor.isPresent());
        Map<ConversationId, ConversationRepository.Stored> stored = conversations.findAll(memberships.keySet());
        for (ConversationRepository.Membership membership : memberships.values()) {
            ConversationId id = membership.conversationId();
            ConversationRepository.Stored conversation = stored.get(id);
            if (conversation == null) {
                continue;
            }
            // A conversation the device did not name starts where the member joined.
            long from = Math.max(request.state().getOrDefault(id, membership.joinedAfterSeq()), membership.joinedAfterSeq());
            boolean more = true;
            while (more) {
                List<Message> page = messages.after(id, from, request.limit());
                more = page.size() == request.limit() && page.getLast().seq() < conversation.lastSeq();
                ServerFrame.SyncBatch batch = fit(id, page, more, membership, conversation.lastSeq());
                more = batch.hasMore();
                poster.post(caller.connectionId(), codec.encode(batch));
                if (batch.messages().isEmpty()) {
                    break;
                }
                from = batch.messages().getLast().seq();
            }
        }
        return new ServerFrame.SyncDone();
    }

    /** A sync batch that fits one frame: messages are dropped from its end (and has_more set) until it does. */
    private ServerFrame.SyncBatch fit(ConversationId id, List<Message> page, boolean more, ConversationRepository.Membership membership, long lastSeq) {
        List<Message> kept = new ArrayList<>(page);
        boolean hasMore = more;
        while (true) {
            ServerFrame.SyncBatch batch = new ServerFrame.SyncBatch(id, kept, hasMore, membership.watermarks(), lastSeq);
            if (kept.size() <= 1 || dev.parley.model.Utf8.length(codec.encode(batch)) <= MAX_BATCH_BYTES) {
                return batch;
            }
            kept.removeLast();
            hasMore = true;
        }
    }

    private ServerFrame history(Caller caller, ClientFrame.HistoryRequest request) {
        ConversationRepository.Stored stored = findAsMember(caller, request.conversationId());
        long before = request.beforeSeq().orElse(stored.lastSeq() + 1);
        List<Message> page = messages.before(request.conversationId(), before, request.limit());
        OptionalLong next = page.size() == request.limit() && page.getLast().seq() > 1 ? OptionalLong.of(page.getLast().seq()) : OptionalLong.empty();
        return new ServerFrame.HistoryBatch(request.conversationId(), page, next);
    }

    // ---- posting ---------------------------------------------------------------------------------------

    /** Posts a frame to every live connection of these users (except one), forgetting connections that are gone. */
    void postToUsers(Collection<UserId> users, String frame, Optional<String> except) {
        Map<UserId, List<LiveConnection>> live = connections.liveConnections(users, clock.instant());
        for (List<LiveConnection> userConnections : live.values()) {
            for (LiveConnection connection : userConnections) {
                if (except.map(connection.connectionId()::equals).orElse(false)) {
                    continue;
                }
                if (poster.post(connection.connectionId(), frame) == ConnectionPoster.Outcome.GONE) {
                    connections.remove(connection.connectionId(), connection.user());
                }
            }
        }
    }
}

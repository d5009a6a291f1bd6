package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.Message;
import dev.parley.model.MessageReactions;
import dev.parley.model.Utf8;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.ConversationRepository.Summary;
import dev.parley.ports.MessageLog;
import dev.parley.ports.ReactionStore;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code sync.request}: what a device missed in every conversation of its user, as pages of
 * {@code sync.batch} posted to it (and, asked with {@code changes_since}, pages of the reaction changes to the messages it
 * holds, {@code reactions_changed}) and a {@code sync.done} answer; {@code history.request}: older
 * messages of one conversation, a page at a time.
 */
public final class SyncAndHistory {
    private static final int MEMBERSHIP_PAGE = 100;
    /** A little under API Gateway's 128 KB, so a batch always fits one frame. */
    static final int MAX_BATCH_BYTES = 120 * 1024;
    /**
     * How far before its start a sync's {@code changes_at} lies. A listing is posted live to the connections there are when it
     * is written, and a sync's device is connected before it asks: what a sync can miss is a listing written before that but
     * not yet in the index it reads, which DynamoDB fills asynchronously (well under a second, normally). The next sync tells
     * again what was listed in this overlap: a whole list, applied again, changes nothing.
     */
    static final java.time.Duration CHANGES_OVERLAP = java.time.Duration.ofSeconds(10);

    private final ConversationRepository conversations;
    private final MessageLog messages;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final ReactionStore reactions;
    private final Clock clock;

    public SyncAndHistory(ConversationRepository conversations, MessageLog messages, Delivery delivery, FrameCodec codec,
                          ReactionStore reactions, Clock clock) {
        this.conversations = conversations;
        this.messages = messages;
        this.delivery = delivery;
        this.codec = codec;
        this.reactions = reactions;
        this.clock = clock;
    }

    public ServerFrame.SyncDone sync(Caller caller, ClientFrame.SyncRequest request) {
        return sync(caller, request, Optional.empty());
    }

    /** A sync whose posted {@code sync.batch} pages carry {@code ref}, the request's id (protocol 1.1), as its answer does. */
    public ServerFrame.SyncDone sync(Caller caller, ClientFrame.SyncRequest request, Optional<String> ref) {
        long changesAt = Math.max(0, clock.millis() - CHANGES_OVERLAP.toMillis());
        Map<ConversationId, Membership> memberships = new LinkedHashMap<>();
        Optional<String> cursor = Optional.empty();
        do {
            ConversationRepository.MembershipPage page = conversations.memberships(caller.user(), cursor, MEMBERSHIP_PAGE);
            page.memberships().forEach(m -> memberships.put(m.conversationId(), m));
            cursor = page.nextCursor();
        } while (cursor.isPresent());
        Map<ConversationId, Summary> summaries = conversations.summaries(memberships.keySet());
        int reactionPages = 0;
        for (Membership membership : memberships.values()) {
            Summary summary = summaries.get(membership.conversationId());
            if (summary != null) {
                long synced = syncOne(caller, request, membership, summary.lastSeq(), ref);
                if (request.changesSince().isPresent()) {
                    reactionPages += reactionChanges(caller, request, membership, request.changesSince().getAsLong(), synced, summary.lastSeq(), ref);
                }
            }
        }
        return new ServerFrame.SyncDone(changesAt, reactionPages);
    }

    /**
     * Posts the reaction changes since {@code since} to the messages the device holds in one conversation, as {@code sync.batch}
     * pages with no messages (continuing from {@code after}, where the conversation's pages of messages ended) and
     * {@code reactions_changed}, each fitting a frame: how many. The messages above what it holds come in the pages of messages,
     * listed with their reactions.
     */
    private int reactionChanges(Caller caller, ClientFrame.SyncRequest request, Membership membership, long since, long after, long lastSeq,
                                Optional<String> ref) {
        ConversationId id = membership.conversationId();
        long held = request.state().getOrDefault(id, 0L);
        if (held <= membership.joinedAfterSeq()) {
            return 0;
        }
        int posted = 0;
        Optional<String> cursor = Optional.empty();
        do {
            ReactionStore.ChangesPage page = reactions.listedSince(id, since, held, request.limit(), cursor);
            List<MessageReactions> changed = page.messages();
            while (!changed.isEmpty()) {
                List<MessageReactions> fitting = fitReactions(id, changed, after, membership, lastSeq);
                delivery.postTo(caller.connection(), codec.encodeAnswer(reactionsPage(id, fitting, after, membership, lastSeq), ref));
                posted++;
                changed = changed.subList(fitting.size(), changed.size());
            }
            cursor = page.next();
        } while (cursor.isPresent());
        return posted;
    }

    private static ServerFrame.SyncBatch reactionsPage(ConversationId id, List<MessageReactions> changed, long after, Membership membership,
                                                       long lastSeq) {
        return new ServerFrame.SyncBatch(id, after, List.of(), false, membership.watermarks(), lastSeq, changed);
    }

    /** The longest head of {@code changed} whose page fits one frame (at least one message). */
    private List<MessageReactions> fitReactions(ConversationId id, List<MessageReactions> changed, long after, Membership membership, long lastSeq) {
        List<MessageReactions> kept = changed;
        while (kept.size() > 1 && Utf8.length(codec.encode(reactionsPage(id, kept, after, membership, lastSeq))) > MAX_BATCH_BYTES) {
            kept = kept.subList(0, kept.size() / 2);
        }
        return kept;
    }

    /** Posts one conversation's missed messages, in batches that each fit a frame; returns where the last page ended. */
    private long syncOne(Caller caller, ClientFrame.SyncRequest request, Membership membership, long lastSeq, Optional<String> ref) {
        ConversationId id = membership.conversationId();
        // A conversation the device did not name starts where the member joined.
        long from = Math.max(request.state().getOrDefault(id, membership.joinedAfterSeq()), membership.joinedAfterSeq());
        boolean more = true;
        while (more) {
            List<Message> page = forDevice(caller, messages.after(id, from, request.limit()));
            more = page.size() == request.limit() && page.getLast().seq() < lastSeq;
            ServerFrame.SyncBatch batch = fit(id, from, page, more, membership, lastSeq);
            more = batch.hasMore();
            delivery.postTo(caller.connection(), codec.encodeAnswer(batch, ref));
            if (batch.messages().isEmpty()) {
                break;
            }
            from = batch.messages().getLast().seq();
        }
        return from;
    }

    /** A sync batch that fits one frame: messages are dropped from its end (and has_more set) until it does. */
    private ServerFrame.SyncBatch fit(ConversationId id, long after, List<Message> page, boolean more, Membership membership, long lastSeq) {
        List<Message> kept = new ArrayList<>(page);
        boolean hasMore = more;
        while (true) {
            ServerFrame.SyncBatch batch = new ServerFrame.SyncBatch(id, after, kept, hasMore, membership.watermarks(), lastSeq);
            if (kept.size() <= 1 || Utf8.length(codec.encode(batch)) <= MAX_BATCH_BYTES) {
                return batch;
            }
            kept.removeLast();
            hasMore = true;
        }
    }

    public ServerFrame.HistoryBatch history(Caller caller, ClientFrame.HistoryRequest request) {
        ConversationId id = request.conversationId();
        conversations.requireMembership(id, caller.user());
        long before = request.beforeSeq().orElse(conversations.requireSummary(id).lastSeq() + 1);
        List<Message> page = forDevice(caller, messages.before(id, before, request.limit()));
        OptionalLong next = page.size() == request.limit() && page.getLast().seq() > 1 ? OptionalLong.of(page.getLast().seq()) : OptionalLong.empty();
        return new ServerFrame.HistoryBatch(id, page, next);
    }

    /** The messages as the caller's device sees them: of end-to-end envelopes, its own only. */
    private static List<Message> forDevice(Caller caller, List<Message> messages) {
        DeviceAddress device = new DeviceAddress(caller.user(), caller.device());
        return messages.stream().map(message -> message.forDevice(device)).toList();
    }
}

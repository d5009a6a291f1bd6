package dev.parley.testsupport.ports;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.MessageDetails;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Each conversation's messages in memory, for use-case tests; {@link MessageLogContract} holds it to
 * the DynamoDB adapter's behaviour. Seqs come from the {@link InMemoryConversations} counter, so only
 * members may append, and a conversation's last seq moves with its messages. As in the DynamoDB store, a repeat sent as a first
 * transmission takes a seq and gives it back as a counted void entry, and a resend takes none.
 */
public class InMemoryMessageLog implements MessageLog {
    /** A message as stored, with the connection it was sent on and its fast-path stamp. */
    public record Stored(Message message, Optional<ConnectionId> senderConnection, OptionalLong fastPathUntil) {
    }

    private final InMemoryConversations conversations;
    private final Map<ConversationId, NavigableMap<Long, Stored>> bySeq = new HashMap<>();
    private final Map<ConversationId, Map<ClientMessageId, Message>> byClientId = new HashMap<>();
    private final Map<ConversationId, Map<Long, FastPathRecord>> fastPathRecords = new HashMap<>();
    /** Each message's edit entries' seqs, which its delete erases, and the seq of the last change applied to it. */
    private final Map<ConversationId, Map<Long, SortedSet<Long>>> edits = new HashMap<>();
    private final Map<ConversationId, Map<Long, Long>> lastChanges = new HashMap<>();
    /** When each reacted message's reactions were last listed (their read's time): the listing's turn. */
    private final Map<ConversationId, Map<Long, Long>> reactionsListedAt = new HashMap<>();
    private final Map<ConversationId, Map<Long, Long>> reactionsToldAt = new HashMap<>();

    public InMemoryMessageLog(InMemoryConversations conversations) {
        this.conversations = conversations;
    }

    @Override
    public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                           Optional<ConnectionId> senderConnection, Content content, MessageDetails details, long serverTimestamp,
                           Optional<FastPathOffer> fastPath, boolean resend, Admission admission) {
        // As the store: a first transmission takes its seq beside its admission (its rate limit), which it awaits before it
        // stores, giving the seq back as a void when refused; a resend waits for its admission before it takes a seq. The
        // admission is awaited outside the log's lock: a check may read the log (an edit's target) on another thread.
        Message earlier;
        synchronized (this) {
            earlier = byClientId.getOrDefault(conversation, Map.of()).get(id);
            if (earlier != null && !resend) {
                // A repeat's seq is given back; a sender who may not send (any more) takes none.
                try {
                    giveBack(conversation, conversations.takeSeq(conversation, sender), serverTimestamp);
                } catch (DomainException mayNotSend) {
                    // A repeat is answered with its original all the same.
                }
            }
        }
        if (earlier != null) {
            admission.await();
            return repeated(conversation, id, sender, earlier);
        }
        if (resend) {
            admission.await();
        }
        long seq = conversations.takeSeq(conversation, sender);
        if (!resend) {
            try {
                admission.await();
            } catch (RuntimeException refused) {
                synchronized (this) {
                    giveBack(conversation, seq, serverTimestamp);
                }
                throw refused;
            }
        }
        synchronized (this) {
            Message stored = byClientId.getOrDefault(conversation, Map.of()).get(id);
            if (stored != null) {
                // Stored by a concurrent call with the same id meanwhile: this one's seq goes back.
                giveBack(conversation, seq, serverTimestamp);
                return repeated(conversation, id, sender, stored);
            }
            Message message = new Message(id, conversation, seq, sender, device, content, serverTimestamp, details);
            int members = conversations.summary(conversation).map(ConversationRepository.Summary::memberCount).orElse(Integer.MAX_VALUE);
            OptionalLong stamp = fastPath.filter(offer -> members <= offer.maxMembers())
                    .map(offer -> OptionalLong.of(serverTimestamp + offer.windowFor(members).toMillis())).orElse(OptionalLong.empty());
            bySeq.computeIfAbsent(conversation, c -> new TreeMap<>()).put(seq, new Stored(message, senderConnection, stamp));
            byClientId.computeIfAbsent(conversation, c -> new HashMap<>()).put(id, message);
            return new Appended(message, false, stamp);
        }
    }

    private static Appended repeated(ConversationId conversation, ClientMessageId id, UserId sender, Message earlier) {
        if (!earlier.senderId().equals(sender)) {
            throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in conversation " + conversation);
        }
        return new Appended(earlier, true);
    }

    /** A seq taken and not used: a counted void entry. */
    private void giveBack(ConversationId conversation, long seq, long timestamp) {
        conversations.uncount(conversation, seq);
        bySeq.computeIfAbsent(conversation, c -> new TreeMap<>()).put(seq, new Stored(Message.voided(conversation, seq, timestamp), Optional.empty(),
                OptionalLong.empty()));
    }

    @Override
    public synchronized Optional<Message> at(ConversationId conversation, long seq) {
        return Optional.ofNullable(bySeq.getOrDefault(conversation, new TreeMap<>()).get(seq)).map(Stored::message);
    }

    @Override
    public synchronized EditApplied applyEdit(Message edit, Content listed) {
        long targetSeq = edit.details().relatesTo().orElseThrow().seq();
        Stored target = bySeq.get(edit.conversationId()).get(targetSeq);
        conversations.uncount(edit.conversationId(), edit.seq());
        if (target.message().isDeleted()) {
            replace(edit.conversationId(), edit.seq(), edit.withContent(Content.DELETED));
            return EditApplied.TARGET_DELETED;
        }
        edits.computeIfAbsent(edit.conversationId(), c -> new HashMap<>()).computeIfAbsent(targetSeq, t -> new TreeSet<>()).add(edit.seq());
        if (lastChange(edit.conversationId(), targetSeq) > edit.seq()) {
            return EditApplied.SUPERSEDED;
        }
        lastChanges.computeIfAbsent(edit.conversationId(), c -> new HashMap<>()).put(targetSeq, edit.seq());
        replace(edit.conversationId(), targetSeq, target.message().withContent(listed)
                .withDetails(target.message().details().editedAt(edit.serverTimestamp())));
        return EditApplied.APPLIED;
    }

    @Override
    public synchronized void applyReaction(Message reaction) {
        long targetSeq = reaction.details().relatesTo().orElseThrow().seq();
        conversations.uncount(reaction.conversationId(), reaction.seq());
        if (bySeq.get(reaction.conversationId()).get(targetSeq).message().isDeleted()) {
            replace(reaction.conversationId(), reaction.seq(), reaction.withContent(Content.DELETED));
            return;
        }
        edits.computeIfAbsent(reaction.conversationId(), c -> new HashMap<>()).computeIfAbsent(targetSeq, t -> new TreeSet<>()).add(reaction.seq());
    }

    @Override
    public synchronized void applyDelete(Message deletion) {
        long targetSeq = deletion.details().relatesTo().orElseThrow().seq();
        Stored target = bySeq.get(deletion.conversationId()).get(targetSeq);
        if (lastChange(deletion.conversationId(), targetSeq) < deletion.seq()) {
            lastChanges.computeIfAbsent(deletion.conversationId(), c -> new HashMap<>()).put(targetSeq, deletion.seq());
        }
        replace(deletion.conversationId(), targetSeq, target.message().withContent(Content.DELETED).withDetails(target.message().details().erased()));
        for (long editSeq : edits.getOrDefault(deletion.conversationId(), Map.of()).getOrDefault(targetSeq, new TreeSet<>())) {
            replace(deletion.conversationId(), editSeq, bySeq.get(deletion.conversationId()).get(editSeq).message().withContent(Content.DELETED));
        }
        conversations.uncountDeleted(deletion.conversationId(), targetSeq, deletion.seq());
    }

    /** As the DynamoDB store's listing ({@link dev.parley.ports.ReactionStore#list}): onto the message, at most once per interval. */
    public synchronized dev.parley.ports.ReactionStore.Listing listReactions(ConversationId conversation, long seq,
                                                                            List<dev.parley.model.ReactionCount> reactions, long readAt,
                                                                            java.time.Duration interval) {
        Stored stored = bySeq.getOrDefault(conversation, new TreeMap<>()).get(seq);
        if (stored == null || stored.message().isDeleted()) {
            return new dev.parley.ports.ReactionStore.Listing.Gone();
        }
        Long last = reactionsListedAt.computeIfAbsent(conversation, c -> new HashMap<>()).get(seq);
        long told = reactionsToldAt.getOrDefault(conversation, Map.of()).getOrDefault(seq, 0L);
        if (last != null && Math.max(last, told) > readAt - interval.toMillis()) {
            return new dev.parley.ports.ReactionStore.Listing.NotBefore(last, Math.max(last, told) + interval.toMillis());
        }
        reactionsListedAt.get(conversation).put(seq, readAt);
        replace(conversation, seq, stored.message().withDetails(stored.message().details().withReactions(reactions)));
        return new dev.parley.ports.ReactionStore.Listing.Listed();
    }

    /** As the DynamoDB store's: the end of the posts of the listing that read at {@code readAt}, if it still holds the turn. */
    public synchronized void reactionsTold(ConversationId conversation, long seq, long readAt, long toldAt) {
        Long last = reactionsListedAt.getOrDefault(conversation, Map.of()).get(seq);
        if (last != null && last == readAt) {
            reactionsToldAt.computeIfAbsent(conversation, c -> new HashMap<>()).put(seq, toldAt);
        }
    }

    /** As the DynamoDB store's index of listings by time ({@link dev.parley.ports.ReactionStore#listedSince}). */
    public synchronized dev.parley.ports.ReactionStore.ChangesPage reactionsListedSince(ConversationId conversation, long since, long upToSeq,
                                                                                      int limit, Optional<String> cursor) {
        record At(long at, long seq) {
        }
        java.util.Comparator<At> order = java.util.Comparator.comparingLong(At::at).thenComparingLong(At::seq);
        Optional<At> after = cursor.map(c -> new At(Long.parseLong(c.substring(0, c.indexOf(':'))), Long.parseLong(c.substring(c.indexOf(':') + 1))));
        List<At> listed = reactionsListedAt.getOrDefault(conversation, Map.of()).entrySet().stream()
                .map(entry -> new At(entry.getValue(), entry.getKey()))
                .filter(at -> at.at() > since && at.seq() <= upToSeq && !bySeq.get(conversation).get(at.seq()).message().isDeleted())
                .filter(at -> after.isEmpty() || order.compare(at, after.get()) > 0)
                .sorted(order).toList();
        List<At> page = listed.subList(0, Math.min(limit, listed.size()));
        Optional<String> next = listed.size() > limit ? Optional.of(page.getLast().at() + ":" + page.getLast().seq()) : Optional.empty();
        return new dev.parley.ports.ReactionStore.ChangesPage(page.stream().map(at -> new dev.parley.model.MessageReactions(at.seq(),
                bySeq.get(conversation).get(at.seq()).message().details().reactions())).toList(), next);
    }

    private long lastChange(ConversationId conversation, long targetSeq) {
        return lastChanges.getOrDefault(conversation, Map.of()).getOrDefault(targetSeq, 0L);
    }

    private void replace(ConversationId conversation, long seq, Message listed) {
        Stored stored = bySeq.get(conversation).get(seq);
        bySeq.get(conversation).put(seq, new Stored(listed, stored.senderConnection(), stored.fastPathUntil()));
        if (!listed.isVoid()) {
            byClientId.get(conversation).put(listed.id(), listed);
        }
    }

    @Override
    public synchronized void recordFastPath(Message message, FastPathRecord record) {
        fastPathRecords.computeIfAbsent(message.conversationId(), c -> new HashMap<>()).put(message.seq(), record);
    }

    @Override
    public synchronized Map<Message, FastPathRecord> fastPathRecords(List<Message> stamped) {
        Map<Message, FastPathRecord> found = new HashMap<>();
        for (Message message : stamped) {
            FastPathRecord record = fastPathRecords.getOrDefault(message.conversationId(), Map.of()).get(message.seq());
            if (record != null) {
                found.put(message, record);
            }
        }
        return found;
    }

    @Override
    public synchronized List<Message> after(ConversationId conversation, long afterSeq, int limit) {
        return bySeq.getOrDefault(conversation, new TreeMap<>()).tailMap(afterSeq, false).values().stream()
                .limit(limit).map(Stored::message).toList();
    }

    @Override
    public synchronized List<Message> before(ConversationId conversation, long beforeSeq, int limit) {
        return bySeq.getOrDefault(conversation, new TreeMap<>()).headMap(beforeSeq, false).descendingMap().values().stream()
                .limit(limit).map(Stored::message).toList();
    }

    @Override
    public synchronized List<Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit) {
        if (upToSeq <= afterSeq) {
            return List.of();
        }
        return bySeq.getOrDefault(conversation, new TreeMap<>()).subMap(afterSeq, false, upToSeq, true).descendingMap().values().stream()
                .map(Stored::message).limit(limit).filter(message -> !message.isVoid())
                .map(message -> new Authored(message.seq(), message.senderId())).toList();
    }

    /** Everything stored in the conversation, in seq order: what its stream would carry. */
    public synchronized List<Stored> stored(ConversationId conversation) {
        return List.copyOf(bySeq.getOrDefault(conversation, new TreeMap<>()).values());
    }
}

package dev.parley.testsupport.ports;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

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

    public InMemoryMessageLog(InMemoryConversations conversations) {
        this.conversations = conversations;
    }

    @Override
    public synchronized Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                                        Optional<ConnectionId> senderConnection, Content content, long serverTimestamp,
                                        Optional<FastPathOffer> fastPath, boolean resend, Admission admission) {
        // As the store: a first transmission takes its seq beside its admission (its rate limit), which it awaits before it
        // stores, giving the seq back as a void when refused; a resend waits for its admission before it takes a seq.
        Message earlier = byClientId.getOrDefault(conversation, Map.of()).get(id);
        if (earlier != null) {
            if (!resend) {
                // A repeat's seq is given back; a sender who may not send (any more) takes none.
                try {
                    giveBack(conversation, conversations.takeSeq(conversation, sender), serverTimestamp);
                } catch (DomainException mayNotSend) {
                    // A repeat is answered with its original all the same.
                }
            }
            admission.await();
            if (!earlier.senderId().equals(sender)) {
                throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in conversation " + conversation);
            }
            return new Appended(earlier, true);
        }
        if (resend) {
            admission.await();
        }
        long seq = conversations.takeSeq(conversation, sender);
        if (!resend) {
            try {
                admission.await();
            } catch (RuntimeException refused) {
                giveBack(conversation, seq, serverTimestamp);
                throw refused;
            }
        }
        Message message = new Message(id, conversation, seq, sender, device, content, serverTimestamp);
        int members = conversations.summary(conversation).map(ConversationRepository.Summary::memberCount).orElse(Integer.MAX_VALUE);
        OptionalLong stamp = fastPath.filter(offer -> members <= offer.maxMembers())
                .map(offer -> OptionalLong.of(serverTimestamp + offer.windowFor(members).toMillis())).orElse(OptionalLong.empty());
        bySeq.computeIfAbsent(conversation, c -> new TreeMap<>()).put(seq, new Stored(message, senderConnection, stamp));
        byClientId.computeIfAbsent(conversation, c -> new HashMap<>()).put(id, message);
        return new Appended(message, false, stamp);
    }

    /** A seq taken and not used: a counted void entry. */
    private void giveBack(ConversationId conversation, long seq, long timestamp) {
        conversations.countVoid(conversation, seq);
        bySeq.computeIfAbsent(conversation, c -> new TreeMap<>()).put(seq, new Stored(Message.voided(conversation, seq, timestamp), Optional.empty(),
                OptionalLong.empty()));
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

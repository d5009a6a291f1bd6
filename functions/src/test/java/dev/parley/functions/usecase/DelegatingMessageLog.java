package dev.parley.functions.usecase;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.MessageDetails;
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A message log that passes every call to another: a test overrides the one call it makes misbehave. */
class DelegatingMessageLog implements MessageLog {
    private final MessageLog delegate;

    DelegatingMessageLog(MessageLog delegate) {
        this.delegate = delegate;
    }

    @Override
    public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device, Optional<ConnectionId> senderConnection,
                           Content content, MessageDetails details, long serverTimestamp, Optional<FastPathOffer> fastPath, boolean resend,
                           Admission admission) {
        return delegate.append(conversation, id, sender, device, senderConnection, content, details, serverTimestamp, fastPath, resend, admission);
    }

    @Override
    public Optional<Message> at(ConversationId conversation, long seq) {
        return delegate.at(conversation, seq);
    }

    @Override
    public EditApplied applyEdit(Message edit, Content listed) {
        return delegate.applyEdit(edit, listed);
    }

    @Override
    public void applyReaction(Message reaction) {
        delegate.applyReaction(reaction);
    }

    @Override
    public void applyDelete(Message deletion) {
        delegate.applyDelete(deletion);
    }

    @Override
    public void recordFastPath(Message message, FastPathRecord record) {
        delegate.recordFastPath(message, record);
    }

    @Override
    public Map<Message, FastPathRecord> fastPathRecords(List<Message> stamped) {
        return delegate.fastPathRecords(stamped);
    }

    @Override
    public List<Message> after(ConversationId conversation, long afterSeq, int limit) {
        return delegate.after(conversation, afterSeq, limit);
    }

    @Override
    public List<Message> before(ConversationId conversation, long beforeSeq, int limit) {
        return delegate.before(conversation, beforeSeq, limit);
    }

    @Override
    public List<Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit) {
        return delegate.senders(conversation, afterSeq, upToSeq, limit);
    }
}

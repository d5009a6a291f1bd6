package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.ClientFrame;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * What a send refers to, checked beside the store's first round trip (as its rate limit is, {@link MessageLog.Admission}): the
 * seq it replies to must hold a message of the conversation (not a void, a change or a deleted message), and whom it mentions
 * must be members; {@code "*"} (every member) is a group admin's. Refused, the send stores nothing and the field is named.
 */
final class References {
    private final MessageLog messages;
    private final ConversationRepository conversations;
    private final ExecutorService threads;

    References(MessageLog messages, ConversationRepository conversations, ExecutorService threads) {
        this.messages = messages;
        this.conversations = conversations;
        this.threads = threads;
    }

    /** The check of this send's references, under way; nothing to wait for when it has none. */
    MessageLog.Admission check(Caller caller, ClientFrame.MessageSend send) {
        ConversationId id = send.conversationId();
        if (send.replyTo().isEmpty() && send.mentions().isEmpty()) {
            return MessageLog.Admission.ADMITTED;
        }
        Future<Optional<Message>> replied = send.replyTo().isPresent() ? threads.submit(() -> messages.at(id, send.replyTo().getAsLong())) : null;
        // A direct conversation's members are in its id; a group's are read once, with its admins.
        Future<Optional<ConversationRepository.Stored>> group = !send.mentions().isEmpty() && !id.isDirect() ? threads.submit(() -> conversations.find(id))
                : null;
        return () -> {
            if (replied != null && !awaited(replied).filter(Message::counts).isPresent()) {
                throw new InvalidFieldException("reply_to", "seq " + send.replyTo().getAsLong() + " of " + id + " holds no message to reply to");
            }
            if (send.mentions().isEmpty()) {
                return;
            }
            List<UserId> members;
            List<UserId> admins;
            if (group == null) {
                members = id.directMembers();
                admins = List.of();
            } else {
                ConversationRepository.Stored stored = awaited(group).orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND, "no conversation " + id));
                members = stored.conversation().members();
                admins = stored.conversation().admins();
            }
            for (UserId mentioned : send.mentions().users()) {
                if (!members.contains(mentioned)) {
                    throw new InvalidFieldException("mentions", "names " + mentioned + ", who is not a member of " + id);
                }
            }
            if (send.mentions().everyone() && group == null) {
                throw new InvalidFieldException("mentions", "\"*\" (every member) is for groups; name the member instead");
            }
            if (send.mentions().everyone() && !admins.contains(caller.user())) {
                throw new DomainException(ErrorCode.FORBIDDEN, "mentioning every member (\"*\") is for the group's admins");
            }
        };
    }

    /** What a read started beside another finds, its failure thrown as it was. */
    static <T> T awaited(Future<T> running) {
        try {
            return running.get();
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof RuntimeException r ? r : new IllegalStateException(failed.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a read", e);
        }
    }
}

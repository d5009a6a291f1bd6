package dev.parley.functions.usecase;

import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.Message;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.ports.ReactionStore;
import dev.parley.protocol.ClientFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code message.edit} and {@code message.delete}: a change is an entry of the conversation's log with a seq of its own and a
 * relation to its target, appended and delivered as a message is ({@link SendMessage}: idempotent on its id, on the fast path,
 * in every differential sync), and then applied to the target, which history lists in its current state (docs/protocol.md,
 * "Messages that change"). The target is read beside the store's first round trip and the change checked against it there
 * ({@link MessagePolicy}): refused, the seq the change took goes back as a void entry, as a rate-limited send's does. The target
 * is changed before the change is acknowledged, so an acknowledged change is applied, and a repeat applies it again (no harm:
 * the store's writes are idempotent), finishing what a failed attempt left. A delete erases the target's media object first (and its reactions after), so
 * that nothing of a deleted message outlives its tombstone.
 */
public final class ChangeMessage {
    private final SendMessage sending;
    private final MessageLog messages;
    private final Media media;
    private final MessagePolicy policy;
    private final ReactionStore reactions;
    private final Clock clock;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    public ChangeMessage(SendMessage sending, MessageLog messages, ConversationRepository conversations, Media media, ReactionStore reactions,
                         ChangeWindows windows, Clock clock) {
        this.reactions = reactions;
        this.sending = sending;
        this.messages = messages;
        this.media = media;
        this.policy = new MessagePolicy(conversations, windows);
        this.clock = clock;
    }

    /** How long after a message its sender may still change it. */
    public record ChangeWindows(Duration edit, Duration delete) {
        public static final ChangeWindows DEFAULT = new ChangeWindows(Duration.ofMinutes(15), Duration.ofHours(48));

        public ChangeWindows {
            if (edit.isNegative() || edit.isZero() || delete.isNegative() || delete.isZero()) {
                throw new IllegalArgumentException("change windows must be positive, were " + edit + " and " + delete);
            }
        }
    }

    public SendMessage.Sent edit(Caller caller, ClientFrame.MessageEdit edit, MessageLog.Admission admission) {
        Future<Optional<Message>> reading = threads.submit(() -> messages.at(edit.conversationId(), edit.targetSeq()));
        Target target = new Target();
        return sending.append(caller, new SendMessage.Entry(edit.id(), edit.conversationId(), edit.content(), edit.details(), edit.resend()), () -> {
        }, () -> {
            admission.await();
            Message found = require(reading, edit.targetSeq());
            policy.requireEditable(caller, found, clock.millis());
            target.listed = listed(found, edit.content());
        }, stored -> messages.applyEdit(stored, target.listed));
    }

    public SendMessage.Sent delete(Caller caller, ClientFrame.MessageDelete delete, MessageLog.Admission admission) {
        Future<Optional<Message>> reading = threads.submit(() -> messages.at(delete.conversationId(), delete.targetSeq()));
        Target target = new Target();
        return sending.append(caller, new SendMessage.Entry(delete.id(), delete.conversationId(), delete.content(), delete.details(),
                delete.resend()), () -> {
        }, () -> {
            admission.await();
            Message found = References.awaited(reading).orElse(null);
            // Deleted already (a repeat of this delete, or another): its tombstone keeps its sender and time, so the same rule
            // answers, and a repeat finishes the erasure a failed attempt left.
            if (found == null || !found.isDeleted() || found.isChange()) {
                found = require(reading, delete.targetSeq());
            }
            policy.requireDeletable(caller, found, clock.millis());
            target.found = found;
        }, stored -> {
            target.found.content().media().ifPresent(media::erase);
            messages.applyDelete(stored);
            reactions.clear(stored.conversationId(), delete.targetSeq());
        });
    }

    /** The target as the admission read it, for the step after the store. */
    private static final class Target {
        private volatile Message found;
        private volatile Content listed;
    }

    private static Message require(Future<Optional<Message>> reading, long seq) {
        return MessagePolicy.requireMessage(References.awaited(reading), seq);
    }

    /**
     * The target's content after the edit, which must be of its family: text for text; for media, text as its new caption; for
     * ciphertext, ciphertext of the same form (envelopes for envelopes, one sender-key body for a body).
     */
    static Content listed(Message target, Content edit) {
        Content was = target.content();
        if (was.type() == ContentType.TEXT || was.type().isMedia()) {
            if (edit.type() != ContentType.TEXT) {
                throw new InvalidFieldException("content.type", "must be text to edit a " + was.type().wireName() + " message"
                        + (was.type().isMedia() ? " (its caption)" : "") + ", was " + edit.type().wireName());
            }
            if (was.type() == ContentType.TEXT) {
                return edit;
            }
            return was.media().isPresent() ? Content.media(was.type(), was.media().get(), edit.body())
                    : Content.linkedMedia(was.type(), was.mediaUrl().orElseThrow(), edit.body());
        }
        if (edit.type() != ContentType.CIPHERTEXT) {
            throw new InvalidFieldException("content.type", "must be ciphertext to edit an end-to-end message, was " + edit.type().wireName());
        }
        if (was.addressed() != edit.addressed()) {
            throw new InvalidFieldException(was.addressed() ? "content.envelopes" : "content.body", was.addressed()
                    ? "are required: the message was sent in envelopes, one per device, and its edit is too"
                    : "is required: the message was sent as one sender-key body, and its edit is too");
        }
        return edit;
    }
}

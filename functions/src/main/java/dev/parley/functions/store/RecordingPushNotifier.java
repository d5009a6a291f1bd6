package dev.parley.functions.store;

import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.PushNotifier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records the members a message could not reach live. Mobile push (SNS) implements this port in a
 * later step; until then the hand-off is logged and counted, so nothing is silently dropped.
 */
public final class RecordingPushNotifier implements PushNotifier {
    private final AtomicLong handOffs = new AtomicLong();

    @Override
    public void notifyOffline(UserId recipient, Message message) {
        handOffs.incrementAndGet();
        System.out.println("{\"level\":\"INFO\",\"message\":\"push hand-off\",\"recipient\":\"" + recipient + "\",\"conversation\":\""
                + message.conversationId() + "\",\"seq\":" + message.seq() + "}");
    }

    public long handOffs() {
        return handOffs.get();
    }
}

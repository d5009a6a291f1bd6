package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.DevicesChangedException;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.KeyDirectory;
import dev.parley.protocol.ClientFrame;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@code ciphertext} send's envelopes against the devices they are for (docs/e2e.md): one for every device with keys of
 * every member, the sender's other devices included and the sending device not, each under the registration id the device
 * has now. Any difference refuses the send before anything is stored ({@link DevicesChangedException}), naming the devices
 * that got no envelope, those that should not have one, and those encrypted to under an old registration id. A member with
 * no keys has no device to address (a fetch of their keys says {@code not_found}): they get the message, with no envelope.
 */
final class EnvelopeCheck {
    private static final Comparator<DeviceAddress> BY_USER_THEN_DEVICE = Comparator.comparing((DeviceAddress a) -> a.user().value())
            .thenComparing(a -> a.device().value());

    private final KeyDirectory keys;
    private final ConversationRepository conversations;

    EnvelopeCheck(KeyDirectory keys, ConversationRepository conversations) {
        this.keys = keys;
        this.conversations = conversations;
    }

    /**
     * Refuses the envelopes unless they address exactly the conversation's devices but the sender's. A sender who is not a
     * member is told nothing about the members' devices: the send goes on to be refused for what it is.
     */
    void require(Caller caller, ConversationId conversation, List<DeviceEnvelope> envelopes) {
        List<UserId> members = Audience.members(conversations, conversation);
        if (!members.contains(caller.user())) {
            return;
        }
        if (members.size() - 1 > ClientFrame.MessageSend.MAX_ENVELOPES) {
            throw tooMany(members.size() + " members");
        }
        Map<DeviceAddress, Integer> expected = new HashMap<>(keys.devices(members));
        expected.remove(new DeviceAddress(caller.user(), caller.device()));
        if (expected.size() > ClientFrame.MessageSend.MAX_ENVELOPES) {
            // No set of envelopes could pass: naming every device would only send the client fetching keys it cannot use.
            throw tooMany(expected.size() + " devices to address");
        }
        DeviceMismatch mismatch = compare(expected, envelopes);
        if (!mismatch.isEmpty()) {
            throw new DevicesChangedException(mismatch);
        }
    }

    private static InvalidFieldException tooMany(String what) {
        return new InvalidFieldException("content.envelopes", "cannot address this conversation's " + what + " (at most "
                + ClientFrame.MessageSend.MAX_ENVELOPES + " envelopes): send one body under sender keys (docs/e2e.md)");
    }

    /** How the envelopes differ from the devices expected, each list in the order of user, then device. */
    static DeviceMismatch compare(Map<DeviceAddress, Integer> expected, List<DeviceEnvelope> envelopes) {
        Set<DeviceAddress> addressed = new HashSet<>();
        List<DeviceAddress> extra = new ArrayList<>();
        List<DeviceAddress> stale = new ArrayList<>();
        for (DeviceEnvelope envelope : envelopes) {
            addressed.add(envelope.address());
            Integer registration = expected.get(envelope.address());
            if (registration == null) {
                extra.add(envelope.address());
            } else if (registration != envelope.registrationId()) {
                stale.add(envelope.address());
            }
        }
        List<DeviceAddress> missing = new ArrayList<>(expected.keySet().stream().filter(device -> !addressed.contains(device)).toList());
        missing.sort(BY_USER_THEN_DEVICE);
        extra.sort(BY_USER_THEN_DEVICE);
        stale.sort(BY_USER_THEN_DEVICE);
        return new DeviceMismatch(missing, extra, stale);
    }
}

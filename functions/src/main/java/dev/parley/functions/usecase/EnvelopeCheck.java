package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.DevicesChangedException;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.KeyDirectory;
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
        Map<DeviceAddress, Integer> expected = new HashMap<>(keys.devices(members));
        expected.remove(new DeviceAddress(caller.user(), caller.device()));
        DeviceMismatch mismatch = compare(expected, envelopes);
        if (!mismatch.isEmpty()) {
            throw new DevicesChangedException(mismatch);
        }
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
